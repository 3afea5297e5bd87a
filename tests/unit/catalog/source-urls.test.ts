import { describe, expect, it } from 'vitest';
import type { CatalogEntry } from '../../../server/contracts/catalog.contract.js';
import { SourceUrlError, resolveSourceUrl } from '../../../server/catalog/source-urls.js';

const config = {
  modelhubBaseUrl: 'https://hub.example/',
  repohostBaseUrl: 'https://repo.example',
  modelhubApiKey: 'hub-key',
  hubToken: 'hf_token',
};

const base = { name: 'x', dest: 'loras', size_gb: 1, tags: [] };

describe('resolveSourceUrl', () => {
  it('downloads model hub entries by version id with the API key as a bearer token', () => {
    const entry: CatalogEntry = { ...base, file: 'style.safetensors', source: 'modelhub', modelhub_version_id: '60938' };
    expect(resolveSourceUrl(entry, config)).toEqual({
      url: 'https://hub.example/api/download/models/60938',
      headers: { Authorization: 'Bearer hub-key' },
      source: 'modelhub',
      tokenName: 'MODELHUB_API_KEY',
    });
  });

  it('names the version file with fileId when the entry pins one', () => {
    const entry: CatalogEntry = { ...base, file: 'fp16.safetensors', source: 'modelhub', modelhub_version_id: '60938', modelhub_file_id: '4521' };
    expect(resolveSourceUrl(entry, config).url).toBe('https://hub.example/api/download/models/60938?fileId=4521');
  });

  it('builds repository host URLs from repo, repo_path or file, with HUB_TOKEN', () => {
    const atRoot: CatalogEntry = { ...base, file: 'sd_xl_base_1.0.safetensors', source: 'repohost', hosted_repo: 'stabilityai/stable-diffusion-xl-base-1.0' };
    expect(resolveSourceUrl(atRoot, config)).toMatchObject({
      url: 'https://repo.example/stabilityai/stable-diffusion-xl-base-1.0/resolve/main/sd_xl_base_1.0.safetensors',
      headers: { Authorization: 'Bearer hf_token' },
      tokenName: 'HUB_TOKEN',
    });
    const nested: CatalogEntry = {
      ...atRoot,
      file: 'clip_vision_h.safetensors',
      hosted_repo: 'Comfy-Org/Wan_2.1_ComfyUI_repackaged',
      repo_path: 'split_files/clip vision/clip_vision_h#1.safetensors',
    };
    expect(resolveSourceUrl(nested, config).url).toBe(
      'https://repo.example/Comfy-Org/Wan_2.1_ComfyUI_repackaged/resolve/main/split_files/clip%20vision/clip_vision_h%231.safetensors',
    );
  });

  it('sends no Authorization header when no token is configured', () => {
    const entry: CatalogEntry = { ...base, file: 'a.pth', source: 'repohost', hosted_repo: 'a/b' };
    expect(resolveSourceUrl(entry, { ...config, hubToken: null }).headers).toEqual({});
  });

  it('refuses entries that do not say where the file comes from', () => {
    expect(() => resolveSourceUrl({ ...base, file: 'a.pth', source: 'modelhub' }, config)).toThrow(SourceUrlError);
    expect(() => resolveSourceUrl({ ...base, file: 'a.pth', source: 'repohost' }, config)).toThrow(SourceUrlError);
  });
});
