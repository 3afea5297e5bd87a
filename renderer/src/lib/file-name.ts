/**
 * Where a long file name may wrap: model files are one "word" of 40–60 characters
 * (`wan2.1_i2v_480p_14B_fp8_e4m3fn.safetensors`), and breaking them at any letter makes them
 * unreadable. They break after `_`, `-` and `/`, and before a dot that is not inside a number
 * (`wan2.1` stays whole, `.safetensors` starts a line).
 */

/** The name cut into pieces that may each start a new line; joined they give the name back. */
export function fileNameSegments(name: string): string[] {
  const segments: string[] = [];
  let start = 0;
  for (let i = 1; i < name.length; i++) {
    const prev = name[i - 1]!;
    const ch = name[i]!;
    const afterSeparator = prev === '_' || prev === '-' || prev === '/';
    const beforeDot = ch === '.' && !(/\d/.test(prev) && /\d/.test(name[i + 1] ?? ''));
    if (afterSeparator || beforeDot) {
      segments.push(name.slice(start, i));
      start = i;
    }
  }
  if (start < name.length) segments.push(name.slice(start));
  return segments;
}
