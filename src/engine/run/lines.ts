/**
 * The lines of a process's output, each with when it was read and a moment the process certainly
 * wrote it after (`LineTime`). When a line was read is only an upper bound: a busy host reads a
 * pipe late and finds several lines at once (a call's announcement with its result, after the call
 * wrote its file). The lower bound comes from the reads themselves: a read that returns less than
 * it could take left the pipe empty, so every byte read later was written after that read ran,
 * and the read ran after it was asked for. A line's bound is therefore the moment the last such
 * read before the line's first byte was asked for (the process's start, before any). The moment
 * the read was asked for is used, not when its bytes reached JavaScript: between the kernel's read
 * and this code running, a busy event loop can wait any time, and the process goes on writing.
 * Nothing here reads ahead (a stream pulls only when asked), which the bound relies on.
 */
import type { Clock } from "../../sys/mod.ts";
import type { LineTime } from "../../workers/types.ts";

/** Bytes one read may take; a read that fills them may have left more in the pipe. */
const READ_BYTES = 64 * 1024;
const NEWLINE = 0x0a;

/** One read: its bytes, and whether it took all the stream held then. */
interface Chunk {
  bytes: Uint8Array;
  drained: boolean;
}

/** Reads `stream` chunk by chunk, asking for each only when the last one was handled. */
function chunks(stream: ReadableStream<Uint8Array>): () => Promise<Chunk | null> {
  let byob: ReadableStreamBYOBReader | null = null;
  try {
    byob = stream.getReader({ mode: "byob" });
  } catch (error) {
    // Not a byte stream (a test's): every chunk may have left more behind.
    if (!(error instanceof TypeError)) throw error;
  }
  if (byob !== null) {
    const reader = byob;
    let buffer = new ArrayBuffer(READ_BYTES);
    return async () => {
      const { value, done } = await reader.read(new Uint8Array(buffer));
      if (done || value === undefined) return null;
      // The bytes are handled before the next read, which may then reuse their buffer.
      buffer = value.buffer as ArrayBuffer;
      return { bytes: value, drained: value.byteLength < READ_BYTES };
    };
  }
  const reader = stream.getReader();
  return async () => {
    const { value, done } = await reader.read();
    return done ? null : { bytes: value, drained: false };
  };
}

/** Hands each non-empty line of `stream` (without its newline) to `onLine` with its `LineTime`. */
export async function readLines(
  stream: ReadableStream<Uint8Array> | null,
  onLine: (line: string, at: LineTime) => void,
  options: { clock: Pick<Clock, "now">; start: number },
): Promise<void> {
  if (stream === null) return;
  const { clock, start } = options;
  const next = chunks(stream);
  const decoder = new TextDecoder();
  let buffer = "";
  /** Every byte read from now on was written after this. */
  let bound = start;
  /** The bound of the line at the head of `buffer` (and of bytes the decoder holds). */
  let since = start;
  let open = false;
  let time = start;
  for (;;) {
    const asked = clock.now();
    const chunk = await next();
    if (chunk === null) break;
    time = clock.now();
    if (!open) since = bound;
    buffer += decoder.decode(chunk.bytes, { stream: true });
    let newline = buffer.indexOf("\n");
    while (newline >= 0) {
      const line = buffer.slice(0, newline).replace(/\r$/, "");
      buffer = buffer.slice(newline + 1);
      if (line.length > 0) onLine(line, { time, since, start });
      // The next line begins in this chunk.
      since = bound;
      newline = buffer.indexOf("\n");
    }
    if (chunk.bytes.length > 0) open = chunk.bytes.at(-1) !== NEWLINE;
    if (chunk.drained) bound = asked;
  }
  buffer += decoder.decode();
  if (buffer.trim().length > 0) onLine(buffer.replace(/\r$/, ""), { time, since, start });
}
