/**
 * Writes a tiny random-weight llama model in GGUF v3 (2 layers, 64 wide, a 259-token byte-level
 * vocabulary, all F32, ~0.4 MB) that any llama-server loads in a fraction of a second: the runtime
 * smoke test loads it to see where the layers went, so installing a runtime needs no model
 * download. Its answers are gibberish, which is all a load check needs.
 */
import { writeFileAtomic } from '../../fs-durable.js';

const N_EMBD = 64;
const N_LAYER = 2;
const N_HEAD = 4;
const N_FF = 128;
const ALIGN = 32;

/** The model's layer count plus the output layer, as llama.cpp counts offloadable layers. */
export const TINY_MODEL_LAYERS = N_LAYER + 1;

type Scalar = 'u32' | 'i32' | 'f32' | 'str';
/** GGUF's value type codes (an array is 9, followed by its element type). */
const TYPE_CODE: Record<Scalar, number> = { u32: 4, i32: 5, f32: 6, str: 8 };
const ARRAY = 9;

class Writer {
  private parts: Buffer[] = [];
  size = 0;

  push(buf: Buffer): void {
    this.parts.push(buf);
    this.size += buf.length;
  }
  private fixed(bytes: number, write: (b: Buffer) => void): void {
    const b = Buffer.alloc(bytes);
    write(b);
    this.push(b);
  }
  u64(v: number): void {
    this.fixed(8, (b) => b.writeBigUInt64LE(BigInt(v)));
  }
  /** One value, little-endian; a string is its byte length (u64) and its UTF-8 bytes. */
  value(type: Scalar, v: number | string): void {
    if (type === 'str') {
      const b = Buffer.from(String(v), 'utf8');
      this.u64(b.length);
      this.push(b);
    } else if (type === 'f32') this.fixed(4, (b) => b.writeFloatLE(Number(v)));
    else if (type === 'i32') this.fixed(4, (b) => b.writeInt32LE(Number(v)));
    else this.fixed(4, (b) => b.writeUInt32LE(Number(v)));
  }
  pad(): void {
    const extra = (ALIGN - (this.size % ALIGN)) % ALIGN;
    if (extra) this.push(Buffer.alloc(extra));
  }
  buffer(): Buffer {
    return Buffer.concat(this.parts);
  }
}

type Kv = [key: string, type: Scalar, value: number | string] | [key: string, type: 'arr', elem: Scalar, values: Array<string | number>];

function vocabulary(): { tokens: string[]; types: number[] } {
  const tokens = ['<unk>', '<s>', '</s>'];
  const types = [2, 3, 3];
  for (let b = 0; b < 256; b++) {
    tokens.push(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`);
    types.push(6);
  }
  return { tokens, types };
}

/** Deterministic small weights (the file is the same on every machine). */
function weights(count: number, seed: number, fill?: number): Buffer {
  const buf = Buffer.alloc(count * 4);
  let s = seed >>> 0;
  for (let i = 0; i < count; i++) {
    if (fill !== undefined) buf.writeFloatLE(fill, i * 4);
    else {
      s = (s + 0x6d2b79f5) >>> 0;
      let t = Math.imul(s ^ (s >>> 15), 1 | s);
      t ^= t + Math.imul(t ^ (t >>> 7), 61 | t);
      buf.writeFloatLE((((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5) * 0.04, i * 4);
    }
  }
  return buf;
}

/** The model file's bytes. */
export function tinyGguf(): Buffer {
  const { tokens, types } = vocabulary();
  const kvs: Kv[] = [
    ['general.architecture', 'str', 'llama'],
    ['general.name', 'str', 'studio-smoke-test'],
    ['general.file_type', 'u32', 0],
    ['llama.context_length', 'u32', 4096],
    ['llama.embedding_length', 'u32', N_EMBD],
    ['llama.block_count', 'u32', N_LAYER],
    ['llama.feed_forward_length', 'u32', N_FF],
    ['llama.attention.head_count', 'u32', N_HEAD],
    ['llama.attention.head_count_kv', 'u32', N_HEAD],
    ['llama.attention.layer_norm_rms_epsilon', 'f32', 1e-5],
    ['llama.rope.dimension_count', 'u32', N_EMBD / N_HEAD],
    ['llama.vocab_size', 'u32', tokens.length],
    ['tokenizer.ggml.model', 'str', 'llama'],
    ['tokenizer.ggml.tokens', 'arr', 'str', tokens],
    ['tokenizer.ggml.scores', 'arr', 'f32', tokens.map(() => 0)],
    ['tokenizer.ggml.token_type', 'arr', 'i32', types],
    ['tokenizer.ggml.bos_token_id', 'u32', 1],
    ['tokenizer.ggml.eos_token_id', 'u32', 2],
    ['tokenizer.ggml.unknown_token_id', 'u32', 0],
  ];
  const tensors: Array<{ name: string; dims: number[]; data: Buffer }> = [];
  let seed = 7;
  const add = (name: string, dims: number[], fill?: number) => tensors.push({ name, dims, data: weights(dims.reduce((a, b) => a * b, 1), seed++, fill) });
  add('token_embd.weight', [N_EMBD, tokens.length]);
  add('output_norm.weight', [N_EMBD], 1);
  add('output.weight', [N_EMBD, tokens.length]);
  for (let i = 0; i < N_LAYER; i++) {
    add(`blk.${i}.attn_norm.weight`, [N_EMBD], 1);
    for (const n of ['attn_q', 'attn_k', 'attn_v', 'attn_output']) add(`blk.${i}.${n}.weight`, [N_EMBD, N_EMBD]);
    add(`blk.${i}.ffn_norm.weight`, [N_EMBD], 1);
    add(`blk.${i}.ffn_gate.weight`, [N_EMBD, N_FF]);
    add(`blk.${i}.ffn_up.weight`, [N_EMBD, N_FF]);
    add(`blk.${i}.ffn_down.weight`, [N_FF, N_EMBD]);
  }
  const w = new Writer();
  w.value('u32', 0x46554747); // "GGUF"
  w.value('u32', 3);
  w.u64(tensors.length);
  w.u64(kvs.length);
  for (const kv of kvs) {
    w.value('str', kv[0]);
    if (kv[1] === 'arr') {
      const [, , elem, values] = kv;
      w.value('u32', ARRAY);
      w.value('u32', TYPE_CODE[elem]);
      w.u64(values.length);
      for (const v of values) w.value(elem, v);
    } else {
      w.value('u32', TYPE_CODE[kv[1]]);
      w.value(kv[1], kv[2]);
    }
  }
  let offset = 0;
  for (const t of tensors) {
    w.value('str', t.name);
    w.value('u32', t.dims.length);
    for (const d of t.dims) w.u64(d);
    w.value('u32', 0); // F32
    w.u64(offset);
    offset += Math.ceil(t.data.length / ALIGN) * ALIGN;
  }
  w.pad();
  for (const t of tensors) {
    w.push(t.data);
    w.pad();
  }
  return w.buffer();
}

/** Write the model to `file` (temp name, then rename). */
export function writeTinyGguf(file: string): Promise<void> {
  return writeFileAtomic(file, tinyGguf());
}
