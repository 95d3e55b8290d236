/**
 * `pitroom_show` of a run whose folder was cleaned: the report, steps (as events) and patch the
 * history keeps, as `pitroom show` prints them, flagged `kept`; a kept run that changed nothing
 * has no patch (isError); the resources `pitroom://run/<id>` and `.../patch` fall back alike,
 * and a name the history does not know either stays the CLI's error.
 * In-process (the SDK's client on an in-memory transport) over a real state dir and history.db.
 */
import assert from "node:assert/strict";
import { cleanCommand } from "../../../src/cli/clean.ts";
import { createEngine } from "../../../src/engine/mod.ts";
import { createMcpServer } from "../../../src/server/mcp/mod.ts";
import { testSys } from "../../support/sys.ts";
import { tempDir } from "../../support/temp.ts";
import { writeFakeRun } from "../../history/_fixtures.ts";
import { Client, InMemoryTransport } from "./_sdk.ts";
import { patient, structured, textOf } from "./_world.ts";

const DAY = 86_400_000;
const PATCH = "diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-one\n+two\n";

Deno.test("pitroom_show gives a cleaned run from the history: report, steps as events, patch", async () => {
  await using state = await tempDir("pitroom-kept-");
  const old = Date.now() - 20 * DAY;
  const edited = await writeFakeRun(state.path, {
    task: "Rename the retry helper",
    answer: "Renamed it to backoff()",
    mode: "write",
    endedAt: old,
    tools: [{ kind: "edit", target: "src/retry.ts" }],
    patch: PATCH,
  });
  const asked = await writeFakeRun(state.path, { task: "Where is it?", endedAt: old + 1000 });
  const sys = testSys({ stateDir: state.path });
  await cleanCommand({ sys, flags: { days: 14, yes: true }, args: [] });
  const engine = createEngine(sys);
  await assert.rejects(engine.report(edited.id), /No run/, "the folder is gone");

  const mcp = createMcpServer(engine, { dir: state.path, version: "test", clock: sys.clock });
  const [client, server] = InMemoryTransport.createLinkedPair();
  await mcp.server.connect(server);
  const c = patient(new Client({ name: "kept-test", version: "1" }));
  await c.connect(client);
  try {
    const shown = await c.callTool({
      name: "pitroom_show",
      // A full id: the run worked in another repository than the server's.
      arguments: { run: edited.id, patch: true, events: true, full: true },
    });
    assert.notEqual(shown.isError, true, textOf(shown));
    const out = structured(shown);
    assert.equal(out.kept, true);
    assert.equal(out.run.id, edited.id);
    assert.equal(out.run.answer, "Renamed it to backoff()");
    assert.equal(out.report.id, edited.id);
    assert.equal(out.patch, PATCH);
    const tools = out.events.filter((e: { type: string }) => e.type === "worker.tool_call");
    assert.deepEqual(tools.map((e: { target: string }) => e.target), ["src/retry.ts"]);
    assert.match(textOf(shown), /^Run "[^"]+": its folder was cleaned/);

    // The resources fall back the same way.
    const read = await c.readResource({ uri: `pitroom://run/${edited.id}` });
    const content = read.contents[0]!;
    assert.equal(JSON.parse("text" in content ? String(content.text) : "").id, edited.id);
    const diff = await c.readResource({ uri: `pitroom://run/${edited.id}/patch` });
    const diffContent = diff.contents[0]!;
    assert.equal("text" in diffContent ? diffContent.text : "", PATCH);

    const nothing = await c.callTool({
      name: "pitroom_show",
      arguments: { run: asked.id, patch: true },
    });
    assert.equal(nothing.isError, true);
    assert.equal(textOf(nothing), `Run "${asked.id}" changed no files`);

    const unknown = await c.callTool({ name: "pitroom_show", arguments: { run: "zzzz" } });
    assert.equal(unknown.isError, true);
    assert.match(textOf(unknown), /No run "zzzz"/);
  } finally {
    await c.close();
    await mcp.close();
  }
});
