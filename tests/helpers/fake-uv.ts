/**
 * A stand-in for uv (astral-sh/uv), which no package source this machine reaches carries. It
 * accepts exactly the uv command lines the engine installer may write — `uv venv` and
 * `uv pip install` with the options uv documents for them — and refuses anything else the way
 * uv does (exit 2, "unexpected argument"), so a changed command line fails the test instead of
 * passing through. The work is done by the base Python's own venv and pip, and every call is
 * logged (one JSON array per line) for the test to read.
 */
import fs from 'node:fs';
import path from 'node:path';

const SCRIPT = `#!/usr/bin/env python3
import json, os, subprocess, sys
args = sys.argv[1:]
# The log lies beside the script's folder: no environment variable has to reach it.
with open(os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "uv-calls.jsonl"), "a") as log:
    log.write(json.dumps(args) + "\\n")
def refuse(arg):
    sys.stderr.write("error: unexpected argument '%s' found\\n" % arg)
    sys.exit(2)
def take(rest, flags, valued):
    opts, positional = {}, []
    while rest:
        a = rest.pop(0)
        if a in flags: opts[a] = True
        elif a in valued:
            if not rest: refuse(a)
            opts.setdefault(a, []).append(rest.pop(0))
        elif a.startswith("-"): refuse(a)
        else: positional.append(a)
    return opts, positional
if args[:1] == ["venv"]:
    opts, positional = take(args[1:], {"--seed", "--system-site-packages"}, {"--python", "--index-url", "--default-index"})
    if len(positional) != 1 or "--python" not in opts: refuse(" ".join(positional) or "venv")
    venv = [opts["--python"][0], "-m", "venv"] + (["--system-site-packages"] if "--system-site-packages" in opts else [])
    # --seed puts pip into the environment, as venv's ensurepip does; without it there is none.
    if "--seed" not in opts: venv.append("--without-pip")
    sys.exit(subprocess.call(venv + [positional[0]]))
if args[:2] == ["pip", "install"]:
    opts, positional = take(args[2:], set(), {"--python", "-r", "-c", "--index-url", "--default-index", "--extra-index-url"})
    if "--python" not in opts: refuse("--python is required here")
    pip = [opts["--python"][0], "-m", "pip", "install", "--disable-pip-version-check", "--no-input"]
    for flag in ("-r", "-c", "--index-url", "--extra-index-url"):
        for value in opts.get(flag, []): pip += [flag, value]
    for value in opts.get("--default-index", []): pip += ["--index-url", value]
    sys.exit(subprocess.call(pip + positional))
refuse(args[0] if args else "")
`;

export interface FakeUv {
  /** The folder to put first on PATH. */
  binDir: string;
  /** Every call's arguments, in order. */
  calls(): string[][];
}

export function installFakeUv(root: string): FakeUv {
  const binDir = path.join(root, 'uv-bin');
  const log = path.join(root, 'uv-calls.jsonl');
  fs.mkdirSync(binDir, { recursive: true });
  fs.writeFileSync(path.join(binDir, 'uv'), SCRIPT, { mode: 0o755 });
  fs.writeFileSync(log, '');
  return {
    binDir,
    calls: () => fs.readFileSync(log, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as string[]),
  };
}
