/**
 * Tool results sized for a model, and counted as received (issue 30). In-process: runs of the
 * fake worker made by the engine itself, the MCP server over the same engine, and SDK clients on
 * in-memory transports named as Claude Code (which gives its model the structured content) and
 * as a generic client. Every tool that answers about runs without starting one is held to its
 * budget (_budget.ts); the ones that start runs are held to it over real workers
 * (result_budget_real_test.ts). Then what a result hands over of a run is what its receipt says:
 * the exact bytes the client got, summed over the results, in the record and in `savings`.
 */
import assert from "node:assert/strict";
import { createMcpServer } from "../../../src/server/mcp/mod.ts";
import type { RunRecord } from "../../../src/store/record.ts";
import type { RunSpec } from "../../../src/workers/types.ts";
import { engineWorld } from "../../support/engine_world.ts";
import type { FakeStep } from "../../support/fake_backend.ts";
import { tempRepo, waitFor } from "../../support/temp.ts";
import { Client, InMemoryTransport } from "./_sdk.ts";
import { assertWithin, bytes, PER_RUN_BYTES, runsBudget, sizesOf } from "./_budget.ts";
import { structured, textOf } from "./_world.ts";

/** A read answer about as long as a real one: claims with their references. */
const ANSWER = [
  "The answer is defined in src/app.ts:1 as the exported constant `answer`.",
  "",
  "- src/app.ts:1 exports `answer = 41`; nothing else is in the file.",
  "- README.md:1 is the title only.",
  "- Nothing imports src/app.ts yet.",
].join("\n");

function steps(spec: RunSpec): FakeStep[] {
  if (spec.prompt.includes("HANG")) return [{ hang: true }];
  if (spec.prompt.includes("WRITE")) {
    return [{ editFile: "src/app.ts", old: "41", new: "42" }, { answer: "Set it to 42." }];
  }
  if (spec.prompt.includes("ISOLATE")) {
    return [
      { writeFile: "src/extra.ts", content: "export const extra = 1;\n" },
      { answer: "Added src/extra.ts." },
    ];
  }
  return [{ tool: "read", target: "src/app.ts" }, { answer: ANSWER }];
}

async function budgetWorld() {
  const repo = await tempRepo({
    "src/app.ts": "export const answer = 41;\n",
    "README.md": "# app\n",
  });
  const w = await engineWorld(repo, steps);
  const servers: { close(): Promise<void> }[] = [];
  return {
    ...w,
    /** A client of a new MCP server over the world's engine, named `name`. */
    async connect(name: string): Promise<Client> {
      const mcp = createMcpServer(w.engine, {
        dir: repo.path,
        clock: w.sys.clock,
        version: "test",
      });
      const [client, server] = InMemoryTransport.createLinkedPair();
      await mcp.server.connect(server);
      const c = new Client({ name, version: "1" });
      await c.connect(client);
      servers.push({ close: async () => (await c.close(), await mcp.close()) });
      return c;
    },
    async [Symbol.asyncDispose]() {
      for (const s of servers) await s.close();
      await w[Symbol.asyncDispose]();
    },
  };
}

/** The clients: one that gives its model the structured content, one that gives it the text. */
const CLIENTS = [["claude-code", true], ["pitroom-test", false]] as const;

Deno.test("every tool's result about runs stays within its budget, for either kind of client", async (t) => {
  await using w = await budgetWorld();
  for (const [name, readsStructured] of CLIENTS) {
    const c = await w.connect(name);
    const run = (task: string, mode: RunRecord["mode"]) =>
      w.engine.run({ task: `${task} (${name})`, mode, worker: "opencode" });
    const read = await run("READ where is the answer?", "read");
    const write = await run("WRITE make it 42", "write");
    const isolate = await run("ISOLATE add a file", "isolate");
    for (const r of [read, write, isolate]) assert.equal(r.outcome, "ok", r.message);
    const call = (tool: string, args: Record<string, unknown>) =>
      c.callTool({ name: tool, arguments: args });
    const within = (result: unknown, budget: number, what: string) => {
      assert.notEqual((result as { isError?: boolean }).isError, true, textOf(result));
      assertWithin(result, budget, readsStructured, `${name} ${what}`);
    };

    await t.step(`${name}: pitroom_wait of a read run and of a write run`, async () => {
      within(await call("pitroom_wait", { runs: [read.id] }), runsBudget([read]), "read run");
      within(await call("pitroom_wait", { runs: [write.id] }), runsBudget([write]), "write run");
      const both = await call("pitroom_wait", { runs: [read.id, write.id] });
      within(both, runsBudget([read, write]), "both");
    });
    await t.step(`${name}: pitroom_show`, async () => {
      within(await call("pitroom_show", { run: read.id }), runsBudget([read]), "read run");
      within(await call("pitroom_show", { run: write.id }), runsBudget([write]), "write run");
    });
    await t.step(`${name}: pitroom_info`, async () => {
      const runs = await call("pitroom_info", { topic: "runs" });
      within(runs, PER_RUN_BYTES * structured(runs).runs.length, "runs");
      for (const topic of ["savings", "stats", "cooldown"]) {
        const r = await call("pitroom_info", { topic });
        // A report asked for by topic: its data once, and a line.
        within(r, bytes(JSON.stringify(structured(r))) + PER_RUN_BYTES, topic);
      }
    });
    await t.step(`${name}: pitroom_apply and pitroom_discard`, async () => {
      const budget = runsBudget([[isolate, { answer: false }]]);
      within(await call("pitroom_apply", { run: isolate.id }), budget, "apply");
      within(await call("pitroom_discard", { run: isolate.id }), PER_RUN_BYTES, "discard");
    });
    await t.step(`${name}: pitroom_revert`, async () => {
      const budget = runsBudget([[write, { answer: false }]]);
      within(await call("pitroom_revert", { run: write.id }), budget, "revert of the write run");
      within(await call("pitroom_revert", { run: isolate.id }), budget, "revert of the apply");
    });
    await t.step(`${name}: pitroom_stop`, async () => {
      const hanging = run("HANG take your time", "read");
      let id = "";
      await waitFor(async () => {
        id = (await w.engine.list({ recent: 1 })).find((r) => r.state === "running")?.id ?? "";
        return id !== "";
      }, { timeoutMs: 20_000, what: "the hanging run to run" });
      within(await call("pitroom_stop", { runs: [id] }), PER_RUN_BYTES, "stop");
      assert.equal((await hanging).outcome, "stopped");
    });
  }
});

Deno.test("a result's receipt counts the bytes the client got: each result that hands the run over, exactly", async () => {
  await using w = await budgetWorld();
  const read = await w.engine.run({ task: "READ where?", mode: "read", worker: "opencode" });
  assert.ok(read.receipt, "the run has a receipt");
  for (const [name] of CLIENTS) {
    const c = await w.connect(name);
    const before = (await w.engine.get(read.id)).receipt!.returned ?? { bytes: 0, handovers: 0 };
    const waited = await c.callTool({ name: "pitroom_wait", arguments: { runs: [read.id] } });
    const got = sizesOf(waited).whole;
    const after = (await w.engine.get(read.id)).receipt!;
    assert.deepEqual(after.returned, {
      bytes: before.bytes + got,
      handovers: before.handovers + 1,
    }, `${name}: the receipt counts this result's bytes`);
    assert.equal(after.returnedTokens, Math.ceil(after.returned!.bytes / 4));
    // The result says it of itself: the figure it prints includes its own bytes.
    const brief = structured(waited).runs[0];
    assert.ok(
      brief.receipt.includes(`~${after.returnedTokens} returned `),
      `${name}: ${brief.receipt} (${after.returnedTokens} tokens recorded)`,
    );
    // A look at the run is not a hand-over.
    await c.callTool({ name: "pitroom_show", arguments: { run: read.id } });
    assert.deepEqual((await w.engine.get(read.id)).receipt!.returned, after.returned);
  }
  // `savings` (the history) counts it too.
  const savings = await w.engine.savings({ since: null });
  const returned = (await w.engine.get(read.id)).receipt!.returnedTokens;
  assert.equal(savings.total.returnedTokens, returned);
});
