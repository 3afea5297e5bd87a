/** The engine's default text-to-image graph (API format) and an image-to-image one, as clients send them. */
/** A node as both the engine and the libraries type it (the SDK wants a title on each). */
type Graph = Record<string, { class_type: string; inputs: Record<string, unknown>; _meta: { title: string } }>;

const titled = (graph: Record<string, { class_type: string; inputs: Record<string, unknown> }>): Graph =>
  Object.fromEntries(Object.entries(graph).map(([id, node]) => [id, { ...node, _meta: { title: node.class_type } }]));

export const T2I: Graph = titled({
  '3': { class_type: 'KSampler', inputs: { seed: 1, steps: 4, cfg: 7, sampler_name: 'euler', scheduler: 'normal', denoise: 1, model: ['4', 0], positive: ['6', 0], negative: ['7', 0], latent_image: ['5', 0] } },
  '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sd_xl_base_1.0.safetensors' } },
  '5': { class_type: 'EmptyLatentImage', inputs: { width: 512, height: 512, batch_size: 1 } },
  '6': { class_type: 'CLIPTextEncode', inputs: { text: 'a cat', clip: ['4', 1] } },
  '7': { class_type: 'CLIPTextEncode', inputs: { text: 'blurry', clip: ['4', 1] } },
  '8': { class_type: 'VAEDecode', inputs: { samples: ['3', 0], vae: ['4', 2] } },
  '9': { class_type: 'SaveImage', inputs: { filename_prefix: 'ComfyUI', images: ['8', 0] } },
});

export const I2I: Graph = titled({
  ...T2I,
  '3': { class_type: 'KSampler', inputs: { ...T2I['3']!.inputs, denoise: 0.6, latent_image: ['11', 0] } },
  '10': { class_type: 'LoadImage', inputs: { image: 'photo.png' } },
  '11': { class_type: 'VAEEncode', inputs: { pixels: ['10', 0], vae: ['4', 2] } },
});
