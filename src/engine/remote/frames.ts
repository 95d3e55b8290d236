/**
 * The wire between Pitroom and a host's Pitroom (over an SSH channel): one JSON message a line,
 * and a message with `n` bytes is followed by exactly that many raw bytes (a bundle, a changed
 * file). Either side reads with `FrameReader`, which takes no more than it is asked for.
 */

/** One message, with the bytes that came after it (when it announced `n`). */
export interface Frame {
  msg: Record<string, unknown> & { t: string };
  bytes?: Uint8Array;
}

/** The longest message line taken (a job with its prompt fits; more is a broken peer). */
export const MAX_LINE = 64 * 1024 * 1024;

/**
 * Reads frames from a byte stream. Chunks are kept as they came and joined once a frame's bytes
 * are all there (a bundle of a large repository is hundreds of chunks: joining each as it came
 * would copy it that many times).
 */
export class FrameReader {
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #chunks: Uint8Array[] = [];
  #size = 0;
  #done = false;

  constructor(stream: ReadableStream<Uint8Array>) {
    this.#reader = stream.getReader();
  }

  async #fill(): Promise<boolean> {
    if (this.#done) return false;
    const { value, done } = await this.#reader.read();
    if (done || value === undefined) {
      this.#done = true;
      return false;
    }
    if (value.length > 0) {
      this.#chunks.push(value);
      this.#size += value.length;
    }
    return true;
  }

  /** Where the first newline is among the held bytes, from `from` on; -1 for none. */
  #newline(from: number): number {
    let offset = 0;
    for (const chunk of this.#chunks) {
      if (offset + chunk.length > from) {
        const at = chunk.indexOf(0x0a, Math.max(0, from - offset));
        if (at >= 0) return offset + at;
      }
      offset += chunk.length;
    }
    return -1;
  }

  /** Takes the first `n` held bytes out. */
  #take(n: number): Uint8Array {
    const out = new Uint8Array(n);
    let filled = 0;
    while (filled < n) {
      const chunk = this.#chunks[0]!;
      const part = Math.min(chunk.length, n - filled);
      out.set(chunk.subarray(0, part), filled);
      filled += part;
      if (part === chunk.length) this.#chunks.shift();
      else this.#chunks[0] = chunk.subarray(part);
    }
    this.#size -= n;
    return out;
  }

  /** The next frame; null at the stream's end (a frame cut short is an error). */
  async next(): Promise<Frame | null> {
    let searched = 0;
    let newline = this.#newline(0);
    while (newline < 0) {
      if (this.#size > MAX_LINE) throw new Error("a message line is too long");
      searched = this.#size;
      if (!(await this.#fill())) {
        if (this.#size === 0) return null;
        throw new Error("the stream ended inside a message");
      }
      newline = this.#newline(searched);
    }
    const line = new TextDecoder().decode(this.#take(newline + 1).subarray(0, newline));
    const msg = JSON.parse(line);
    if (typeof msg !== "object" || msg === null || typeof msg.t !== "string") {
      throw new Error("a message without a type");
    }
    const n = msg.n;
    if (n === undefined) return { msg };
    if (typeof n !== "number" || !Number.isInteger(n) || n < 0) throw new Error("a bad length");
    while (this.#size < n) {
      if (!(await this.#fill())) throw new Error("the stream ended inside a message's bytes");
    }
    return { msg, bytes: this.#take(n) };
  }

  /** Lets go of the stream. */
  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => undefined);
  }
}

/** Writes frames to a byte stream, one at a time in order. */
export class FrameWriter {
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #chain: Promise<void> = Promise.resolve();
  #encoder = new TextEncoder();

  constructor(stream: WritableStream<Uint8Array>) {
    this.#writer = stream.getWriter();
  }

  /** Queues a message (and its bytes); the promise settles once it is written. */
  send(msg: { t: string; [key: string]: unknown }, bytes?: Uint8Array): Promise<void> {
    const line = JSON.stringify(bytes === undefined ? msg : { ...msg, n: bytes.length }) + "\n";
    const head = this.#encoder.encode(line);
    const write = async () => {
      await this.#writer.write(head);
      if (bytes !== undefined && bytes.length > 0) await this.#writer.write(bytes);
    };
    const next = this.#chain.then(write);
    this.#chain = next.catch(() => undefined);
    return next;
  }

  /** Closes the stream once every queued frame is written. */
  async close(): Promise<void> {
    await this.#chain;
    await this.#writer.close().catch(() => undefined);
  }
}
