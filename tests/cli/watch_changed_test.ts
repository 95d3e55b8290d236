/**
 * `pitroom watch -g NAME` follows a group while one of its runs has ended: when that run is
 * applied (from another command) the watch says so at once, a `changed` line in `--json`, a card
 * line in `--brief`, and goes on until the rest ends. The fake worker, the command in this process.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { watchCommand } from "../../src/cli/watch.ts";
import type { WATCH_FLAGS } from "../../src/cli/watch_command.ts";
import type { CommandRun } from "../../src/cli/command.ts";
import { engineWorld } from "../support/engine_world.ts";
import { testSys } from "../support/sys.ts";
import { tempDir, tempRepo, waitFor } from "../support/temp.ts";

type Flags = Parameters<CommandRun<typeof WATCH_FLAGS>>[0]["flags"];

Deno.test("watch -g says when a run that ended is applied while the others go on", async () => {
  await using gates = await tempDir("pitroom-gates-");
  const gate = join(gates.path, "go");
  await using w = await engineWorld(
    await tempRepo({ "a.txt": "one\n" }),
    (spec) =>
      spec.prompt.includes("[wait]")
        ? [{ tool: "read", target: "a.txt" }, { waitFile: gate }, { answer: "Waited." }]
        : [{ writeFile: "b.txt", content: "worker\n" }, { answer: "Added b.txt." }],
  );
  const group = "crew";
  const done = await w.engine.run({
    task: "Add b.txt",
    mode: "isolate",
    worker: "opencode",
    group,
  });
  const going = w.engine.run({ task: "Take your time [wait]", worker: "opencode", group });
  await waitFor(async () => (await w.engine.list()).some((r) => r.state === "running"), {
    timeoutMs: 20_000,
    what: "the second run to start",
  });

  const watch = (flags: Partial<Flags>) => {
    const sys = testSys({ stateDir: w.sys.stateDir, cwd: w.repo.path });
    const exit = watchCommand({ sys, flags: { group, interval: 0, ...flags } as Flags, args: [] });
    return { sys, exit };
  };
  const json = watch({ json: true });
  const brief = watch({ brief: true });
  for (const { sys } of [json, brief]) {
    await waitFor(() => sys.stdoutText().includes(done.id), {
      timeoutMs: 10_000,
      what: "the snapshot",
    });
  }

  await w.engine.apply(done.id);
  const changed = `{"event":"changed","run":"${done.id}","by":"apply","work":"applied"}`;
  await waitFor(() => json.sys.stdoutText().includes(changed), {
    timeoutMs: 10_000,
    what: "the changed line",
  });
  await waitFor(
    () => brief.sys.stdoutText().includes(`↺ ${done.id} changed by apply · now applied`),
    {
      timeoutMs: 10_000,
      what: "the changed card line",
    },
  );

  await Deno.writeTextFile(gate, "");
  assert.equal((await going).state, "done");
  assert.equal(await json.exit, 0);
  assert.equal(await brief.exit, 0);
  assert.match(json.sys.stdoutText(), /"event":"all-done","runs":2,"ok":2/);
});
