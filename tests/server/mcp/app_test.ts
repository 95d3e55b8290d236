/**
 * The HTTP app without a listener (`app.request`): the session limit, unknown sessions, requests
 * that start no session, and the guards' order. The real port is covered by http_test.ts.
 */
import assert from "node:assert/strict";
import { createEngine } from "../../../src/engine/mod.ts";
import { createMcpHttpApp } from "../../../src/server/mcp/http.ts";
import { isLocalHost, isLocalOrigin } from "../../../src/server/mcp/guard.ts";
import { mcpToken, sameToken, tokenPath } from "../../../src/server/mcp/token.ts";
import { RefusedError, UsageError } from "../../../src/sys/errors.ts";
import { realClock } from "../../../src/sys/real.ts";
import { testSys } from "../../support/sys.ts";
import { tempDir } from "../../support/temp.ts";

const TOKEN = "0123456789abcdef0123456789abcdef";

function init(id = 1): RequestInit {
  return {
    method: "POST",
    headers: {
      Host: "127.0.0.1:7117",
      Authorization: `Bearer ${TOKEN}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "initialize",
      params: {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    }),
  };
}

async function appWorld(options: { maxSessions?: number; idleMs?: number } = {}) {
  const state = await tempDir("pitroom-mcp-app-");
  const sys = testSys({ stateDir: state.path, cwd: state.path });
  const web = createMcpHttpApp(createEngine(sys), {
    dir: state.path,
    clock: realClock,
    version: "test",
    token: TOKEN,
    ...options,
  });
  return {
    web,
    async [Symbol.asyncDispose]() {
      await web.close();
      await state[Symbol.asyncDispose]();
    },
  };
}

Deno.test("createMcpHttpApp() opens sessions up to the limit, then answers 503 until one closes", async () => {
  await using w = await appWorld({ maxSessions: 1 });
  const first = await w.web.app.request("/mcp", init());
  assert.equal(first.status, 200, await first.clone().text());
  const session = first.headers.get("mcp-session-id");
  assert.ok(session);
  await first.body?.cancel();
  assert.equal(w.web.sessions(), 1);
  const second = await w.web.app.request("/mcp", init(2));
  assert.equal(second.status, 503);
  assert.match((await second.json()).error.message, /Too many sessions \(at most 1\)/);
  const closed = await w.web.app.request("/mcp", {
    method: "DELETE",
    headers: {
      Host: "127.0.0.1:7117",
      Authorization: `Bearer ${TOKEN}`,
      "mcp-session-id": session,
    },
  });
  assert.equal(closed.status, 200);
  await closed.body?.cancel();
  assert.equal(w.web.sessions(), 0);
  const third = await w.web.app.request("/mcp", init(3));
  assert.equal(third.status, 200);
  await third.body?.cancel();
});

Deno.test("createMcpHttpApp() at the session limit closes a session idle for long to make room", async () => {
  await using w = await appWorld({ maxSessions: 1, idleMs: 0 });
  const first = await w.web.app.request("/mcp", init());
  const gone = first.headers.get("mcp-session-id")!;
  await first.body?.cancel();
  const second = await w.web.app.request("/mcp", init(2));
  assert.equal(second.status, 200);
  await second.body?.cancel();
  assert.equal(w.web.sessions(), 1);
  const old = await w.web.app.request("/mcp", {
    method: "POST",
    headers: {
      Host: "127.0.0.1:7117",
      Authorization: `Bearer ${TOKEN}`,
      "mcp-session-id": gone,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
    },
    body: JSON.stringify({ jsonrpc: "2.0", id: 3, method: "tools/list" }),
  });
  assert.equal(old.status, 404, "the closed session's client is told to start again");
  await old.body?.cancel();
});

Deno.test("createMcpHttpApp() answers an unknown session 404 and a request without a session 400", async () => {
  await using w = await appWorld();
  const headers = { Host: "localhost:7117", Authorization: `Bearer ${TOKEN}` };
  const unknown = await w.web.app.request("/mcp", {
    method: "POST",
    headers: { ...headers, "mcp-session-id": "nope", "Content-Type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
  });
  assert.equal(unknown.status, 404);
  await unknown.body?.cancel();
  const noSession = await w.web.app.request("/mcp", { method: "GET", headers });
  assert.equal(noSession.status, 400);
  await noSession.body?.cancel();
  const notJson = await w.web.app.request("/mcp", { method: "POST", headers, body: "{" });
  assert.equal(notJson.status, 400);
  assert.equal((await notJson.json()).error.code, -32700);
});

Deno.test("isLocalHost() and isLocalOrigin() take only this machine's names", () => {
  for (
    const host of ["127.0.0.1:7117", "localhost:7117", "[::1]:7117", "LOCALHOST:1", "127.0.0.1"]
  ) {
    assert.equal(isLocalHost(host), true, host);
  }
  for (
    const host of [
      undefined,
      "",
      "evil.example:7117",
      "127.0.0.1.evil.example",
      "localhost@evil:1",
      "127.0.0.2:7117",
      "0.0.0.0:7117",
    ]
  ) {
    assert.equal(isLocalHost(host), false, String(host));
  }
  for (
    const origin of [undefined, "http://localhost:3000", "http://127.0.0.1", "http://[::1]:8080"]
  ) {
    assert.equal(isLocalOrigin(origin), true, String(origin));
  }
  for (
    const origin of [
      "null",
      "https://evil.example",
      "http://localhost.evil.example",
      "file://",
      "https://localhost",
    ]
  ) {
    assert.equal(isLocalOrigin(origin), false, origin);
  }
});

Deno.test("sameToken() compares whole tokens", async () => {
  assert.equal(await sameToken(TOKEN, TOKEN), true);
  assert.equal(await sameToken(TOKEN.slice(0, -1), TOKEN), false);
  assert.equal(await sameToken(`${TOKEN}0`, TOKEN), false);
  assert.equal(await sameToken("", TOKEN), false);
});

Deno.test("mcpToken() makes a 256-bit token once, owner-only, and refuses one others can read", async () => {
  await using state = await tempDir("pitroom-mcp-token-");
  const sys = testSys({ stateDir: state.path });
  const made = await mcpToken(sys);
  assert.match(made.token, /^[0-9a-f]{64}$/);
  assert.equal(made.path, tokenPath(state.path));
  assert.equal((await Deno.stat(made.path!)).mode! & 0o777, 0o600);
  assert.deepEqual(await mcpToken(sys), made, "the second start uses the same token");
  await Deno.chmod(made.path!, 0o644);
  await assert.rejects(mcpToken(sys), (e: Error) => {
    assert.ok(e instanceof RefusedError);
    assert.match(e.message, /can be read by others \(mode 644\)/);
    assert.equal(e.hint, `chmod 600 ${made.path}`);
    return true;
  });
  const fromEnv = testSys({ stateDir: state.path, env: { PITROOM_MCP_TOKEN: "x".repeat(16) } });
  assert.deepEqual(await mcpToken(fromEnv), { token: "x".repeat(16) });
  const short = testSys({ stateDir: state.path, env: { PITROOM_MCP_TOKEN: "x".repeat(15) } });
  await assert.rejects(mcpToken(short), UsageError);
});

Deno.test("mcpToken() gives servers starting at once one token", async () => {
  await using state = await tempDir("pitroom-mcp-token-");
  const sys = testSys({ stateDir: state.path });
  const tokens = await Promise.all([1, 2, 3, 4, 5].map(() => mcpToken(sys)));
  assert.equal(new Set(tokens.map((t) => t.token)).size, 1);
  assert.deepEqual([...Deno.readDirSync(state.path)].map((e) => e.name), ["mcp-token"]);
});
