// Builds llama.cpp's `llama-server` from the source the `node-llama-cpp` npm package ships (a git
// bundle inside its tarball, fetched with `npm pack`: the package is not a dependency, its 700 MB of
// prebuilt binaries are not needed), for the test against a real LLM server and the chat bench.
// The build (~3.5-5 min on 2 cores) is cached in the clone's ignored `.cache/`, keyed by the package
// version, so a checkout builds once: `$LLAMA_SERVER_CACHE` or `<clone>/.cache/llama-server-<version>`.
// Prints the binary's path, alone, on stdout: everything the build tools print goes to stderr (the
// build prints megabytes; a caller capturing stdout must not have to hold them). Exit 0 with the
// path; exit 3 with the reason on stderr when build tools or the package are missing; with
// `--cached`, exit 4 when nothing is built yet.
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The node-llama-cpp release whose llama.cpp source is built, and that source's release tag. */
const PACKAGE = 'node-llama-cpp@3.22.1';
const LLAMA_RELEASE = 'v0.5.0';
// The build's shared libraries are found through absolute RPATHs: the folder must not move.
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const cacheDir = process.env.LLAMA_SERVER_CACHE ?? path.join(root, '.cache', `llama-server-${LLAMA_RELEASE}`);
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
const src = path.join(cacheDir, 'src');
// The tools' output streams to our stderr as it comes: nothing is buffered, so no size limit applies.
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, stdio: ['ignore', 2, 2] });
fs.rmSync(cacheDir, { recursive: true, force: true });
fs.mkdirSync(cacheDir, { recursive: true });
const packed = spawnSync('npm', ['pack', PACKAGE, '--pack-destination', cacheDir, '--silent'], { cwd: cacheDir, encoding: 'utf8' });
const tarball = path.join(cacheDir, String(packed.stdout).trim().split('\n').pop() ?? '');
if (packed.status !== 0 || !fs.existsSync(tarball)) {
  console.error(`cannot build llama-server: npm pack ${PACKAGE} failed: ${String(packed.stderr).trim().slice(-300)}`);
  process.exit(3);
}
run('tar', ['-xzf', tarball, '-C', cacheDir, 'package/llama/gitRelease.bundle'], cacheDir);
run('git', ['-c', 'advice.detachedHead=false', 'clone', '-q', path.join(cacheDir, 'package', 'llama', 'gitRelease.bundle'), src], cacheDir);
fs.rmSync(path.join(cacheDir, 'package'), { recursive: true, force: true });
fs.rmSync(tarball, { force: true });
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
