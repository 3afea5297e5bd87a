/** A build's output read as steps: fetching the source, configure, compile n/N, link. */
import { describe, expect, it } from 'vitest';
import type { BuildStep } from '../../../server/contracts/llm-runtimes.contract.js';
import { failureLine, nextStep } from '../../../server/llm/runtimes/build-steps.js';

const read = (lines: string[]): BuildStep => lines.reduce<BuildStep>(nextStep, { name: 'source', done: 0, total: 0 });

describe('build steps', () => {
  it('starts at the source and moves to configure on cmake lines', () => {
    expect(read(['Cloning into src...'])).toEqual({ name: 'source', done: 0, total: 0 });
    expect(read(['-- The C compiler identification is GNU 12.2.0'])).toEqual({ name: 'configure', done: 0, total: 0 });
  });
  it("counts ninja's [n/N] as compile, and the program's link as link", () => {
    expect(read(['-- Configuring done', '[12/221] Building CXX object ggml/src/ggml.cpp.o'])).toEqual({ name: 'compile', done: 12, total: 221 });
    // A shared library linked along the way is still compiling; the executable is the last step.
    expect(read(['[200/221] Linking CXX shared library bin/libllama.so'])).toEqual({ name: 'compile', done: 200, total: 221 });
    expect(read(['[221/221] Linking CXX executable bin/llama-server'])).toEqual({ name: 'link', done: 221, total: 221 });
  });
  it("reads make's percentages as n/100 and ignores what says nothing", () => {
    expect(read(['[ 42%] Building C object x.o', 'warning: unused variable', '-- not configure again'])).toEqual({ name: 'compile', done: 42, total: 100 });
    expect(read(['[3/2] nonsense'])).toEqual({ name: 'source', done: 0, total: 0 });
  });
});

describe('why a build failed', () => {
  it("is the line naming the error, not the end of Node's stack trace", () => {
    const node = ['node:fs:1889', '    binding.unlink(path);', '            ^', '', "Error: ENOTDIR: not a directory, unlink '/tmp/x/file/build'", '    at Object.unlinkSync (node:fs:1889:11)', '    at rmSync (node:internal/fs/rimraf:1:1) {', '  errno: -20,', "  code: 'ENOTDIR',", "  syscall: 'unlink',", '}', '', 'Node.js v20.20.2'].join('\n');
    expect(failureLine(node)).toBe("Error: ENOTDIR: not a directory, unlink '/tmp/x/file/build'");
    expect(failureLine('[10/221] Building CXX object a.o\nFAILED: a.o\nc++: fatal error: Killed signal terminated program cc1plus\nninja: build stopped: subcommand failed.')).toBe('c++: fatal error: Killed signal terminated program cc1plus');
    expect(failureLine('cannot build llama-server: cmake is not installed\n')).toBe('cannot build llama-server: cmake is not installed');
  });
});
