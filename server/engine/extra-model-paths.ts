/**
 * The engine's `extra_model_paths.yaml`: points every model folder the engine knows at the same
 * named subfolder of Studio's models directory, so downloads land where the engine looks.
 */
import fs from 'node:fs';
import path from 'node:path';

/**
 * Engine model-folder keys. `clip` and `unet` are the engine's legacy names for text_encoders and
 * diffusion_models; listing them too makes older folder layouts (models/clip, models/unet) count.
 */
export const ENGINE_MODEL_FOLDERS = [
  'checkpoints',
  'loras',
  'vae',
  'text_encoders',
  'diffusion_models',
  'clip_vision',
  'embeddings',
  'controlnet',
  'upscale_models',
  'latent_upscale_models',
  'style_models',
  'vae_approx',
  'clip',
  'unet',
  'audio_encoders',
  'model_patches',
  'configs',
  'diffusers',
  'gligen',
  'hypernetworks',
  'photomaker',
] as const;

/**
 * The YAML text: one `studio:` section rooted at `modelsDir`, each key mapped to its subfolder,
 * then one section per extra source (a found install's own `models/`), read but never written to.
 * Written by hand rather than with the YAML library (which Studio then need not load at start):
 * the keys are fixed words and the one free value, the path, is a JSON string, which YAML reads
 * as a double-quoted scalar with the same escapes.
 */
export function extraModelPathsYaml(modelsDir: string, extraDirs: readonly string[] = []): string {
  const section = (name: string, base: string, isDefault: boolean) =>
    [`${name}:`, `  base_path: ${JSON.stringify(base)}`, ...(isDefault ? ['  is_default: true'] : []), ...ENGINE_MODEL_FOLDERS.map((folder) => `  ${folder}: ${folder}`)].join('\n');
  const sections = [section('studio', modelsDir, true), ...extraDirs.map((dir, i) => section(`extra_${i + 1}`, dir, false))];
  return `# Written by Studio at every engine start; edits are overwritten.\n${sections.join('\n')}\n`;
}

/** Write the YAML to `file` atomically (temp file + rename) and create the model folders. */
export function writeExtraModelPaths(file: string, modelsDir: string, extraDirs: readonly string[] = []): void {
  for (const folder of ENGINE_MODEL_FOLDERS) {
    // The legacy aliases would only show users two empty look-alike folders.
    if (folder === 'clip' || folder === 'unet') continue;
    fs.mkdirSync(path.join(modelsDir, folder), { recursive: true });
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(temp, extraModelPathsYaml(modelsDir, extraDirs));
  fs.renameSync(temp, file);
}
