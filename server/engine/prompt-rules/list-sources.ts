/**
 * Which live list fills a combo input of the engine's loaders: a model folder (by the engine's own
 * folder names) or the input folder's images or videos. The stand-in fills its combos from it, and
 * the allow-lists of people (issue 43) read from it which folder a model value lives in.
 */

/** Where a combo's choices come from. */
export type ListSource = { models: string } | { input: 'image' | 'video' };

/** Combos named by input alone (every class that has them lists that folder). */
const BY_INPUT: Record<string, string> = {
  ckpt_name: 'checkpoints',
  lora_name: 'loras',
  vae_name: 'vae',
  unet_name: 'diffusion_models',
  control_net_name: 'controlnet',
  style_model_name: 'style_models',
  gligen_name: 'gligen',
  hypernetwork_name: 'hypernetworks',
  photomaker_model_name: 'photomaker',
  audio_encoder_name: 'audio_encoders',
  clip_name1: 'text_encoders',
  clip_name2: 'text_encoders',
  clip_name3: 'text_encoders',
  clip_name4: 'text_encoders',
};

/** Combos whose folder depends on the class (`clip_name` and `model_name` mean different folders). */
const BY_CLASS: Record<string, Record<string, ListSource>> = {
  CLIPLoader: { clip_name: { models: 'text_encoders' } },
  CLIPVisionLoader: { clip_name: { models: 'clip_vision' } },
  UpscaleModelLoader: { model_name: { models: 'upscale_models' } },
  LatentUpscaleModelLoader: { model_name: { models: 'latent_upscale_models' } },
  ModelPatchLoader: { name: { models: 'model_patches' } },
  LTXAVTextEncoderLoader: { text_encoder: { models: 'text_encoders' } },
  LoadImage: { image: { input: 'image' } },
  LoadImageMask: { image: { input: 'image' } },
  LoadVideo: { file: { input: 'video' } },
  VHS_LoadVideo: { video: { input: 'video' } },
};

/** Which live list (if any) fills `classType.input`. */
export function listSourceOf(classType: string, input: string): ListSource | null {
  const byClass = BY_CLASS[classType]?.[input];
  if (byClass) return byClass;
  const folder = BY_INPUT[input];
  return folder ? { models: folder } : null;
}
