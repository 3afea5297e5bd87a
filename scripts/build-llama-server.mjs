// Builds llama.cpp's `llama-server` from the source node-llama-cpp ships (a git bundle), for the
// test against a real LLM server and the chat bench. The build (~3.5 min on 2 cores) is cached
// outside the clone, keyed by the llama.cpp release, so CI on the same machine builds once:
// `$LLAMA_SERVER_CACHE` or `~/.cache/studio/llama-server-<release>`. Prints the binary's path.
// Exit 0 with the path; exit 3 with the reason on stderr when build tools are missing.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const llamaDir = path.join(root, 'node_modules', 'node-llama-cpp', 'llama');
const info = JSON.parse(fs.readFileSync(path.join(llamaDir, 'llama.cpp.info.json'), 'utf8'));
const release = String(info.tag ?? info.release ?? 'unknown').replace(/[^\w.-]/g, '_');
const cacheDir = process.env.LLAMA_SERVER_CACHE ?? path.join(os.homedir(), '.cache', 'studio', `llama-server-${release}`);
const binary = path.join(cacheDir, 'build', 'bin', 'llama-server');

if (fs.existsSync(binary) && fs.existsSync(path.join(cacheDir, 'gguf-py'))) {
  console.log(binary);
  process.exit(0);
}
// `--cached`: only say where a finished build is (exit 4 when there is none).
if (process.argv.includes('--cached')) {
  console.error(`llama-server is not built yet (run node scripts/build-llama-server.mjs; it caches in ${cacheDir})`);
  process.exit(4);
}
for (const tool of ['git', 'cmake', 'c++']) {
  if (spawnSync(tool, ['--version'], { stdio: 'ignore' }).status !== 0) {
    console.error(`cannot build llama-server: ${tool} is not installed`);
    process.exit(3);
  }
}
const bundle = path.join(llamaDir, 'gitRelease.bundle');
if (!fs.existsSync(bundle)) {
  console.error(`cannot build llama-server: ${bundle} is missing (node-llama-cpp not installed?)`);
  process.exit(3);
}
const src = path.join(cacheDir, 'src');
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'] });
fs.rmSync(cacheDir, { recursive: true, force: true });
fs.mkdirSync(cacheDir, { recursive: true });
run('git', ['clone', '-q', bundle, src], cacheDir);
const ninja = spawnSync('ninja', ['--version'], { stdio: 'ignore' }).status === 0;
run('cmake', [
  ...(ninja ? ['-G', 'Ninja'] : []), '-S', src, '-B', path.join(cacheDir, 'build'),
  '-DCMAKE_BUILD_TYPE=Release', '-DLLAMA_USE_PREBUILT_UI=OFF', '-DLLAMA_BUILD_UI=OFF', '-DLLAMA_OPENSSL=OFF',
  '-DLLAMA_CURL=OFF', '-DLLAMA_BUILD_TESTS=OFF', '-DLLAMA_BUILD_EXAMPLES=OFF', '-DGGML_NATIVE=ON',
], cacheDir);
run('cmake', ['--build', path.join(cacheDir, 'build'), '--target', 'llama-server', '-j', String(Math.max(1, os.availableParallelism()))], cacheDir);
// Keep what the tests need to make a tiny model (gguf-py and a vocabulary), drop the rest.
fs.cpSync(path.join(src, 'gguf-py'), path.join(cacheDir, 'gguf-py'), { recursive: true });
fs.cpSync(path.join(src, 'models', 'ggml-vocab-llama-spm.gguf'), path.join(cacheDir, 'ggml-vocab-llama-spm.gguf'));
fs.rmSync(src, { recursive: true, force: true, maxRetries: 2 });
console.log(binary);
