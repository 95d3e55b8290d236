/**
 * Reads a `text/event-stream` answer message by message (event, data parsed as JSON, id), each
 * read bounded in time so a missing message fails the test instead of hanging it.
 */
import type { StreamEventName, StreamMessages } from "../../../src/server/dash/api_types.ts";

/** One message of the stream. */
export type SseMessage = {
  [K in StreamEventName]: { event: K; data: StreamMessages[K]; id: string };
}[StreamEventName];

/** A stream being read. */
export class SseReader {
  #reader: ReadableStreamDefaultReader<string>;
  #buffer = "";
  #queued: SseMessage[] = [];
  /** Every message read so far. */
  readonly seen: SseMessage[] = [];

  constructor(res: Response) {
    if (res.status !== 200 || res.body === null) throw new Error(`stream answered ${res.status}`);
    this.#reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** The next message (fails after `timeoutMs`). */
  async next(timeoutMs = 15_000): Promise<SseMessage> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`no stream message within ${timeoutMs}ms`)),
        timeoutMs,
      );
    });
    try {
      return await Promise.race([this.#next(), late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async #next(): Promise<SseMessage> {
    while (this.#queued.length === 0) {
      const { done, value } = await this.#reader.read();
      if (done) throw new Error("the stream ended");
      this.#buffer += value;
      let end: number;
      while ((end = this.#buffer.indexOf("\n\n")) >= 0) {
        const block = this.#buffer.slice(0, end);
        this.#buffer = this.#buffer.slice(end + 2);
        const m = parseBlock(block);
        if (m !== null) this.#queued.push(m);
      }
    }
    const m = this.#queued.shift()!;
    this.seen.push(m);
    return m;
  }

  /** Reads until a message matches; returns it (the ones before are in `seen`). */
  async until(match: (m: SseMessage) => boolean, what: string): Promise<SseMessage> {
    for (;;) {
      const m = await this.next().catch((error) => {
        throw new Error(`waiting for ${what}: ${error.message}`);
      });
      if (match(m)) return m;
    }
  }

  /** Ends the connection. */
  async close(): Promise<void> {
    await this.#reader.cancel().catch(() => undefined);
  }

  async [Symbol.asyncDispose](): Promise<void> {
    await this.close();
  }
}

function parseBlock(block: string): SseMessage | null {
  let event = "message";
  let id = "";
  const data: string[] = [];
  for (const line of block.split("\n")) {
    if (line.startsWith(":")) continue;
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? "" : line.slice(colon + 1).replace(/^ /, "");
    if (field === "event") event = value;
    else if (field === "data") data.push(value);
    else if (field === "id") id = value;
  }
  if (data.length === 0) return null;
  return { event, data: JSON.parse(data.join("\n")), id } as SseMessage;
}
