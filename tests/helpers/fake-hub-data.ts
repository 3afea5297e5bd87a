/**
 * Model hub records shaped like the reference's examples (§3.2 version records, §3.5 image
 * items): one version of every hub type, a generation-only (restricted) one, a Flux checkpoint,
 * images with and without `meta`, a video. `seedHub` puts them into a fake hub.
 */
import type { FakeHub } from './fake-hub-server.js';

const SHA = (c: string) => c.repeat(64).toUpperCase();

interface VersionSpec {
  id: number;
  modelId: number;
  model: string;
  version: string;
  type: string;
  baseModel: string;
  file: string;
  fp?: string;
  sha?: string;
  usageControl?: string;
  trainedWords?: string[];
}

/** A version record as `GET /api/v1/model-versions/{id}` answers it. */
export function versionRecord(v: VersionSpec): Record<string, unknown> {
  return {
    id: v.id,
    modelId: v.modelId,
    name: v.version,
    baseModel: v.baseModel,
    baseModelType: 'Standard',
    air: `urn:air:sdxl:${v.type.toLowerCase()}:civitai:${v.modelId}@${v.id}`,
    status: 'Published',
    availability: 'Public',
    usageControl: v.usageControl ?? 'Download',
    nsfwLevel: 1,
    createdAt: '2025-06-01T10:00:00.000Z',
    updatedAt: '2025-06-02T10:00:00.000Z',
    trainedWords: v.trainedWords ?? [],
    stats: { downloadCount: 10, thumbsUpCount: 2 },
    model: { name: v.model, type: v.type, nsfw: false, poi: false },
    files: [
      {
        id: v.id * 10,
        name: v.file,
        type: 'Model',
        sizeKB: 2_048_000,
        metadata: { format: 'SafeTensor', size: 'pruned', fp: v.fp ?? 'fp16' },
        pickleScanResult: 'Success',
        virusScanResult: 'Success',
        hashes: { AutoV2: (v.sha ?? SHA('a')).slice(0, 10), SHA256: v.sha ?? SHA('a') },
        downloadUrl: `https://civitai.com/api/download/models/${v.id}`,
        primary: true,
      },
    ],
    images: [],
    downloadUrl: `https://civitai.com/api/download/models/${v.id}`,
  };
}

/** Versions of every hub type the catalog-add table knows, plus special cases. */
export const HUB_VERSIONS: VersionSpec[] = [
  { id: 101, modelId: 11, model: 'Juggernaut XL', version: 'v9', type: 'Checkpoint', baseModel: 'SDXL 1.0', file: 'juggernautXL_v9.safetensors', sha: SHA('1') },
  { id: 102, modelId: 12, model: 'Detail Tweaker', version: 'v1.0', type: 'LORA', baseModel: 'SD 1.5', file: 'add_detail.safetensors', sha: SHA('2'), trainedWords: ['detailed'] },
  { id: 103, modelId: 13, model: 'SDXL VAE', version: 'fix', type: 'VAE', baseModel: 'SDXL 1.0', file: 'sdxl_vae.safetensors', fp: 'fp32', sha: SHA('3') },
  { id: 104, modelId: 14, model: 'EasyNegative', version: 'v1', type: 'TextualInversion', baseModel: 'SD 1.5', file: 'easynegative.safetensors', sha: SHA('4') },
  { id: 105, modelId: 15, model: 'Canny', version: 'v1.1', type: 'Controlnet', baseModel: 'SD 1.5', file: 'control_canny.safetensors', sha: SHA('5') },
  { id: 106, modelId: 16, model: 'UltraSharp', version: '4x', type: 'Upscaler', baseModel: 'Other', file: '4x-UltraSharp.pth', sha: SHA('6') },
  { id: 107, modelId: 17, model: 'Flux Dev', version: 'fp8', type: 'Checkpoint', baseModel: 'Flux.1 D', file: 'flux1-dev-fp8.safetensors', fp: 'fp8', sha: SHA('7') },
  { id: 108, modelId: 18, model: 'Gen Only', version: 'v1', type: 'LORA', baseModel: 'SDXL 1.0', file: 'gen_only.safetensors', usageControl: 'Generation' },
  { id: 109, modelId: 19, model: 'Wan Motion', version: 'v2', type: 'LORA', baseModel: 'Wan Video 14B t2v', file: 'wan_motion.safetensors', sha: SHA('9') },
  { id: 110, modelId: 20, model: 'Pony Style', version: 'v3', type: 'LORA', baseModel: 'Pony', file: 'pony_style.safetensors', sha: SHA('b') },
  { id: 111, modelId: 21, model: 'Pose Pack', version: 'v1', type: 'Poses', baseModel: 'SD 1.5', file: 'poses.zip' },
];

/** An image item as `/images?withMeta=true` answers it. */
export function imageItem(id: number, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id,
    url: `MEDIA/${id}.jpeg`,
    hash: 'UCF5?xYk^6#M@-5c,1J5@[or[Q6.',
    width: 64,
    height: 48,
    type: 'image',
    nsfw: false,
    nsfwLevel: 'None',
    browsingLevel: 1,
    createdAt: `2025-07-${String(10 + (id % 15)).padStart(2, '0')}T12:00:00.000Z`,
    postId: 9000 + id,
    username: 'someone',
    baseModel: 'SDXL 1.0',
    modelVersionIds: [101],
    stats: { cryCount: 0, laughCount: 0, likeCount: 3, dislikeCount: 0, heartCount: 1, commentCount: 0 },
    meta: null,
    ...over,
  };
}

/** The image the lookup tests use: LoRA tags, an embedding, both resource styles. */
export const RICH_IMAGE = imageItem(5001, {
  modelVersionIds: [101, 102],
  tags: [7, 8],
  meta: {
    prompt: 'masterpiece, <lora:add_detail:0.6>, a red fox in snow,  <lora:unknown_style:0.8> , cinematic',
    negativePrompt: 'embedding:easynegative, blurry',
    seed: 12345,
    steps: 28,
    sampler: 'DPM++ 2M Karras',
    cfgScale: 6.5,
    Size: '832x1216',
    'Model hash': '1111111111',
    resources: [{ name: 'juggernautXL_v9', type: 'model', hash: '1111111111' }],
    civitaiResources: [
      { type: 'checkpoint', modelVersionId: 101, modelVersionName: 'v9' },
      { type: 'lora', modelVersionId: 102, weight: 0.6 },
      { type: 'lora', modelVersionId: 999 },
    ],
  },
});

/** Put every version, model and image above into `hub`. */
export function seedHub(hub: FakeHub): void {
  for (const v of HUB_VERSIONS) {
    hub.versions.set(String(v.id), versionRecord(v));
    hub.models.set(String(v.modelId), { id: v.modelId, name: v.model, type: v.type, tags: ['style'], modelVersions: [{ id: v.id, name: v.version, images: [] }] });
  }
  hub.versions.set('999', versionRecord({ id: 999, modelId: 99, model: 'Film Grain', version: 'v1', type: 'LORA', baseModel: 'SDXL 1.0', file: 'grain.safetensors' }));
  hub.images.set(5001, RICH_IMAGE);
  hub.images.set(5002, imageItem(5002, { meta: null }));
  hub.images.set(
    5003,
    imageItem(5003, {
      type: 'video',
      url: 'MEDIA/5003.mp4',
      meta: { prompt: 'a wave <lora:wan_motion:1.0>', workflow: 'img2vid', seed: 7, steps: 20 },
    }),
  );
  hub.images.set(5004, imageItem(5004, { meta: { prompt: 'a castle', 'Denoising strength': 0.45, seed: 1 } }));
}
