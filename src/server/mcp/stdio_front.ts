/**
 * The stdio transport, started before anything else of the server is loaded. A 2026-07-28
 * client probes a stdio server with `server/discover` and, when no answer comes within its bound
 * (Claude Code 2.1.328: 3 s from the process's start), falls back to the 2025-11-25 handshake,
 * without tasks. Loading the engine and the SDK can take longer than that on a busy machine, so
 * this front reads stdin at once and answers a modern `server/discover` itself (discover.ts, the
 * SDK's own answer); every other message waits until the SDK starts the transport, then flows
 * through unchanged, but for a request that names a protocol version other than 2026-07-28
 * in its `_meta`: that one is answered here with the unsupported-version error the spec asks
 * for (the SDK would serve it on the pinned era). It imports no package.
 */
import {
  discoverResult,
  isModernDiscover,
  MODERN_VERSION,
  PROTOCOL_VERSION_KEY,
  SUPPORTED_VERSIONS,
} from "./discover.ts";

/** One JSON-RPC message (the SDK's type, structurally). */
type Message = Record<string, unknown>;

/** The SDK's transport interface, as this front implements it. */
export interface FrontTransport {
  start(): Promise<void>;
  send(message: unknown): Promise<void>;
  close(): Promise<void>;
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: never) => void) | undefined;
}

/** Where the front reads and writes (the process's stdin and stdout by default). */
export interface FrontIo {
  input: ReadableStream<Uint8Array>;
  write(bytes: Uint8Array): Promise<unknown>;
}

/** The stdio transport with its early `server/discover` answer. */
export class StdioFront implements FrontTransport {
  onclose?: (() => void) | undefined;
  onerror?: ((error: Error) => void) | undefined;
  onmessage?: ((message: never) => void) | undefined;
  /** Resolves when the input ended or the front was closed. */
  readonly ended: Promise<void>;
  /**
   * Resolves once the client's first message came (an early `server/discover` is answered by
   * then) or the input ended: loading the rest waits for it a moment, since module loading can
   * keep this reader from running.
   */
  readonly opened: Promise<void>;
  #opened = Promise.withResolvers<void>();
  #version: string;
  #io: FrontIo;
  #started = false;
  #closed = false;
  #queued: Array<() => void> = [];
  #writing: Promise<unknown> = Promise.resolve();
  #reader: ReadableStreamDefaultReader<string>;
  #end = Promise.withResolvers<void>();
  /** Early `server/discover` requests answered here. */
  answeredEarly = 0;

  constructor(version: string, io?: FrontIo) {
    this.#version = version;
    this.#io = io ?? {
      input: Deno.stdin.readable,
      write: async (bytes) => {
        let written = 0;
        while (written < bytes.length) written += await Deno.stdout.write(bytes.subarray(written));
      },
    };
    this.ended = this.#end.promise;
    this.opened = this.#opened.promise;
    this.#reader = this.#io.input.pipeThrough(new TextDecoderStream()).getReader();
    void this.#read();
  }

  async #read(): Promise<void> {
    let buffer = "";
    try {
      while (true) {
        const { value, done } = await this.#reader.read();
        if (done) break;
        buffer += value;
        let newline: number;
        while ((newline = buffer.indexOf("\n")) >= 0) {
          const line = buffer.slice(0, newline).replace(/\r$/, "");
          buffer = buffer.slice(newline + 1);
          if (line.trim() !== "") this.#line(line);
        }
      }
    } catch (error) {
      if (!this.#closed) this.#deliver(() => this.onerror?.(asError(error)));
    }
    this.#opened.resolve();
    this.#deliver(() => void this.close());
  }

  #line(line: string): void {
    this.#opened.resolve();
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error;
      this.#deliver(() => this.onerror?.(new Error(`Not a JSON-RPC message: ${error.message}`)));
      return;
    }
    if (!this.#started && isModernDiscover(message)) {
      // Answered now, before the SDK is loaded; the SDK's answer is the same.
      this.answeredEarly++;
      void this.send({ jsonrpc: "2.0", id: message.id, result: discoverResult(this.#version) });
      return;
    }
    const requested = requestedVersion(message);
    if (requested !== undefined && requested !== MODERN_VERSION) {
      const { id } = message as { id: string | number };
      void this.send({
        jsonrpc: "2.0",
        id,
        error: {
          code: -32022,
          message: "Unsupported protocol version",
          data: { supported: SUPPORTED_VERSIONS, requested },
        },
      });
      return;
    }
    this.#deliver(() => this.onmessage?.(message as never));
  }

  /** Runs `action` now if the SDK started the transport, else once it does. */
  #deliver(action: () => void): void {
    if (this.#started) action();
    else this.#queued.push(action);
  }

  start(): Promise<void> {
    if (this.#started) throw new Error("The stdio transport is already started");
    this.#started = true;
    const queued = this.#queued;
    this.#queued = [];
    for (const action of queued) action();
    return Promise.resolve();
  }

  send(message: unknown): Promise<void> {
    const bytes = new TextEncoder().encode(JSON.stringify(message as Message) + "\n");
    const written = this.#writing.then(() => this.#io.write(bytes));
    this.#writing = written.catch(() => undefined);
    return written.then(() => undefined);
  }

  /** Resolves once everything sent so far was written. */
  flushed(): Promise<void> {
    return this.#writing.then(() => undefined);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.#reader.cancel().catch(() => undefined);
    await this.#writing;
    this.#end.resolve();
    this.onclose?.();
  }
}

/** The protocol version a request names in its `_meta`, if it is a request that names one. */
function requestedVersion(message: unknown): string | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  const m = message as {
    id?: unknown;
    method?: unknown;
    params?: { _meta?: Record<string, unknown> };
  };
  if (typeof m.method !== "string" || (typeof m.id !== "string" && typeof m.id !== "number")) {
    return undefined;
  }
  const version = m.params?._meta?.[PROTOCOL_VERSION_KEY];
  return version === undefined ? undefined : String(version);
}

function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
