/**
 * The live view of long runs, with the real CLI as processes (the fake worker): a foreground run
 * still going after a few seconds starts the dashboard and its report ends with the address; a
 * quick run starts nothing; a long background run gets one, and the next `--bg` run is told its
 * address at once; `"dash": false` (or `PITROOM_DASH=0`) turns it off. Every dashboard started
 * is stopped by the test.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { crewWorld, task } from "../../crew/_world.ts";
import { createEngine } from "../../../src/engine/mod.ts";
import { ensureDashboard } from "../../../src/server/dash/detach.ts";
import { readDashRecord } from "../../../src/server/dash/record.ts";
import { liveViewForBackground } from "../../../src/cli/live_view.ts";
import { testSys } from "../../support/sys.ts";
import { tempDir, waitFor } from "../../support/temp.ts";

/** The status of opening `address` as a new browser. */
async function opens(address: string): Promise<number> {
  const res = await fetch(address);
  await res.body?.cancel();
  return res.status;
}

async function liveWorld(config: Record<string, unknown> = {}) {
  const w = await crewWorld(config);
  // The test support turns the live view off for every other test.
  w.env.PITROOM_DASH = "1";
  const dashPid = async () =>
    JSON.parse(await Deno.readTextFile(join(w.stateDir, "dash.json")).catch(() => "{}")).pid as
      | number
      | undefined;
  return {
    ...w,
    gate: (name: string) => join(w.dir, name),
    release: (name: string) => Deno.writeTextFile(join(w.dir, name), ""),
    /** The recorded dashboard once it answers. */
    async dashboard(): Promise<{ address: string; pid: number }> {
      let found: { address: string; pid: number } | undefined;
      await waitFor(async () => {
        const record = JSON.parse(
          await Deno.readTextFile(join(w.stateDir, "dash.json")).catch(() => "null"),
        );
        if (record === null) return false;
        const res = await fetch(`${record.address}api/health`).catch(() => null);
        if (res === null) return false;
        found = { address: record.address, pid: (await res.json()).pid };
        return true;
      }, { timeoutMs: 30_000, what: "the dashboard to start" });
      return found!;
    },
    async [Symbol.asyncDispose]() {
      const pid = await dashPid();
      if (pid !== undefined) {
        const out = await w.run(["dash", "--stop"]);
        assert.equal(out.code, 0, out.stderr);
      }
      await w[Symbol.asyncDispose]();
    },
  };
}

Deno.test("a foreground run still going after a few seconds starts the dashboard; its report has the address", async () => {
  await using w = await liveWorld();
  const child = w.spawn([
    "run",
    task("Take a while", [{ waitFile: w.gate("go") }, { answer: "done" }]),
  ]);
  const dash = await w.dashboard();
  await w.release("go");
  const out = await child.output();
  const stdout = new TextDecoder().decode(out.stdout);
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const id = /Live view of every run: ((http:\/\/127\.0\.0\.1:\d+\/)\?token=\S+)#(\S+)/.exec(
    stdout,
  );
  assert.ok(id, stdout);
  assert.equal(id[2], dash.address);
  assert.equal((await w.record(id[3]!)).outcome, "ok");
  // The address opens the dashboard, once; the one on stderr (while it ran) is another.
  assert.equal(await opens(id[1]!), 200);
  assert.equal(await opens(id[1]!), 401);
  const during = /Live view of every run: (\S+)#/.exec(new TextDecoder().decode(out.stderr));
  assert.ok(during, new TextDecoder().decode(out.stderr));
  assert.notEqual(during[1], id[1]);
  assert.equal(await opens(during[1]!), 200);
});

Deno.test("a quick run starts no dashboard and says nothing of one", async () => {
  await using w = await liveWorld();
  const out = await w.run(["run", "--json", task("Quick", [{ answer: "done" }])]);
  assert.equal(out.code, 0, out.stderr);
  assert.equal("dashboard" in JSON.parse(out.stdout), false);
  await assert.rejects(Deno.stat(join(w.stateDir, "dash.json")), Deno.errors.NotFound);
});

Deno.test("--bg: a long background run gets a dashboard; the next is told its address at once", async () => {
  await using w = await liveWorld();
  const first = await w.run([
    "run",
    "--bg",
    task("Slow", [{ waitFile: w.gate("a") }, { answer: "a" }]),
  ]);
  assert.equal(first.code, 0, first.stderr);
  assert.doesNotMatch(first.stderr, /Live view/);
  const dash = await w.dashboard();
  const second = await w.run([
    "run",
    "--bg",
    "--json",
    task("Also slow", [{ waitFile: w.gate("b") }, { answer: "b" }]),
  ]);
  assert.equal(second.code, 0, second.stderr);
  const started = JSON.parse(second.stdout);
  assert.ok(started.dashboard.startsWith(`${dash.address}?token=`), started.dashboard);
  assert.equal(await opens(started.dashboard), 200);
  const third = await w.run([
    "run",
    "--bg",
    task("Slow too", [{ waitFile: w.gate("c") }, { answer: "c" }]),
  ]);
  const line = new RegExp(`Live view of every run: (${dash.address}\\?token=\\S+)#`).exec(
    third.stderr,
  );
  assert.ok(line, third.stderr);
  assert.equal(await opens(line[1]!), 200);
  for (const gate of ["a", "b", "c"]) await w.release(gate);
  const ids = [first.stdout.trim(), started.id, third.stdout.trim()];
  const waited = await w.run(["wait", "--brief", ...ids]);
  assert.equal(waited.code, 0, waited.stderr);
});

Deno.test("a crew still going after a few seconds starts the dashboard too", async () => {
  await using w = await liveWorld();
  const crew = await w.run([
    "crew",
    "--json",
    task("One", [{ answer: "quick" }]),
    task("Two", [{ waitFile: w.gate("two") }, { answer: "slow" }]),
  ]);
  assert.equal(crew.code, 0, crew.stderr);
  const { group, runs } = JSON.parse(crew.stdout);
  const dash = await w.dashboard();
  const next = await w.run(["crew", "--json", "-g", group, task("Three", [{ answer: "3" }])]);
  const address = JSON.parse(next.stdout).dashboard;
  assert.ok(address.startsWith(`${dash.address}?token=`), address);
  assert.equal(await opens(address), 200);
  await w.release("two");
  const waited = await w.run(["wait", "--brief", ...runs, ...JSON.parse(next.stdout).runs]);
  assert.equal(waited.code, 0, waited.stderr);
});

Deno.test('"dash": false in the config, or PITROOM_DASH=0, turns the live view off', async () => {
  await using state = await tempDir("pitroom-dash-off-");
  const config = join(state.path, "config.json");
  await Deno.writeTextFile(config, JSON.stringify({ dash: false }));
  const off = testSys({ stateDir: state.path, env: { PITROOM_CONFIG: config, PITROOM_DASH: "" } });
  assert.equal(await ensureDashboard(off), undefined);
  assert.equal(await liveViewForBackground(off, ["20200101-000000-abcd"]), undefined);
  await Deno.writeTextFile(config, JSON.stringify({ dash: true }));
  const env = testSys({ stateDir: state.path, env: { PITROOM_CONFIG: config, PITROOM_DASH: "0" } });
  assert.equal(await ensureDashboard(env), undefined);
  assert.equal(await liveViewForBackground(env, ["20200101-000000-abcd"]), undefined);
  assert.equal(await readDashRecord(env), null);
  const loaded = await createEngine(env).settings();
  assert.deepEqual(loaded.settings.dash, { value: false, source: "env" });
});
