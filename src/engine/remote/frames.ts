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

/** Reads frames from a byte stream. */
export class FrameReader {
  #reader: ReadableStreamDefaultReader<Uint8Array>;
  #buffer = new Uint8Array(0);
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
    const joined = new Uint8Array(this.#buffer.length + value.length);
    joined.set(this.#buffer);
    joined.set(value, this.#buffer.length);
    this.#buffer = joined;
    return true;
  }

  /** The next frame; null at the stream's end (a frame cut short is an error). */
  async next(): Promise<Frame | null> {
    let newline = this.#buffer.indexOf(0x0a);
    while (newline < 0) {
      if (this.#buffer.length > MAX_LINE) throw new Error("a message line is too long");
      if (!(await this.#fill())) {
        if (this.#buffer.length === 0) return null;
        throw new Error("the stream ended inside a message");
      }
      newline = this.#buffer.indexOf(0x0a);
    }
    const line = new TextDecoder().decode(this.#buffer.subarray(0, newline));
    this.#buffer = this.#buffer.slice(newline + 1);
    const msg = JSON.parse(line);
    if (typeof msg !== "object" || msg === null || typeof msg.t !== "string") {
      throw new Error("a message without a type");
    }
    const n = msg.n;
    if (n === undefined) return { msg };
    if (typeof n !== "number" || !Number.isInteger(n) || n < 0) throw new Error("a bad length");
    while (this.#buffer.length < n) {
      if (!(await this.#fill())) throw new Error("the stream ended inside a message's bytes");
    }
    const bytes = this.#buffer.slice(0, n);
    this.#buffer = this.#buffer.slice(n);
    return { msg, bytes };
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
