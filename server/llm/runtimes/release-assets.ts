/**
 * What a llama.cpp release asset is, read from its name. The official releases name their
 * archives `llama-<tag>-bin-<os>[-<backend>[-<version>]]-<arch>.<tar.gz|zip>` (the Windows CUDA
 * builds also publish a `cudart-llama-bin-win-cuda-<version>-x64.zip` with the CUDA runtime DLLs
 * to unpack beside them). Anything else (the UI bundle, the iOS framework, Android, OpenVINO, SYCL,
 * OpenCL) is not a build Studio runs and is left out. Pure, so it is unit-tested.
 */

/** How a build talks to the hardware. */
export type RuntimeBackend = 'cuda' | 'vulkan' | 'rocm' | 'metal' | 'cpu';
export type RuntimeOs = 'linux' | 'windows' | 'macos';

export interface ReleaseAsset {
  name: string;
  size: number;
  url: string;
  /** `sha256:<hex>` as the release API publishes it, or null for old assets without one. */
  digest: string | null;
}

export interface RuntimeBuild {
  /** The archive to install. */
  asset: ReleaseAsset;
  /** A second archive unpacked into the same folder (the CUDA runtime DLLs on Windows). */
  companion: ReleaseAsset | null;
  os: RuntimeOs;
  arch: 'x64' | 'arm64';
  backend: RuntimeBackend;
  /** The CUDA or ROCm version the build was made with ("12.4"), else null. */
  backendVersion: string | null;
  /** What Studio calls the variant: `cuda-12.4`, `vulkan`, `rocm-7.2`, `metal`, `cpu`. */
  variant: string;
}

const BUILD_NAME = /^llama-(?<tag>[A-Za-z0-9._-]+?)-bin-(?<os>ubuntu|win|macos)-(?<rest>.+)\.(?:tar\.gz|zip)$/;

/** The build an asset name describes, or null when it is not one Studio runs. */
export function parseBuildName(name: string): Omit<RuntimeBuild, 'asset' | 'companion'> | null {
  const m = BUILD_NAME.exec(name);
  if (!m?.groups) return null;
  const os: RuntimeOs = m.groups.os === 'ubuntu' ? 'linux' : m.groups.os === 'win' ? 'windows' : 'macos';
  const parts = (m.groups.rest ?? '').split('-');
  const arch = parts.pop();
  if (arch !== 'x64' && arch !== 'arm64') return null;
  const [kind, version, ...extra] = parts;
  if (os === 'macos') {
    if (parts.length > 0) return null;
    // The Apple Silicon build has Metal; the Intel one is built without it.
    return arch === 'arm64' ? { os, arch, backend: 'metal', backendVersion: null, variant: 'metal' } : { os, arch, backend: 'cpu', backendVersion: null, variant: 'cpu' };
  }
  if (parts.length === 0 || (parts.length === 1 && kind === 'cpu')) return { os, arch, backend: 'cpu', backendVersion: null, variant: 'cpu' };
  if (kind === 'vulkan' && parts.length === 1) return { os, arch, backend: 'vulkan', backendVersion: null, variant: 'vulkan' };
  if ((kind === 'cuda' || kind === 'rocm') && version && /^\d+\.\d+$/.test(version) && extra.length === 0) return { os, arch, backend: kind, backendVersion: version, variant: `${kind}-${version}` };
  // Windows publishes its AMD build as HIP ("hip-radeon"), without a ROCm version in the name.
  if (kind === 'hip') return { os, arch, backend: 'rocm', backendVersion: null, variant: 'hip' };
  return null;
}

/** The builds of one release's assets (companions attached to the build they belong to). */
export function buildsOf(assets: readonly ReleaseAsset[]): RuntimeBuild[] {
  return assets.flatMap((asset) => {
    const parsed = parseBuildName(asset.name);
    if (!parsed) return [];
    const companion = parsed.backend === 'cuda' && parsed.os === 'windows'
      ? (assets.find((a) => a.name === `cudart-llama-bin-win-cuda-${parsed.backendVersion}-${parsed.arch}.zip`) ?? null)
      : null;
    return [{ ...parsed, asset, companion }];
  });
}

/** The sha256 hex of a release digest (`sha256:…`), or null when the release published none. */
export function sha256Of(digest: string | null): string | null {
  const m = digest ? /^sha256:([0-9a-f]{64})$/i.exec(digest) : null;
  return m ? m[1]!.toLowerCase() : null;
}
