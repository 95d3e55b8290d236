/**
 * A client transport over a child process's stdin and stdout (newline-delimited JSON-RPC, the
 * stdio transport's framing) for the SDK's `Client`. The SDK's own `StdioClientTransport` leaves
 * a 2 s timer behind on close, which Deno's op sanitizer rightly reports; this one ends when the
 * child does. (The MCP Inspector test drives the SDK's stdio client under Node.)
 */
import type { JSONRPCMessage, Transport } from "./_sdk.ts";

/** `argv` started with piped stdio, spoken to as an MCP server. */
export class ChildTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  #options: Deno.CommandOptions;
  #argv: string[];
  #child: Deno.ChildProcess | undefined;
  #writer: WritableStreamDefaultWriter<Uint8Array> | undefined;
  #reading: Promise<void> | undefined;
  #stderr = "";
  #closed = false;

  constructor(argv: string[], options: Deno.CommandOptions) {
    this.#argv = argv;
    this.#options = options;
  }

  /** What the server wrote on stderr so far. */
  get stderr(): string {
    return this.#stderr;
  }

  /** The server's process id. */
  get pid(): number {
    return this.#child!.pid;
  }

  start(): Promise<void> {
    const [cmd, ...args] = this.#argv;
    const child = new Deno.Command(cmd!, {
      ...this.#options,
      args,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    this.#child = child;
    this.#writer = child.stdin.getWriter();
    const lines = child.stdout.pipeThrough(new TextDecoderStream());
    const errs = child.stderr.pipeThrough(new TextDecoderStream());
    this.#reading = Promise.all([
      (async () => {
        let buffer = "";
        for await (const chunk of lines) {
          buffer += chunk;
          let end: number;
          while ((end = buffer.indexOf("\n")) >= 0) {
            const line = buffer.slice(0, end).replace(/\r$/, "");
            buffer = buffer.slice(end + 1);
            if (line.trim() === "") continue;
            this.onmessage?.(JSON.parse(line) as JSONRPCMessage);
          }
        }
      })(),
      (async () => {
        for await (const chunk of errs) this.#stderr += chunk;
      })(),
    ]).then(async () => {
      await child.status;
      this.#end();
    });
    return Promise.resolve();
  }

  async send(message: JSONRPCMessage): Promise<void> {
    await this.#writer!.write(new TextEncoder().encode(JSON.stringify(message) + "\n"));
  }

  /** Closes the server's stdin (it ends by itself then) and waits for it to exit. */
  async close(): Promise<void> {
    if (this.#child === undefined) return;
    await this.#writer!.close().catch((error) => {
      if (!(error instanceof TypeError) && !(error instanceof Deno.errors.BrokenPipe)) throw error;
    });
    await this.#reading;
  }

  /** Kills the server (a client that vanishes) and waits for it to exit. */
  async kill(signal: Deno.Signal = "SIGKILL"): Promise<void> {
    this.#child!.kill(signal);
    await this.#writer!.close().catch(() => undefined);
    await this.#reading;
  }

  #end(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.onclose?.();
  }
}
