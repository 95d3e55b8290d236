/**
 * The live view of long runs, with the real CLI as processes (the fake worker): a foreground run
 * still going after a few seconds starts the dashboard and its report ends with the address; a
 * quick run starts nothing; a long background run gets one, and the next `--bg` run is told its
 * address at once; `"dash": false` (or `PITROOM_DASH=0`) turns it off. Every dashboard started
 * is stopped by the test.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { crewWorld, fakePitroomArgv, processesWith, task } from "../../crew/_world.ts";
import { moduleCacheEnv } from "../../support/pitroom.ts";
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

/** The parent of process `pid`. */
async function parentOf(pid: number): Promise<number> {
  const ps = await new Deno.Command("ps", { args: ["-o", "ppid=", "-p", String(pid)] }).output();
  return Number(new TextDecoder().decode(ps.stdout).trim());
}

/** True while `pid` is a process that has not ended (a zombie has ended). */
async function alive(pid: number): Promise<boolean> {
  const out = await new Deno.Command("ps", { args: ["-o", "stat=", "-p", String(pid)] }).output();
  const stat = new TextDecoder().decode(out.stdout).trim();
  return stat !== "" && !stat.startsWith("Z");
}

/** Live `dash` processes of the program under test started in `dir` (Linux: /proc). */
async function dashProcesses(dir: string): Promise<number[]> {
  const found: number[] = [];
  for (const line of await processesWith("_fake_pitroom.ts dash")) {
    const pid = Number(line.trim().split(/\s+/)[0]);
    const cwd = await new Deno.Command("readlink", { args: [`/proc/${pid}/cwd`] }).output();
    if (new TextDecoder().decode(cwd.stdout).trim() === dir) found.push(pid);
  }
  return found;
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

Deno.test("a foreground run still going after a few seconds starts the dashboard; the address is said once, with the report", async () => {
  await using w = await liveWorld();
  const child = w.spawn([
    "run",
    task("Take a while", [{ waitFile: w.gate("go") }, { answer: "done" }]),
  ]);
  const dash = await w.dashboard();
  await w.release("go");
  const out = await child.output();
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  const id = /Live view of every run: ((http:\/\/127\.0\.0\.1:\d+\/)\?token=\S+)#(\S+)/.exec(
    stdout,
  );
  assert.ok(id, stdout);
  assert.equal(id[2], dash.address);
  assert.equal((await w.record(id[3]!)).outcome, "ok");
  // Said once: not on stderr too (no terminal there: an agent's shell reads both).
  assert.equal(`${stdout}${stderr}`.match(/Live view/g)?.length, 1, `${stdout}${stderr}`);
  // The address opens the dashboard, once.
  assert.equal(await opens(id[1]!), 200);
  assert.equal(await opens(id[1]!), 401);
});

Deno.test("--json: the address is the report's dashboard, and nothing on stderr says it", async () => {
  await using w = await liveWorld();
  const child = w.spawn([
    "run",
    "--json",
    task("Take a while", [{ waitFile: w.gate("go") }, { answer: "done" }]),
  ]);
  const dash = await w.dashboard();
  await w.release("go");
  const out = await child.output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, stderr);
  const report = JSON.parse(new TextDecoder().decode(out.stdout));
  assert.ok(report.dashboard.startsWith(`${dash.address}?token=`), report.dashboard);
  assert.doesNotMatch(stderr, /Live view|127\.0\.0\.1/);
  assert.equal(await opens(report.dashboard), 200);
});

Deno.test("on a terminal the address is said once, as soon as the dashboard serves", async () => {
  await using w = await liveWorld();
  const [cmd, ...rest] = fakePitroomArgv();
  const line = [
    cmd!,
    ...rest,
    "run",
    task("Take a while", [
      { waitFile: w.gate("go") },
      { answer: "done" },
    ]),
  ].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
  // `script` gives the run a terminal (stdout and stderr) and copies what it shows.
  const child = new Deno.Command("script", {
    args: ["-qfec", line, "/dev/null"],
    cwd: w.dir,
    env: { ...moduleCacheEnv(), ...w.env, TERM: "dumb" },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let shown = "";
  const reading = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      shown += value;
    }
  })();
  const dash = await w.dashboard();
  // Said while the run is still going.
  await waitFor(() => shown.includes("Live view of every run"), {
    timeoutMs: 30_000,
    what: "the address on the terminal while the run goes on",
  });
  assert.match(shown, new RegExp(`Live view of every run: ${dash.address}\\?token=\\S+#\\d{8}-`));
  await w.release("go");
  const [status] = await Promise.all([child.status, reading, new Response(child.stderr).text()]);
  assert.equal(status.code, 0, shown);
  assert.match(shown, /done/);
  assert.equal(shown.match(/Live view/g)?.length, 1, shown);
});

Deno.test("a run that ends as soon as it launched the dashboard leaves it serving", async () => {
  await using w = await liveWorld();
  const child = w.spawn([
    "run",
    task("Ends at once", [{ waitFile: w.gate("go") }, { answer: "done" }]),
  ]);
  // The run ends while its dashboard still starts (held stopped meanwhile): nobody is there to
  // read what the dashboard says once it goes on.
  let pids: number[] = [];
  await waitFor(async () => (pids = await dashProcesses(w.dir)).length > 0, {
    timeoutMs: 30_000,
    what: "the dashboard's process",
  });
  for (const pid of pids) Deno.kill(pid, "SIGSTOP");
  try {
    await w.release("go");
    const out = await child.output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  } finally {
    for (const pid of pids) Deno.kill(pid, "SIGCONT");
  }
  const dash = await w.dashboard();
  assert.deepEqual([dash.pid], pids);
  assert.equal(await alive(dash.pid), true);
});

Deno.test("two long runs at once start one dashboard, and both say its address", async () => {
  await using w = await liveWorld();
  const children = ["a", "b"].map((gate) =>
    w.spawn(["run", "--json", task(`Slow ${gate}`, [{ waitFile: w.gate(gate) }, { answer: gate }])])
  );
  const dash = await w.dashboard();
  // Both launched one (or found it); the one that lost the start lock ended after saying the
  // winner's address.
  await waitFor(async () => (await dashProcesses(w.dir)).length === 1, {
    timeoutMs: 30_000,
    what: "one dashboard process left",
  });
  assert.deepEqual(await dashProcesses(w.dir), [dash.pid]);
  await w.release("a");
  await w.release("b");
  for (const child of children) {
    const out = await child.output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    const report = JSON.parse(new TextDecoder().decode(out.stdout));
    assert.ok(report.dashboard?.startsWith(`${dash.address}?token=`), report.dashboard);
  }
});

Deno.test("PITROOM_DASH=0: a long run launches nothing and says nothing", async () => {
  await using w = await liveWorld();
  w.env.PITROOM_DASH = "0";
  const child = w.spawn(["run", task("Slow", [{ sleepMs: 4_000 }, { answer: "done" }])]);
  const out = await child.output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const all = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  assert.doesNotMatch(all, /Live view/);
  assert.deepEqual(await dashProcesses(w.dir), []);
  await assert.rejects(Deno.stat(join(w.stateDir, "dash.json")), Deno.errors.NotFound);
});

Deno.test("the dashboard does not stop for being idle while a run is going; once none is, it does", async () => {
  await using w = await liveWorld();
  const run = await w.run([
    "run",
    "--bg",
    task("Slow", [{ waitFile: w.gate("go") }, { answer: "a" }]),
  ]);
  assert.equal(run.code, 0, run.stderr);
  const detached = await w.run(["dash", "--detach", "--json", "--idle", "1s"]);
  assert.equal(detached.code, 0, detached.stderr);
  const { pid } = JSON.parse(detached.stdout);
  // Three idle times pass without a request while the run waits for its gate (what is tested
  // is time itself).
  const since = Date.now();
  await waitFor(() => Date.now() - since > 3_000, { timeoutMs: 10_000, what: "3 s" });
  assert.equal(await alive(pid), true, "the dashboard stopped while a run was going");
  await w.release("go");
  assert.equal((await w.run(["wait", run.stdout.trim()])).code, 0);
  await waitFor(async () => !(await alive(pid)), {
    timeoutMs: 20_000,
    what: "the dashboard to stop once no run is going",
  });
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
  // The host started it (the command that started the run had ended): off the run's path.
  const host = Number(await Deno.readTextFile(join(w.stateDir, "host", "pid")));
  assert.equal(await parentOf(dash.pid), host);
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
  assert.equal(await liveViewForBackground(off), undefined);
  await Deno.writeTextFile(config, JSON.stringify({ dash: true }));
  const env = testSys({ stateDir: state.path, env: { PITROOM_CONFIG: config, PITROOM_DASH: "0" } });
  assert.equal(await ensureDashboard(env), undefined);
  assert.equal(await liveViewForBackground(env), undefined);
  assert.equal(await readDashRecord(env), null);
  const loaded = await createEngine(env).settings();
  assert.deepEqual(loaded.settings.dash, { value: false, source: "env" });
});
