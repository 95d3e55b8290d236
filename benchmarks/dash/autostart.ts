/**
 * What the dashboard's auto-start costs a run: the wall time of the same long run with the live
 * view off (`PITROOM_DASH=0`) and on, interleaved round by round, medians and the ratio on/off.
 * The real CLI and host with the scripted worker (tests/crew/_fake_pitroom.ts), a read run in a
 * plain folder (no snapshot), a worker that works `--latency` seconds (past the 3 s after which a
 * run is worth a live view):
 *
 * - `run` (foreground): off; on with no dashboard running (the run starts one: the worst case);
 *   on again right after (the first one's dashboard reused).
 * - `run --bg`: the time until it returns, off and on with none running.
 * - a crew of `--crew` read runs + `wait -g`: off and on with none running.
 *
 *   deno run -P=pitroom benchmarks/dash/autostart.ts [--rounds 5] [--latency 4] [--crew 10]
 *     [--cases fg,bg,crew]
 *
 * Every dashboard a round starts is stopped before the next (`pitroom dash --stop`), and any left
 * at the end is ended. Exit 1 when a figure could not be computed or on/off is over 1.05.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { crewWorld, type Result, task } from "../../tests/crew/_world.ts";
import { checkFigures, machine, median, positive } from "../_figures.ts";

const args = parseArgs({
  args: Deno.args,
  options: {
    rounds: { type: "string", default: "5" },
    latency: { type: "string", default: "4" },
    crew: { type: "string", default: "10" },
    cases: { type: "string", default: "fg,bg,crew" },
  },
});
const CASES = new Set(args.values.cases!.split(","));
const ROUNDS = positive("rounds", args.values.rounds!);
const LATENCY_MS = Number(args.values.latency) * 1000;
const CREW = positive("crew", args.values.crew!);
/** The most on/off may be: the dashboard must not delay a run. */
const TARGET = 1.05;

const load = Deno.loadavg();
await using w = await crewWorld({});
const step = [{ sleepMs: LATENCY_MS }, { answer: "done" }];

function ok(r: Result, what: string): Result {
  if (r.code !== 0) throw new Error(`${what} failed (${r.code}): ${r.stderr}`);
  return r;
}

/** Runs pitroom with the live view on or off. */
async function pitroom(args: string[], dash: boolean): Promise<Result> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--quiet",
      "--no-prompt",
      `--config=${new URL("../../deno.json", import.meta.url).pathname}`,
      "-P=pitroom",
      new URL("../../tests/crew/_fake_pitroom.ts", import.meta.url).pathname,
      ...args,
    ],
    cwd: w.dir,
    env: { ...w.env, PITROOM_DASH: dash ? "1" : "0", DENO_DIR: Deno.env.get("DENO_DIR") ?? "" },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  });
  const out = await child.output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const t = performance.now();
  await fn();
  return performance.now() - t;
}

async function dashPid(): Promise<number | null> {
  try {
    return JSON.parse(await Deno.readTextFile(join(w.stateDir, "dash.json"))).pid ?? null;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/** Stops the running dashboard, if any (not timed). */
async function stopDashboard(): Promise<void> {
  ok(await pitroom(["dash", "--stop"], true), "dash --stop");
}

/** `pitroom dash` processes of this world (their working directory is its work dir; Linux). */
async function dashProcesses(): Promise<number[]> {
  const ps = await new Deno.Command("ps", { args: ["-eo", "pid=,stat=,args="] }).output();
  const found: number[] = [];
  for (const line of new TextDecoder().decode(ps.stdout).split("\n")) {
    const [pid, stat] = line.trim().split(/\s+/);
    if (!line.includes("_fake_pitroom.ts dash") || stat?.startsWith("Z")) continue;
    const cwd = await new Deno.Command("readlink", { args: [`/proc/${pid}/cwd`] }).output();
    if (new TextDecoder().decode(cwd.stdout).trim() === w.dir) found.push(Number(pid));
  }
  return found;
}

/**
 * Stops the dashboard an "on" case started, once whatever was started to serve one has decided
 * (only the recorded dashboard, or none, left twice in a row; bounded): the next round starts
 * with none running.
 */
async function settle(): Promise<void> {
  const until = Date.now() + 30_000;
  for (let calm = 0; calm < 2;) {
    if (Date.now() > until) throw new Error("a dashboard start did not settle");
    const recorded = await dashPid();
    calm = (await dashProcesses()).every((pid) => pid === recorded) ? calm + 1 : 0;
    await new Promise((r) => setTimeout(r, 300));
  }
  await stopDashboard();
}

let n = 0;
const label = () => `t${n++}`;
const fg = (dash: boolean) => () =>
  pitroom(["run", "-r", task(label(), step)], dash).then((r) => ok(r, "run"));
const bg = (dash: boolean) => async () => {
  const r = ok(await pitroom(["run", "--bg", "-r", task(label(), step)], dash), "run --bg");
  return r.stdout.trim();
};
const crew = (dash: boolean) => async () => {
  const group = label();
  const tasks = Array.from({ length: CREW }, (_, i) => task(`${group}-${i}`, step));
  ok(await pitroom(["crew", "-r", "-g", group, ...tasks], dash), "crew");
  ok(await pitroom(["wait", "-g", group, "--brief", "--timeout", "300"], dash), "wait");
};

const times: Record<string, number[]> = {};
const add = (k: string, ms: number) => (times[k] ??= []).push(ms);
// A warm-up round: the module cache, the state dir.
await fg(false)();
for (let round = 0; round < ROUNDS; round++) {
  if (CASES.has("fg")) {
    add("fgOff", await timed(fg(false)));
    await stopDashboard();
    add("fgFirst", await timed(fg(true)));
    add("fgLive", await timed(fg(true)));
    await settle();
  }
  if (CASES.has("bg")) {
    let id = "";
    add("bgOff", await timed(async () => (id = await bg(false)())));
    ok(await pitroom(["wait", id], false), "wait");
    add("bgFirst", await timed(async () => (id = await bg(true)())));
    ok(await pitroom(["wait", id], false), "wait");
    await settle();
  }
  if (CASES.has("crew")) {
    add("crewOff", await timed(crew(false)));
    add("crewFirst", await timed(crew(true)));
    await settle();
  }
}
const pid = await dashPid();
if (pid !== null) await stopDashboard();

const m = (k: string) => Math.round(median(times[k]!, k));
const ratio = (on: string, off: string) => Math.round((m(on) / m(off)) * 1000) / 1000;
const result = checkFigures({
  rounds: ROUNDS,
  latencyMs: LATENCY_MS,
  crew: CREW,
  medianMs: Object.fromEntries(Object.keys(times).map((k) => [k, m(k)])),
  ratios: Object.fromEntries<number>(
    ([["fgFirst", "fgOff"], ["fgLive", "fgOff"], ["bgFirst", "bgOff"], [
      "crewFirst",
      "crewOff",
    ]] as const).filter(([on]) => on in times).map(([on, off]) => [on, ratio(on, off)]),
  ),
  samplesMs: times,
  machine: machine(load),
});
console.log(JSON.stringify(result, null, 2));
const missed = Object.entries(result.ratios).filter(([, r]) => r > TARGET);
if (missed.length > 0) {
  console.error(`on/off over ${TARGET}: ${missed.map(([k, r]) => `${k} ${r}`).join(", ")}`);
  Deno.exitCode = 1;
}
