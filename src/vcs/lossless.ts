/**
 * File names are bytes; JavaScript strings are UTF-16. vcs/ decodes what git prints losslessly:
 * valid UTF-8 as text, and each byte that is not part of valid UTF-8 as the lone surrogate
 * U+DC80 + (byte - 0x80), which valid text never holds (Python's "surrogateescape"). Encoding
 * turns those back into the same bytes, so a name like `bad\xe9.txt` goes from git's `-z` output
 * to git's stdin unchanged. Such a name cannot be handed to the file system by Deno (its paths
 * are UTF-8 strings): `representable` tells, and vcs/ lets git itself write those paths.
 */

const strict = new TextDecoder("utf-8", { fatal: true });
const encoder = new TextEncoder();

/** Length of the valid UTF-8 sequence at `i`, or 0 when the byte there starts none. */
function sequenceAt(bytes: Uint8Array, i: number): number {
  const b0 = bytes[i]!;
  if (b0 < 0x80) return 1;
  const cont = (k: number) => {
    const b = bytes[i + k];
    return b !== undefined && (b & 0xc0) === 0x80;
  };
  if (b0 >= 0xc2 && b0 <= 0xdf) return cont(1) ? 2 : 0;
  if (b0 >= 0xe0 && b0 <= 0xef) {
    const b1 = bytes[i + 1] ?? 0;
    if (b0 === 0xe0 && b1 < 0xa0) return 0; // overlong
    if (b0 === 0xed && b1 >= 0xa0) return 0; // surrogates
    return cont(1) && cont(2) ? 3 : 0;
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    const b1 = bytes[i + 1] ?? 0;
    if (b0 === 0xf0 && b1 < 0x90) return 0; // overlong
    if (b0 === 0xf4 && b1 >= 0x90) return 0; // beyond U+10FFFF
    return cont(1) && cont(2) && cont(3) ? 4 : 0;
  }
  return 0;
}

/** Decodes bytes to a string, escaping each byte that is not valid UTF-8 (see the module). */
export function decodeLossless(bytes: Uint8Array): string {
  try {
    return strict.decode(bytes);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
  }
  let out = "";
  let start = 0;
  let i = 0;
  while (i < bytes.length) {
    const length = sequenceAt(bytes, i);
    if (length > 0) {
      i += length;
      continue;
    }
    out += strict.decode(bytes.subarray(start, i)) + String.fromCharCode(0xdc00 + bytes[i]!);
    i += 1;
    start = i;
  }
  return out + strict.decode(bytes.subarray(start));
}

const ESCAPED = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/;
const ESCAPED_ALL = /(?<![\uD800-\uDBFF])[\uDC80-\uDCFF]/g;

/** True when `text` holds no escaped byte: the file system can be given it as a path. */
export function representable(text: string): boolean {
  return !ESCAPED.test(text);
}

/** Encodes a string from `decodeLossless` back to the same bytes. */
export function encodeLossless(text: string): Uint8Array {
  if (representable(text)) return encoder.encode(text);
  const parts: Uint8Array[] = [];
  let last = 0;
  for (const match of text.matchAll(ESCAPED_ALL)) {
    parts.push(encoder.encode(text.slice(last, match.index)));
    parts.push(Uint8Array.of(match[0].charCodeAt(0) - 0xdc00));
    last = match.index + 1;
  }
  parts.push(encoder.encode(text.slice(last)));
  const out = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}
