/**
 * The one version comparison (Studio's releases, llama.cpp builds, CUDA/ROCm and torch versions,
 * Python packages): dot-, dash- or plus-separated numeric parts compared in order, a missing part
 * counting as 0; a part's text suffix makes a pre-release, which sorts before the plain release
 * (`2.1.0rc1` < `2.1.0`).
 */
export function compareVersions(a: string | number | undefined, b: string | number | undefined): number {
  const parse = (v: string | number | undefined) => String(v ?? '0').split(/[.+-]/).map((part) => /^(\d*)(.*)$/.exec(part)!);
  const pa = parse(a);
  const pb = parse(b);
  for (let i = 0; i < Math.max(pa.length, pb.length); i += 1) {
    const [, na = '', sa = ''] = pa[i] ?? ['', '0', ''];
    const [, nb = '', sb = ''] = pb[i] ?? ['', '0', ''];
    const diff = Number(na || 0) - Number(nb || 0);
    if (diff !== 0) return diff;
    // A pre-release suffix sorts before the plain release.
    if (sa !== sb) return sa === '' ? 1 : sb === '' ? -1 : sa < sb ? -1 : 1;
  }
  return 0;
}
