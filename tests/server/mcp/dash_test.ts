/**
 * The dashboard hook: `createMcpServer(engine, { dashAddress })` adds the address to results of
 * runs still going a few seconds after they started, unless `"mcpDash": false` or
 * `PITROOM_MCP_DASH=0`; a run that ended, or one just started, gets none. In-process (the SDK's
 * client on an in-memory transport) over a real state dir, host and opencode worker; the clock
 * reads a minute ahead so "a few seconds" have passed without waiting for them.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createMcpServer } from "../../../src/server/mcp/mod.ts";
import type { Clock } from "../../../src/sys/mod.ts";
import { realClock } from "../../../src/sys/real.ts";
import { Client, InMemoryTransport } from "./_sdk.ts";
import { engineOf, patient, stdioClient, structured, textOf, type World, world } from "./_world.ts";

const AHEAD: Clock = { ...realClock, now: () => realClock.now() + 60_000 };
const DASH = "http://127.0.0.1:7878/";

async function connect(w: World, env: Record<string, string> = {}, clock: Clock = AHEAD) {
  const mcp = createMcpServer(engineOf(w, env), {
    dir: w.repo,
    clock,
    version: "test",
    dashAddress: () => Promise.resolve(DASH),
  });
  const [client, server] = InMemoryTransport.createLinkedPair();
  await mcp.server.connect(server);
  const c = patient(new Client({ name: "dash-test", version: "1" }));
  await c.connect(client);
  return {
    client: c,
    async [Symbol.asyncDispose]() {
      await c.close();
      await mcp.close();
    },
  };
}

Deno.test("results of runs still going carry the dashboard's address, unless mcpDash is off", async () => {
  await using w = await world({ hang: { turns: [{ hang: true }] } });
  const started = await w.run([
    "run",
    "--bg",
    "-W",
    "opencode",
    "-m",
    "fake/hang",
    "Take your time",
  ]);
  assert.equal(started.code, 0, started.stderr);
  const id = started.stdout.trim();
  const wait = { name: "pitroom_wait", arguments: { runs: [id], timeoutSeconds: 0 } };
  {
    await using c = await connect(w);
    const result = await c.client.callTool(wait);
    assert.equal(structured(result).dashboard, DASH);
    assert.match(textOf(result), /Live view of every run: http:\/\/127\.0\.0\.1:7878\/$/);
  }
  {
    // Just started: no address yet.
    await using c = await connect(w, {}, realClock);
    const fresh = await c.client.callTool({
      name: "pitroom_run",
      arguments: { task: "Again", worker: "opencode", model: "fake/hang", waitSeconds: 0 },
    });
    assert.equal(structured(fresh).dashboard, undefined);
    await c.client.callTool({
      name: "pitroom_stop",
      arguments: { runs: [structured(fresh).runs[0].id] },
    });
  }
  {
    await using c = await connect(w, { PITROOM_MCP_DASH: "0" });
    assert.equal(structured(await c.client.callTool(wait)).dashboard, undefined);
  }
  await Deno.writeTextFile(w.env.PITROOM_CONFIG!, JSON.stringify({ mcpDash: false }));
  {
    await using c = await connect(w);
    const result = await c.client.callTool(wait);
    assert.equal(structured(result).dashboard, undefined);
    assert.doesNotMatch(textOf(result), /Live view/);
  }
  await w.run(["stop", id]);
  {
    await using c = await connect(w, { PITROOM_CONFIG: join(w.stateDir, "none.json") });
    const ended = await c.client.callTool(wait);
    assert.deepEqual(structured(ended).still, []);
    assert.equal(structured(ended).dashboard, undefined, "a run that ended gets no address");
  }
});

Deno.test("pitroom mcp: a long run's live view address opens the dashboard once; each answer has its own", async () => {
  await using w = await world({ hang: { turns: [{ hang: true }] } });
  const started = await w.run(["run", "--bg", "-W", "opencode", "-m", "fake/hang", "Hold on"]);
  assert.equal(started.code, 0, started.stderr);
  const id = started.stdout.trim();
  // The real program on stdio, its live view on (the test support turns it off elsewhere).
  await using c = await stdioClient(w, { env: { PITROOM_DASH: "1" } });
  await using _dash = {
    async [Symbol.asyncDispose]() {
      await w.run(["stop", id]);
      const stopped = await w.run(["dash", "--stop"]);
      assert.equal(stopped.code, 0, stopped.stderr);
    },
  };
  // Waiting past a few seconds of the run makes the answer carry the address.
  const wait = { name: "pitroom_wait", arguments: { runs: [id], timeoutSeconds: 4 } };
  const first = structured(await c.client.callTool(wait)).dashboard as string;
  assert.match(first, /^http:\/\/127\.0\.0\.1:\d+\/\?token=\S+$/);
  const second = structured(await c.client.callTool(wait)).dashboard as string;
  assert.notEqual(second, first);
  const opens = async (address: string) => {
    const res = await fetch(address);
    await res.body?.cancel();
    return res.status;
  };
  assert.equal(await opens(first), 200);
  assert.equal(await opens(first), 401);
  assert.equal(await opens(second), 200);
  // Without a pass, the dashboard shows nothing of the run.
  const base = new URL(first).origin;
  assert.equal(
    await fetch(`${base}/api/runs/${id}`).then(async (r) => {
      await r.body?.cancel();
      return r.status;
    }),
    401,
  );
});
