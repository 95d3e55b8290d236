/**
 * The dashboard on a real loopback port: the page and the stream over real HTTP, raw requests
 * over `Deno.connect` with a forged Host and a cross-origin POST (fetch would set its own
 * Host), the next free port when one is taken, and the idle timer on a fake clock (it waits
 * while a request or a stream is open).
 */
import assert from "node:assert/strict";
import { serveDashboard } from "../../../src/server/dash/serve.ts";
import { PitroomError } from "../../../src/sys/errors.ts";
import { FakeClock } from "../../support/clock.ts";
import { testSys } from "../../support/sys.ts";
import { tempDir, waitFor } from "../../support/temp.ts";
import { SseReader } from "./_sse.ts";

/** Sends `request` as it is over a new connection; resolves with the whole answer. */
async function raw(port: number, request: string): Promise<string> {
  using conn = await Deno.connect({ hostname: "127.0.0.1", port });
  await conn.write(new TextEncoder().encode(request));
  let text = "";
  const buf = new Uint8Array(65536);
  for (;;) {
    const n = await conn.read(buf);
    if (n === null) break;
    text += new TextDecoder().decode(buf.subarray(0, n));
  }
  return text;
}

function statusOf(answer: string): number {
  return Number(/^HTTP\/1\.[01] (\d{3})/.exec(answer)?.[1]);
}

async function served(options: { clock?: FakeClock; idleMs?: number; firstPort?: number } = {}) {
  const state = await tempDir("pitroom-dash-state-");
  const sys = testSys({ stateDir: state.path, ...(options.clock ? { clock: options.clock } : {}) });
  const server = serveDashboard(sys, {
    idleMs: options.idleMs ?? 3_600_000,
    ...(options.firstPort === undefined ? { port: 0 } : { firstPort: options.firstPort }),
  });
  return {
    server,
    async [Symbol.asyncDispose]() {
      await server.close();
      await state[Symbol.asyncDispose]();
    },
  };
}

Deno.test("real HTTP: the page, the API and the stream on 127.0.0.1", async () => {
  await using s = await served();
  const { port, address } = s.server;
  assert.equal(address, `http://127.0.0.1:${port}/`);
  const page = await fetch(address);
  const html = await page.text();
  assert.equal(page.status, 200);
  assert.match(page.headers.get("content-security-policy")!, /default-src 'self'/);
  const secret = /name="pitroom-secret" content="([0-9a-f]{64})"/.exec(html)?.[1];
  assert.ok(secret, html);
  const runs = await fetch(`${address}api/runs`);
  assert.deepEqual((await runs.json()).runs, []);
  const stream = new SseReader(await fetch(`${address}api/stream`));
  assert.equal((await stream.next()).event, "hello");
  assert.equal((await stream.until((m) => m.event === "ready", "ready")).event, "ready");
  await stream.close();
  // The same API by the name localhost.
  const local = await raw(
    port,
    `GET /api/runs HTTP/1.1\r\nHost: localhost:${port}\r\nConnection: close\r\n\r\n`,
  );
  assert.equal(statusOf(local), 200, local);
});

Deno.test("raw HTTP: a forged or missing Host is refused, a cross-origin POST too", async () => {
  await using s = await served();
  const { port } = s.server;
  const ok = await raw(
    port,
    `GET /api/runs HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nConnection: close\r\n\r\n`,
  );
  assert.equal(statusOf(ok), 200, ok);
  for (const host of ["evil.example", `evil.example:${port}`, "127.0.0.1", "127.0.0.1:1"]) {
    for (const path of ["/", "/api/runs", "/api/stream", "/app.js"]) {
      const answer = await raw(
        port,
        `GET ${path} HTTP/1.1\r\nHost: ${host}\r\nConnection: close\r\n\r\n`,
      );
      assert.equal(statusOf(answer), 403, `${host} ${path}: ${answer}`);
      assert.match(answer, /forbidden_host/);
    }
  }
  const noHost = await raw(port, "GET /api/runs HTTP/1.0\r\n\r\n");
  assert.equal(statusOf(noHost), 403, noHost);
  const html = await (await fetch(s.server.address)).text();
  const secret = /name="pitroom-secret" content="([0-9a-f]+)"/.exec(html)![1]!;
  const id = "20200101-000000-abcd";
  const post = (headers: string) =>
    raw(
      port,
      `POST /api/runs/${id}/stop HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${headers}` +
        "Content-Length: 0\r\nConnection: close\r\n\r\n",
    );
  const crossOrigin = await post(`Origin: http://evil.example\r\nX-Pitroom-Secret: ${secret}\r\n`);
  assert.equal(statusOf(crossOrigin), 403, crossOrigin);
  assert.match(crossOrigin, /bad_origin/);
  const noSecret = await post(`Origin: http://127.0.0.1:${port}\r\n`);
  assert.equal(statusOf(noSecret), 403, noSecret);
  assert.match(noSecret, /bad_secret/);
  // With both, the guards let it through to the route (no such run here).
  const through = await post(`Origin: http://127.0.0.1:${port}\r\nX-Pitroom-Secret: ${secret}\r\n`);
  assert.equal(statusOf(through), 404, through);
});

Deno.test("every start has a new secret", async () => {
  const secrets = [];
  for (let i = 0; i < 2; i++) {
    await using s = await served();
    const html = await (await fetch(s.server.address)).text();
    secrets.push(/name="pitroom-secret" content="([0-9a-f]+)"/.exec(html)![1]);
  }
  assert.notEqual(secrets[0], secrets[1]);
});

Deno.test("the next free port when the first is taken; a taken --port is refused", async () => {
  using taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const first = taken.addr.port;
  await using s = await served({ firstPort: first });
  assert.notEqual(s.server.port, first);
  assert.ok(s.server.port > first && s.server.port < first + 20, String(s.server.port));
  const state = await tempDir();
  await using _ = state;
  assert.throws(
    () => serveDashboard(testSys({ stateDir: state.path }), { port: first, idleMs: 1000 }),
    (error) => error instanceof PitroomError && error.code === "port_taken",
  );
});

Deno.test("idle: stops after the idle time without a request, not while a stream is open", async () => {
  const clock = new FakeClock();
  await using s = await served({ clock, idleMs: 60_000 });
  const { server } = s;
  let stopped = false;
  server.finished.then(() => (stopped = true));
  await clock.advance(59_000);
  assert.equal(stopped, false);
  // A request starts the idle time again.
  await (await fetch(`${server.address}api/summary`)).body?.cancel();
  await clock.advance(59_000);
  assert.equal(stopped, false);
  // An open stream keeps it up however long.
  const stream = new SseReader(await fetch(`${server.address}api/stream`));
  await stream.until((m) => m.event === "ready", "ready");
  await clock.advance(10 * 60_000);
  assert.equal(stopped, false);
  await stream.close();
  // The server sees the stream end, then the idle time runs from there.
  await waitFor(async () => {
    await clock.advance(60_000);
    return stopped;
  }, { timeoutMs: 10_000, what: "the idle dashboard to stop" });
  assert.equal(server.reason(), "idle");
});
