/**
 * The stdio transport (`pitroom mcp`): the SDK's dual-era entry on the early front
 * (stdio_front.ts). The client's opening picks the era of this process: `initialize` a
 * 2025-11-25 session, a request with the 2026-07-28 `_meta` the stateless protocol (with
 * tasks); one server of that era is made and serves until the client closes stdin or `signal`
 * aborts. The runs go on in the state dir's host.
 */
import { serveStdio as serveEras, type Transport } from "./sdk.ts";
import type { Era, PitroomMcpServer } from "./server.ts";
import { StdioFront } from "./stdio_front.ts";

/** Options of `serveStdio`. */
export interface ServeStdioOptions {
  signal?: AbortSignal;
  /** The transport, when it was started early (else one over stdin and stdout). */
  front?: StdioFront;
  /** Pitroom's version (for a front made here). @default "0" */
  version?: string;
}

/** Serves the server `make` gives for the client's era on stdio until the client goes away. */
export async function serveStdio(
  make: (era: Era) => PitroomMcpServer,
  options: ServeStdioOptions = {},
): Promise<void> {
  const front = options.front ?? new StdioFront(options.version ?? "0");
  let served: PitroomMcpServer | undefined;
  const end = () => void front.close();
  options.signal?.addEventListener("abort", end, { once: true });
  if (options.signal?.aborted) end();
  const handle = serveEras(({ era }) => {
    served = make(era === "modern" ? "modern" : "legacy");
    return served.server;
  }, {
    transport: front as unknown as Transport,
    onerror: () => {
      // A malformed line or a send to a closed pipe: the client hears of the first, the second
      // has nobody left to tell.
    },
  });
  try {
    await front.ended;
  } finally {
    options.signal?.removeEventListener("abort", end);
    await handle.close();
    await served?.close();
  }
}
