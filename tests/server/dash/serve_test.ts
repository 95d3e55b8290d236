/**
 * The dashboard on a real loopback port: the page and the stream over real HTTP after coming in
 * through the door, a worker's requests without a pass (every one refused), raw requests over
 * `Deno.connect` with a forged Host and a cross-origin POST (fetch would set its own Host), the
 * next free port when one is taken, and the idle timer on a fake clock (it waits while a request
 * or a stream is open).
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

/** Comes in as a browser does over real HTTP: the cookie and key headers of its requests. */
async function enter(server: { address: string; link(): Promise<string> }) {
  const door = await fetch(await server.link());
  await door.body?.cancel();
  const cookie = door.headers.get("set-cookie")!.split(";")[0]!;
  const claim = await fetch(`${server.address}api/session`, {
    method: "POST",
    headers: { cookie, origin: server.address.slice(0, -1) },
  });
  const { key } = await claim.json();
  return { cookie, "x-pitroom-key": key as string };
}

async function served(
  options: {
    clock?: FakeClock;
    idleMs?: number;
    firstPort?: number;
    keepWhile?: () => Promise<boolean>;
  } = {},
) {
  const state = await tempDir("pitroom-dash-state-");
  const sys = testSys({ stateDir: state.path, ...(options.clock ? { clock: options.clock } : {}) });
  const server = serveDashboard(sys, {
    idleMs: options.idleMs ?? 3_600_000,
    ...(options.keepWhile ? { keepWhile: options.keepWhile } : {}),
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
  const headers = await enter(s.server);
  const page = await fetch(address, { headers });
  const html = await page.text();
  assert.equal(page.status, 200);
  assert.match(page.headers.get("content-security-policy")!, /default-src 'self'/);
  assert.match(html, /<div id="app">/);
  const runs = await fetch(`${address}api/runs`, { headers });
  assert.deepEqual((await runs.json()).runs, []);
  const stream = new SseReader(await fetch(`${address}api/stream`, { headers }));
  assert.equal((await stream.next()).event, "hello");
  assert.equal((await stream.until((m) => m.event === "ready", "ready")).event, "ready");
  await stream.close();
  // The same API by the name localhost.
  const local = await raw(
    port,
    `GET /api/runs HTTP/1.1\r\nHost: localhost:${port}\r\nCookie: ${headers.cookie}\r\n` +
      `X-Pitroom-Key: ${headers["x-pitroom-key"]}\r\nConnection: close\r\n\r\n`,
  );
  assert.equal(statusOf(local), 200, local);
});

Deno.test("a worker on the machine: no pass, no way in (page, API, stream, writes); tokens are one-time and die with the start", async () => {
  const state = await tempDir("pitroom-dash-state-");
  await using _ = state;
  const sys = testSys({ stateDir: state.path });
  const first = serveDashboard(sys, { idleMs: 3_600_000, port: 0 });
  let link: string;
  try {
    const { address } = first;
    const id = "20200101-000000-abcd";
    const origin = address.slice(0, -1);
    // What a worker would try: every door with the right Host and Origin, no cookie, no key.
    const tries: Array<[string, string]> = [
      ["GET", ""],
      ["GET", "app.js"],
      ["GET", "api/runs"],
      ["GET", `api/runs/${id}/patch`],
      ["GET", "api/history?q=secret"],
      ["GET", "api/stream"],
      ["POST", `api/runs/${id}/stop`],
      ["POST", `api/runs/${id}/discard`],
      ["POST", "api/session"],
    ];
    for (const [method, path] of tries) {
      const res = await fetch(`${address}${path}`, { method, headers: { origin } });
      const text = await res.text();
      assert.equal(res.status, 401, `${method} /${path}: ${text}`);
      assert.match(text, /pitroom dash/);
    }
    // Only the health answer is open: it names the service, nothing that opens it.
    const health = await (await fetch(`${address}api/health`)).json();
    assert.deepEqual(Object.keys(health).sort(), ["instance", "pid", "service"]);
    // A token opens once; the second time it is refused, whoever brings it.
    link = await first.link();
    const once = await fetch(link);
    await once.body?.cancel();
    assert.equal(once.status, 200);
    const twice = await fetch(link);
    assert.equal(twice.status, 401);
    assert.match(await twice.text(), /opened already/);
  } finally {
    await first.close();
  }
  // A new start on the same state dir: an address of the earlier one is refused.
  const second = serveDashboard(sys, { idleMs: 3_600_000, port: 0 });
  try {
    const token = new URL(link).searchParams.get("token")!;
    const old = await fetch(`${second.address}?token=${token}`);
    assert.equal(old.status, 401);
    assert.match(await old.text(), /not this dashboard's/);
    const fresh = await fetch(await second.link());
    await fresh.body?.cancel();
    assert.equal(fresh.status, 200);
  } finally {
    await second.close();
  }
});

Deno.test("raw HTTP: a forged or missing Host is refused, a cross-origin POST too", async () => {
  await using s = await served();
  const { port } = s.server;
  const headers = await enter(s.server);
  const pass = `Cookie: ${headers.cookie}\r\nX-Pitroom-Key: ${headers["x-pitroom-key"]}\r\n`;
  const ok = await raw(
    port,
    `GET /api/runs HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${pass}Connection: close\r\n\r\n`,
  );
  assert.equal(statusOf(ok), 200, ok);
  for (const host of ["evil.example", `evil.example:${port}`, "127.0.0.1", "127.0.0.1:1"]) {
    for (const path of ["/", "/api/runs", "/api/stream", "/app.js"]) {
      const answer = await raw(
        port,
        `GET ${path} HTTP/1.1\r\nHost: ${host}\r\n${pass}Connection: close\r\n\r\n`,
      );
      assert.equal(statusOf(answer), 403, `${host} ${path}: ${answer}`);
      assert.match(answer, /forbidden_host/);
    }
  }
  const noHost = await raw(port, "GET /api/runs HTTP/1.0\r\n\r\n");
  assert.equal(statusOf(noHost), 403, noHost);
  const id = "20200101-000000-abcd";
  const post = (extra: string) =>
    raw(
      port,
      `POST /api/runs/${id}/stop HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${extra}` +
        `Cookie: ${headers.cookie}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`,
    );
  const key = `X-Pitroom-Key: ${headers["x-pitroom-key"]}\r\n`;
  const crossOrigin = await post(`Origin: http://evil.example\r\n${key}`);
  assert.equal(statusOf(crossOrigin), 403, crossOrigin);
  assert.match(crossOrigin, /bad_origin/);
  const noKey = await post(`Origin: http://127.0.0.1:${port}\r\n`);
  assert.equal(statusOf(noKey), 401, noKey);
  assert.match(noKey, /bad_key/);
  // With both, the guards let it through to the route (no such run here).
  const through = await post(`Origin: http://127.0.0.1:${port}\r\n${key}`);
  assert.equal(statusOf(through), 404, through);
});

Deno.test("every start has a new key", async () => {
  const keys = [];
  for (let i = 0; i < 2; i++) {
    await using s = await served();
    keys.push(s.server.key);
  }
  assert.notEqual(keys[0], keys[1]);
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
  const headers = await enter(server);
  await (await fetch(`${server.address}api/summary`, { headers })).body?.cancel();
  await clock.advance(59_000);
  assert.equal(stopped, false);
  // An open stream keeps it up however long.
  const stream = new SseReader(await fetch(`${server.address}api/stream`, { headers }));
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

Deno.test("idle: while a run is going the idle time starts again; once none is, it stops", async () => {
  const clock = new FakeClock();
  let going = true;
  let asked = 0;
  await using s = await served({
    clock,
    idleMs: 60_000,
    keepWhile: () => {
      asked++;
      return Promise.resolve(going);
    },
  });
  const { server } = s;
  let stopped = false;
  server.finished.then(() => (stopped = true));
  // Three idle times pass with a run going: asked each time, still serving.
  for (let i = 1; i <= 3; i++) {
    await clock.advance(60_000);
    await waitFor(() => asked === i, { timeoutMs: 5_000, what: `the idle check ${i}` });
  }
  assert.equal(stopped, false);
  going = false;
  await waitFor(async () => {
    await clock.advance(60_000);
    return stopped;
  }, { timeoutMs: 10_000, what: "the idle dashboard to stop once no run is going" });
  assert.equal(server.reason(), "idle");
});
