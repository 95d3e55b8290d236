/**
 * The stdio transport: one server on this process's stdin and stdout (`pitroom mcp`). It ends
 * when the client closes stdin or `signal` aborts; the runs go on in the state dir's host.
 */
import process from "node:process";
import type { PitroomMcpServer } from "./server.ts";
import { StdioServerTransport } from "./sdk.ts";

/** Serves `mcp` on stdio until the client goes away or `signal` aborts. */
export async function serveStdio(
  mcp: PitroomMcpServer,
  options: { signal?: AbortSignal } = {},
): Promise<void> {
  const transport = new StdioServerTransport(process.stdin, process.stdout);
  const closed = Promise.withResolvers<void>();
  transport.onclose = () => closed.resolve();
  const end = () => void transport.close();
  process.stdin.once("end", end);
  options.signal?.addEventListener("abort", end, { once: true });
  try {
    await mcp.server.connect(transport);
    await closed.promise;
  } finally {
    process.stdin.off("end", end);
    options.signal?.removeEventListener("abort", end);
    await mcp.close();
  }
}
