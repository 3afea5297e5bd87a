"""Make the smallest checkpoint the engine's loader takes for Stable Diffusion 1.5, with random
weights, using the engine's own model code: `make-sd15-checkpoint.py <out.safetensors>`, run by
the engine's Python in the engine's folder.

What is free and what is fixed (comfy/model_detection.py reads the UNet's shape from the weights;
comfy/supported_models.py's SD15 asks only for model_channels 320, context_dim 768, no linear
projections, no ADM, no temporal layers):
- the UNet: one level (channel_mult [1]), one res block with one cross-attention transformer (the
  context width is read from it), no middle block (transformer_depth_middle -2), no attention on
  the way out: 13.6 M parameters instead of 860 M;
- the text encoder: CLIP ViT-L/14's text model as it is (comfy/sd1_clip_config.json fixes its size);
- the VAE: the SD encoder as it is (its width is fixed) and a decoder of width 32 instead of 128
  (comfy/sd.py reads the decoder's width from decoder.conv_in).
Weights are drawn with a fixed seed (normal, 1/sqrt(fan-in); norms 1, biases 0) and saved in half
precision, in the original checkpoint layout (model.state_dict_for_saving). The file is loaded
back with load_checkpoint_guess_config and must be detected as SD15. Here (2 shared cores): a
348 MB file (CLIP 123.7 M, VAE 37.3 M, UNet 13.6 M parameters), about 11 s of CPU, 35-55 s on the
clock under load, 2.0 GB peak memory."""
import os
import sys
import time

out = sys.argv[1]
sys.path.insert(0, os.getcwd())
sys.argv = [sys.argv[0], "--cpu"]
import comfy.options  # noqa: E402

comfy.options.enable_args_parsing()
import torch  # noqa: E402

import comfy.model_detection  # noqa: E402
import comfy.sd  # noqa: E402
import comfy.utils  # noqa: E402
from comfy.ldm.models.autoencoder import AutoencoderKL  # noqa: E402

started = time.time()
torch.manual_seed(15)


def randomize(module):
    with torch.no_grad():
        for name, p in module.named_parameters():
            if p.ndim <= 1:
                p.copy_(torch.ones_like(p) if name.endswith("weight") else torch.zeros_like(p))
            else:
                p.copy_(torch.randn(p.shape, dtype=torch.float32) * (1.0 / p[0].numel()) ** 0.5)


unet_config = {
    "use_checkpoint": False, "image_size": 32, "use_spatial_transformer": True, "legacy": False, "adm_in_channels": None,
    "in_channels": 4, "out_channels": 4, "model_channels": 320, "num_res_blocks": [1], "channel_mult": [1],
    "transformer_depth": [1], "transformer_depth_output": [0, 0], "transformer_depth_middle": -2,
    "use_linear_in_transformer": False, "context_dim": 768, "use_temporal_resblock": False, "use_temporal_attention": False,
}
model_config = comfy.model_detection.model_config_from_unet_config(unet_config)
assert type(model_config).__name__ == "SD15", model_config
model = model_config.get_model({})
randomize(model)

clip = comfy.sd.CLIP(model_config.clip_target({}), embedding_directory=None)
randomize(clip.cond_stage_model)

encoder = {"double_z": True, "z_channels": 4, "resolution": 256, "in_channels": 3, "out_ch": 3, "ch": 128, "ch_mult": [1, 2, 4, 4], "num_res_blocks": 2, "attn_resolutions": [], "dropout": 0.0}
vae_model = AutoencoderKL(ddconfig=encoder, embed_dim=4, decoder_ddconfig={**encoder, "ch": 32})
randomize(vae_model)
vae = comfy.sd.VAE(sd=vae_model.state_dict())

sd = model.state_dict_for_saving(model.diffusion_model.state_dict(), clip.state_dict_for_saving(), vae.get_sd(), None)
sd = {k: (v.half() if v.is_floating_point() else v).contiguous() for k, v in sd.items()}
tmp = out[: -len(".safetensors")] + ".tmp.safetensors"
comfy.utils.save_torch_file(sd, tmp, metadata={"studio": "random weights for tests (smallest SD15 the engine detects)"})

# The engine's own loader must take it for SD 1.5.
loaded = comfy.sd.load_checkpoint_guess_config(tmp, output_vae=True, output_clip=True)
detected = type(loaded[0].model.model_config).__name__
assert detected == "SD15", detected
assert loaded[1] is not None and loaded[2] is not None
os.replace(tmp, out)
counts = {
    "unet": sum(p.numel() for p in model.diffusion_model.parameters()),
    "clip": sum(p.numel() for p in clip.cond_stage_model.parameters()),
    "vae": sum(p.numel() for p in vae_model.parameters()),
}
print("STUDIO-CHECKPOINT detected=%s bytes=%d seconds=%.1f params=%s" % (detected, os.path.getsize(out), time.time() - started, counts))
