/**
 * Reading input that may never end (stdin, a FIFO, a device such as /dev/zero, another
 * program's output) with a cap: at most `limit` bytes are kept; past it reading stops at once
 * (the stream is cancelled) and the caller is told. Also the words for what a path is, for the
 * messages that refuse one.
 */

/** What a capped read got. */
export interface CappedText {
  /** The text (UTF-8, invalid bytes replaced) of at most `limit` bytes. */
  text: string;
  /** True when the input held more than `limit` bytes (reading stopped there). */
  over: boolean;
}

/** Reads `stream` as text to its end or to `limit` bytes, whichever comes first. */
export async function readCapped(
  stream: ReadableStream<Uint8Array>,
  limit: number,
): Promise<CappedText> {
  const { bytes, over } = await readCappedBytes(stream, limit);
  return { text: new TextDecoder().decode(bytes), over };
}

/** Reads `stream` to its end or to `limit` bytes, whichever comes first. */
export async function readCappedBytes(
  stream: ReadableStream<Uint8Array>,
  limit: number,
): Promise<{ bytes: Uint8Array; over: boolean }> {
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let kept = 0;
  let over = false;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (kept + value.length > limit) {
        chunks.push(value.subarray(0, limit - kept));
        kept = limit;
        over = true;
        break;
      }
      chunks.push(value);
      kept += value.length;
    }
  } finally {
    if (over) await reader.cancel().catch(() => undefined);
    else reader.releaseLock();
  }
  const bytes = new Uint8Array(kept);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return { bytes, over };
}

/** What `info` is, in words: "a folder", "a FIFO", "a character device", ... */
export function kindOf(info: Deno.FileInfo): string {
  if (info.isFile) return "a file";
  if (info.isDirectory) return "a folder";
  if (info.isFifo) return "a FIFO (named pipe)";
  if (info.isCharDevice) return "a character device";
  if (info.isBlockDevice) return "a block device";
  if (info.isSocket) return "a socket";
  if (info.isSymlink) return "a symbolic link";
  return "not a regular file";
}

/** `bytes` as KiB or MiB for messages (`256 KiB`). */
export function sizeText(bytes: number): string {
  return bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0
    ? `${bytes / (1024 * 1024)} MiB`
    : `${Math.round(bytes / 1024)} KiB`;
}
