/**
 * An A1111 infotext parser written from the format's public description (the web UI's
 * `parse_generation_parameters`): the lines before the last are the prompt, up to a line
 * starting `Negative prompt:`; the last line is `Key: value` pairs matched by
 * `\s*(\w[\w \-/]+):\s*("(?:\\.|[^\\"])+"|[^,]*)(?:,|$)` (a quoted value is a JSON string), and
 * when it holds fewer than three pairs it is prompt text too. `Size` splits into width and height.
 * The hub's `Civitai resources` JSON list, which it writes unquoted at the end, is cut off first.
 */
export interface Infotext {
  prompt: string;
  negative: string;
  fields: Record<string, string>;
  width?: number;
  height?: number;
  loraHashes: Record<string, string>;
  resources?: unknown;
}

const RE_PARAM = /\s*(\w[\w \-/]+):\s*("(?:\\.|[^\\"])+"|[^,]*)(?:,|$)/g;

export function parseInfotext(text: string): Infotext {
  const lines = text.trim().split('\n');
  let last = lines.pop() ?? '';
  let resources: unknown;
  const cut = last.indexOf('Civitai resources: [');
  if (cut !== -1) {
    resources = JSON.parse(last.slice(cut + 'Civitai resources: '.length));
    last = last.slice(0, cut).replace(/,\s*$/, '');
  }
  if ([...last.matchAll(RE_PARAM)].length < 3 && resources === undefined) {
    lines.push(last);
    last = '';
  }
  let prompt = '';
  let negative = '';
  let inNegative = false;
  for (let line of lines) {
    line = line.trim();
    if (line.startsWith('Negative prompt:')) {
      inNegative = true;
      line = line.slice(16).trim();
    }
    if (inNegative) negative += (negative === '' ? '' : '\n') + line;
    else prompt += (prompt === '' ? '' : '\n') + line;
  }
  const fields: Record<string, string> = {};
  for (const [, key, raw] of last.matchAll(RE_PARAM)) {
    const value = raw!.startsWith('"') && raw!.endsWith('"') ? (JSON.parse(raw!) as string) : raw!;
    fields[key!.trim()] = value.trim();
  }
  const out: Infotext = { prompt, negative, fields, loraHashes: {}, resources };
  const size = /^(\d+)x(\d+)$/.exec(fields.Size ?? '');
  if (size) {
    out.width = Number(size[1]);
    out.height = Number(size[2]);
  }
  for (const pair of (fields['Lora hashes'] ?? '').split(',').map((p) => p.trim()).filter(Boolean)) {
    const [name, hash] = pair.split(':').map((p) => p.trim());
    if (name && hash) out.loraHashes[name] = hash;
  }
  return out;
}
