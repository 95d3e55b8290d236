/**
 * The stdio front (stdio_front.ts) on an in-memory pipe: a 2026-07-28 `server/discover` is
 * answered before the SDK starts the transport, every other message waits for it and then flows
 * through in order, a request naming another protocol version gets -32022, and the end of the
 * input closes the transport once it is started.
 */
import assert from "node:assert/strict";
import { discoverResult } from "../../../src/server/mcp/discover.ts";
import { StdioFront } from "../../../src/server/mcp/stdio_front.ts";
import { waitFor } from "../../support/temp.ts";

function pipe() {
  let feed!: ReadableStreamDefaultController<Uint8Array>;
  const input = new ReadableStream<Uint8Array>({ start: (c) => void (feed = c) });
  const written: unknown[] = [];
  return {
    input,
    written,
    send: (message: unknown) =>
      feed.enqueue(new TextEncoder().encode(JSON.stringify(message) + "\n")),
    end: () => feed.close(),
    write: (bytes: Uint8Array) => {
      for (const line of new TextDecoder().decode(bytes).split("\n")) {
        if (line !== "") written.push(JSON.parse(line));
      }
      return Promise.resolve();
    },
  };
}

const meta = (version: string) => ({
  _meta: {
    "io.modelcontextprotocol/protocolVersion": version,
    "io.modelcontextprotocol/clientCapabilities": {},
  },
});

Deno.test("the stdio front answers server/discover before the SDK starts it, and holds the rest until then", async () => {
  const p = pipe();
  const front = new StdioFront("9.9.9", { input: p.input, write: p.write });
  const delivered: unknown[] = [];
  front.onmessage = (m: never) => void delivered.push(m);
  p.send({ jsonrpc: "2.0", id: "probe", method: "server/discover", params: meta("2026-07-28") });
  await front.opened;
  await waitFor(() => p.written.length === 1, { timeoutMs: 5_000, what: "the early answer" });
  assert.deepEqual(p.written[0], { jsonrpc: "2.0", id: "probe", result: discoverResult("9.9.9") });

  p.send({ jsonrpc: "2.0", id: 1, method: "tools/list", params: meta("2026-07-28") });
  p.send({ jsonrpc: "2.0", id: 2, method: "tools/list", params: meta("1999-01-01") });
  await waitFor(() => p.written.length === 2, { timeoutMs: 5_000, what: "the version error" });
  assert.equal((p.written[1] as { error: { code: number } }).error.code, -32022);
  assert.deepEqual(delivered, [], "nothing reaches the SDK before it starts the transport");
  let closed = false;
  front.onclose = () => void (closed = true);
  p.end();
  await front.start();
  assert.deepEqual(delivered.map((m) => (m as { id: number }).id), [1]);
  // Once started, a discover is the SDK's to answer.
  await waitFor(() => closed, { timeoutMs: 5_000, what: "the close at the input's end" });
  await front.ended;
});

Deno.test("after the SDK started the transport, server/discover flows through to it", async () => {
  const p = pipe();
  const front = new StdioFront("9.9.9", { input: p.input, write: p.write });
  const delivered: unknown[] = [];
  front.onmessage = (m: never) => void delivered.push(m);
  await front.start();
  p.send({ jsonrpc: "2.0", id: 5, method: "server/discover", params: meta("2026-07-28") });
  await waitFor(() => delivered.length === 1, { timeoutMs: 5_000, what: "the discover delivered" });
  assert.deepEqual(p.written, []);
  p.end();
  await front.ended;
});
