/**
 * "Build from source" as steps a person can follow: fetching the source, configure (cmake's `-- …`
 * lines), compile n/N (the build tool's own counter: ninja's `[n/N]`, or make's `[ 42%]` as n/100)
 * and link (the `Linking … executable` line of the final program). The raw output stays in the log.
 */
import type { BuildStep } from '../../contracts/llm-runtimes.contract.js';

const NINJA = /^\[(\d+)\/(\d+)\]\s*(.*)$/;
const MAKE = /^\[\s*(\d+)%\]\s*(.*)$/;
const LINK_PROGRAM = /^Linking \S+ executable\b/;

/** The step a build output line moves to, or `current` when the line says nothing new. */
export function nextStep(current: BuildStep, line: string): BuildStep {
  const counted = NINJA.exec(line);
  if (counted) return counter(current, Number(counted[1]), Number(counted[2]), counted[3] ?? '');
  const percent = MAKE.exec(line);
  if (percent) return counter(current, Number(percent[1]), 100, percent[2] ?? '');
  // cmake's configure messages come before any counter; never step back once compiling.
  if (current.name === 'source' && (/^-- /.test(line) || /^CMake /.test(line))) return { name: 'configure', done: 0, total: 0 };
  return current;
}

function counter(current: BuildStep, done: number, total: number, text: string): BuildStep {
  if (!(total > 0) || done > total) return current;
  return { name: current.name === 'link' || LINK_PROGRAM.test(text) ? 'link' : 'compile', done, total };
}

/** Lines of a failing tool's output that say nothing of why (Node's stack trace and its frame). */
const NOISE = /^(?:at |Node\.js v|[{}^]|\w+: '.*',?$|\w+: -?\d+,?$|node:[\w/]+:\d+$)/;
const WHY = /error|cannot|can't|failed|not found|no such|denied|not a directory/i;

const ERROR = /\berror\b/i;

/**
 * The line of a failed build's output that says why: the last one naming an error (the compiler's
 * `fatal error`, Node's `Error:`), else the last one saying what failed, else the last line.
 */
export function failureLine(output: string): string {
  const lines = output.split('\n').map((l) => l.trim()).filter((l) => l && !NOISE.test(l)).reverse();
  return lines.find((l) => ERROR.test(l)) ?? lines.find((l) => WHY.test(l)) ?? lines[0] ?? '';
}
