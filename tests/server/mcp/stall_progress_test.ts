/**
 * The progress a tool call sends while it waits on a run (follow.ts) says when the run's worker
 * went silent past its stall time: `stalled (no event for 2m) · read · ...`, and goes back to
 * `running` once the worker moves. The fake worker on a fake clock, the engine in this process.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { PitroomEvent } from "../../../src/engine/mod.ts";
import { followRuns } from "../../../src/server/mcp/follow.ts";
import type { CallExtra, ToolContext } from "../../../src/server/mcp/tool.ts";
import { FakeClock } from "../../support/clock.ts";
import { engineWorld } from "../../support/engine_world.ts";
import { tempDir, tempRepo, waitFor } from "../../support/temp.ts";

const MIN = 60_000;

Deno.test("a waiting call's progress says the run stalled, then that it runs again", async () => {
  const clock = new FakeClock();
  await using gates = await tempDir("pitroom-gates-");
  const gate = (name: string) => join(gates.path, name);
  await using t = await engineWorld(
    await tempRepo({ "a.txt": "one\n" }),
    () => [
      { tool: "read", target: "a.txt" },
      { waitFile: gate("one") },
      { tool: "read", target: "a.txt" },
      { waitFile: gate("two") },
      { answer: "It says one" },
    ],
    { clock, config: { stallAfter: "2m" } },
  );
  const seen: PitroomEvent[] = [];
  const done = t.engine.run({ task: "Read a.txt", mode: "read", worker: "opencode" }, {
    onEvent: (ev) => seen.push(ev),
  });
  const calls = () => seen.filter((e) => e.type === "worker.tool_call").length;
  await waitFor(() => calls() === 1, { timeoutMs: 20_000, what: "the first tool call" });
  const id = (await t.engine.list())[0]!.id;

  const messages: string[] = [];
  const extra = {
    signal: new AbortController().signal,
    _meta: { progressToken: "p1" },
    sendNotification(note: { params: { message?: string } }) {
      messages.push(note.params.message ?? "");
      return Promise.resolve();
    },
  } as unknown as CallExtra;
  const ctx = {
    engine: t.engine,
    dir: t.repo.path,
    clock,
    extra,
    connected: () => true,
    dashAddress: () => Promise.resolve(undefined),
  } as unknown as ToolContext;
  const following = followRuns(ctx, [id], { timeoutMs: 60 * MIN });
  /** One progress period passes; false (it is not what the wait is for). */
  const tick = async () => {
    await clock.advance(3_000);
    return false;
  };
  await waitFor(() => messages.length === 1, { timeoutMs: 10_000, what: "the first progress" });
  assert.match(messages[0]!, /^running · read · /);

  await clock.advance(2 * MIN);
  // The stall is told by the feed's check, the progress by a later tick of the call.
  await waitFor(async () => messages.some((m) => m.startsWith("stalled")) || await tick(), {
    timeoutMs: 10_000,
    what: "a progress saying the run stalled",
  });
  assert.match(messages.at(-1)!, /^stalled \(no event for 2m\) · read · .* · last: read a\.txt$/);

  await Deno.writeTextFile(gate("one"), "");
  await waitFor(() => calls() === 2, { timeoutMs: 20_000, what: "the worker to move on" });
  await waitFor(async () => messages.at(-1)!.startsWith("running") || await tick(), {
    timeoutMs: 10_000,
    what: "a progress saying it runs again",
  });
  await Deno.writeTextFile(gate("two"), "");
  assert.equal((await done).state, "done");
  const [report] = await following;
  assert.equal(report?.state, "done");
});
