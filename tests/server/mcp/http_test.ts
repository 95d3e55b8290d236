/**
 * `pitroom mcp --http`: the real program on a free loopback port, the SDK's own Streamable HTTP
 * client, and raw requests for the guards (Deno's fetch replaces a custom Host header, so the
 * Host check is tested over a plain TCP connection).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pitroom } from "../../support/pitroom.ts";
import { waitFor } from "../../support/temp.ts";
import {
  CallToolResultSchema,
  ResourceListChangedNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "./_sdk.ts";
import { engineOf, httpServer, structured, textOf, world } from "./_world.ts";

const READ = { turns: [{ read: "src/app.ts" }, { answer: "It is 41, in src/app.ts:1." }] };
const HANG = { turns: [{ hang: true }] };

const INIT = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: {
    protocolVersion: "2025-06-18",
    capabilities: {},
    clientInfo: { name: "raw", version: "1" },
  },
});

/** Sends one raw HTTP/1.1 request and returns the status code. */
async function rawStatus(port: number, head: Record<string, string>, body = INIT): Promise<number> {
  const conn = await Deno.connect({ hostname: "127.0.0.1", port });
  try {
    const lines = [
      "POST /mcp HTTP/1.1",
      ...Object.entries({
        "Content-Type": "application/json",
        Accept: "application/json, text/event-stream",
        "Content-Length": String(new TextEncoder().encode(body).length),
        Connection: "close",
        ...head,
      }).map(([k, v]) => `${k}: ${v}`),
      "",
      body,
    ];
    await conn.write(new TextEncoder().encode(lines.join("\r\n")));
    const buf = new Uint8Array(64);
    const n = await conn.read(buf);
    const status = /^HTTP\/1\.1 (\d{3})/.exec(new TextDecoder().decode(buf.subarray(0, n ?? 0)));
    return Number(status?.[1] ?? 0);
  } finally {
    conn.close();
  }
}

Deno.test("pitroom mcp --http guards: a foreign Host or Origin is 403 first, a missing or wrong token 401, a big body 413", async () => {
  await using w = await world({});
  await using server = await httpServer(w);
  const auth = { Authorization: `Bearer ${server.token}` };
  const host = { Host: `127.0.0.1:${server.port}` };
  // The guard comes before the token: a rebound name is refused even with the right token.
  assert.equal(await rawStatus(server.port, { ...auth, Host: `evil.example:${server.port}` }), 403);
  assert.equal(await rawStatus(server.port, { Host: `evil.example:${server.port}` }), 403);
  assert.equal(
    await rawStatus(server.port, { ...auth, ...host, Origin: "https://evil.example" }),
    403,
  );
  assert.equal(await rawStatus(server.port, { ...auth, ...host, Origin: "null" }), 403);
  assert.equal(await rawStatus(server.port, { ...host }), 401);
  assert.equal(
    await rawStatus(server.port, { ...host, Authorization: "Bearer wrong-token-0123456789" }),
    401,
  );
  assert.equal(await rawStatus(server.port, { ...host, Authorization: server.token }), 401);
  const big = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "ping",
    params: { pad: "x".repeat(2 << 20) },
  });
  assert.equal(await rawStatus(server.port, { ...auth, ...host }, big), 413);
  // The same request with the right Host, Origin and token opens a session.
  assert.equal(
    await rawStatus(server.port, {
      ...auth,
      Host: `localhost:${server.port}`,
      Origin: `http://localhost:${server.port}`,
    }),
    200,
  );

  const missing = await fetch(server.url, {
    method: "POST",
    body: INIT,
    headers: { "Content-Type": "application/json" },
  });
  assert.equal(missing.status, 401);
  assert.match(missing.headers.get("www-authenticate") ?? "", /^Bearer/);
  await missing.body?.cancel();
  await assert.rejects(
    server.connect({ token: "not-the-token-at-all" }),
    /401|Unauthorized|token/i,
  );
  const stat = await Deno.stat(join(w.stateDir, "mcp-token"));
  assert.equal(stat.mode! & 0o777, 0o600);
  assert.equal(server.token.length, 64);
  assert.match(server.stderr(), new RegExp(`runs work in ${w.repo}`));
  assert.match(
    server.stderr(),
    new RegExp(
      `claude mcp add --transport http pitroom ${
        server.url.replaceAll(".", "\\.")
      } --header "Authorization: Bearer \\$\\(cat .*mcp-token\\)"`,
    ),
  );
});

Deno.test("over HTTP the SDK's client runs a task, subscribes, gets progress, and is told of a run the CLI started", async () => {
  await using w = await world({ read: READ, hang: HANG });
  await using server = await httpServer(w);
  await using c = await server.connect();
  const { tools } = await c.client.listTools();
  assert.ok(tools.some((t) => t.name === "pitroom_run"));
  const done = await c.client.callTool({
    name: "pitroom_run",
    arguments: { task: "Where is the answer defined?", worker: "codex", model: "fake/read" },
  });
  assert.notEqual(done.isError, true, textOf(done));
  assert.equal(structured(done).runs[0].answer, "It is 41, in src/app.ts:1.");

  let listChanged = 0;
  c.client.setNotificationHandler(ResourceListChangedNotificationSchema, () => {
    listChanged++;
  });
  const updates: string[] = [];
  c.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    updates.push(n.params.uri);
  });
  // A run started by another process (the CLI) shows up in the list.
  const cli = await w.run(["run", "--bg", "-W", "codex", "-m", "fake/hang", "Take your time"]);
  assert.equal(cli.code, 0, cli.stderr);
  const id = cli.stdout.trim();
  await waitFor(() => listChanged > 0, {
    timeoutMs: 20_000,
    what: "list_changed for the CLI's run",
  });
  await c.client.subscribeResource({ uri: `pitroom://run/${id}` });

  const progress: string[] = [];
  const waited = await c.client.callTool(
    { name: "pitroom_wait", arguments: { runs: [id], timeoutSeconds: 1 } },
    CallToolResultSchema,
    { onprogress: (p) => progress.push(p.message ?? "") },
  );
  assert.deepEqual(structured(waited).still, [id]);
  assert.ok(progress.length >= 1, "progress came on the call's stream");
  await c.client.callTool({ name: "pitroom_stop", arguments: { runs: [id] } });
  await waitFor(() => updates.includes(`pitroom://run/${id}`), {
    timeoutMs: 10_000,
    what: "the resource update after the stop",
  });
});

Deno.test("over HTTP a client that ends its session mid-wait leaves the run going, and the server serves the next", async () => {
  await using w = await world({ hang: HANG });
  const engine = engineOf(w);
  await using server = await httpServer(w);
  const first = await server.connect();
  const call = first.client.callTool({
    name: "pitroom_run",
    arguments: { task: "Take your time", worker: "codex", model: "fake/hang" },
  });
  call.catch(() => undefined);
  let id: string | undefined;
  await waitFor(async () => {
    id = (await engine.list({ recent: 1 })).at(-1)?.id;
    return id !== undefined && (await engine.get(id)).state === "running";
  }, { timeoutMs: 60_000, what: "the run to start" });
  await first[Symbol.asyncDispose]();
  await assert.rejects(call);
  await using second = await server.connect();
  const still = await second.client.callTool({
    name: "pitroom_wait",
    arguments: { runs: [id!], timeoutSeconds: 0 },
  });
  assert.deepEqual(structured(still).still, [id]);
  assert.equal((await engine.get(id!)).state, "running");
  // Stopping the server does not stop the run either.
  await server[Symbol.asyncDispose]();
  assert.equal((await engine.get(id!)).state, "running");
  await engine.stop({ runs: [id!] });
});

Deno.test("pitroom mcp: --port without --http is a usage error; a short PITROOM_MCP_TOKEN is refused", async () => {
  await using w = await world({});
  const port = await pitroom(["mcp", "--port", "7117"], { env: w.env, cwd: w.repo });
  assert.equal(port.code, 2);
  assert.equal(port.stderr, "pitroom: --port needs --http\nhint: pitroom mcp --http --port 7117\n");
  const short = await pitroom(["mcp", "--http", "--port", "0"], {
    env: { ...w.env, PITROOM_MCP_TOKEN: "short" },
    cwd: w.repo,
  });
  assert.equal(short.code, 2);
  assert.match(short.stderr, /PITROOM_MCP_TOKEN is too short/);
  const nowhere = await pitroom(["mcp", "-d", "no/such/dir"], { env: w.env, cwd: w.repo });
  assert.equal(nowhere.code, 3);
  assert.match(nowhere.stderr, /Cannot serve MCP in ".*no\/such\/dir": not a directory/);
  const help = await pitroom(["mcp", "--help"], { env: w.env, cwd: w.repo });
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--http/);
  assert.match(help.stdout, /Bearer/);
});

Deno.test("pitroom mcp --http takes PITROOM_MCP_TOKEN and writes no token file", async () => {
  await using w = await world({});
  const token = "a-token-of-my-own-0123456789";
  await using server = await httpServer(w, { env: { PITROOM_MCP_TOKEN: token } });
  await using c = await server.connect({ token });
  assert.ok((await c.client.listTools()).tools.length > 0);
  await assert.rejects(Deno.stat(join(w.stateDir, "mcp-token")), Deno.errors.NotFound);
  assert.match(server.stderr(), /Bearer \$PITROOM_MCP_TOKEN"/);
});
