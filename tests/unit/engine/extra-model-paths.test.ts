import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ENGINE_MODEL_FOLDERS, extraModelPathsYaml, writeExtraModelPaths } from '../../../server/engine/extra-model-paths.js';

let tmp: string;
beforeEach(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'studio-'));
});
afterEach(() => {
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('extra_model_paths.yaml', () => {
  it('maps every model folder key to the same-named subfolder of the models directory', () => {
    const modelsDir = path.join(tmp, 'my models: "quoted"');
    const parsed = YAML.parse(extraModelPathsYaml(modelsDir)) as { studio: Record<string, unknown> };
    expect(Object.keys(parsed)).toEqual(['studio']);
    expect(parsed.studio.base_path).toBe(modelsDir);
    expect(parsed.studio.is_default).toBe(true);
    for (const key of ['checkpoints', 'loras', 'vae', 'text_encoders', 'diffusion_models', 'clip_vision', 'embeddings',
      'controlnet', 'upscale_models', 'latent_upscale_models', 'style_models', 'vae_approx', 'clip', 'unet',
      'audio_encoders', 'model_patches']) {
      expect(parsed.studio[key]).toBe(key);
    }
    expect(Object.keys(parsed.studio)).toHaveLength(ENGINE_MODEL_FOLDERS.length + 2);
  });

  it('keeps a base path with backslashes, a # and non-ASCII letters exactly', () => {
    for (const modelsDir of ['C:\\Users\\Zoë\\Studio models #2', '/srv/mod: "x" \'y\' \t end ', 'D:\\\\share\\\\models']) {
      const parsed = YAML.parse(extraModelPathsYaml(modelsDir)) as { studio: Record<string, unknown> };
      expect(parsed.studio.base_path).toBe(modelsDir);
    }
  });

  it('writes the file atomically, replacing an old one, and creates the model folders', () => {
    const file = path.join(tmp, 'engine', 'extra_model_paths.yaml');
    const modelsDir = path.join(tmp, 'models');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'stale: true\n');
    writeExtraModelPaths(file, modelsDir);
    expect(fs.readFileSync(file, 'utf8')).toBe(extraModelPathsYaml(modelsDir));
    expect(fs.readdirSync(path.dirname(file))).toEqual(['extra_model_paths.yaml']);
    expect(fs.statSync(path.join(modelsDir, 'checkpoints')).isDirectory()).toBe(true);
    expect(fs.statSync(path.join(modelsDir, 'diffusion_models')).isDirectory()).toBe(true);
    expect(fs.existsSync(path.join(modelsDir, 'unet'))).toBe(false);
  });
});
