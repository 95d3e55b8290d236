/**
 * The crew benchmark, with scripted workers (tests/crew/_fake_pitroom.ts: the real CLI and host,
 * every worker a `sh` script):
 *   (a) wall clock of N workers of latency L as one crew, against one such run measured here
 *       (sequential estimate = N x one run): the ratio sequential / parallel;
 *   (b) latency from a worker's event (the time Pitroom stamped on it) to the matching
 *       `watch --json` line read from the watch's stdout: p50 and p95;
 *   (c) Pitroom's own memory with 30 runs in flight: RSS of the host plus a `watch` and a
 *       `wait` following the crew (workers excluded), against 30 single-run processes.
 *
 *   deno run -P=pitroom benchmarks/crew/run.ts [--n 20] [--latency 5] [--memory-runs 30]
 *                                              [--repo DIR] [--only a]
 *
 * (a) runs in a git repository (the 31,000-file tree of benchmarks/tree/, kept in `--repo DIR`),
 * so each read run snapshots it as a user's would; `--only a` measures (a) alone.
 */
import { join } from "node:path";
import { parseArgs } from "node:util";
import { crewWorld, task } from "../../tests/crew/_world.ts";
import { readEventsFile } from "../../src/store/events_file.ts";
import type { WatchLine } from "../../src/engine/follow/watch_lines.ts";
import { checkFigures, NoFigure, quantile } from "../_figures.ts";
import { benchEnv, DEFAULT_SHAPE, ensureRepo } from "../tree/_generate.ts";

const args = parseArgs({
  args: Deno.args,
  options: {
    n: { type: "string", default: "20" },
    latency: { type: "string", default: "5" },
    "memory-runs": { type: "string", default: "30" },
    repo: { type: "string" },
    only: { type: "string" },
  },
});
const N = Number(args.values.n);
const L = Number(args.values.latency) * 1000;
const M = Number(args.values["memory-runs"]);

function ok(r: { code: number; stderr: string }, what: string): void {
  if (r.code !== 0) throw new Error(`${what} failed (${r.code}): ${r.stderr}`);
}

async function rssKb(pid: number): Promise<number> {
  const ps = await new Deno.Command("ps", { args: ["-o", "rss=", "-p", String(pid)] }).output();
  const kb = Number(new TextDecoder().decode(ps.stdout).trim());
  // A process already gone has no RSS: that is no measurement, not 0 MB.
  if (!ps.success || !(kb > 0)) throw new NoFigure(`no RSS for process ${pid}`);
  return kb;
}

/**
 * (a) runs in a real repository: the 31,000-file tree of benchmarks/tree/ (with `--repo DIR`, kept
 * there and reused), so every read run snapshots it before its worker, as a user's would.
 */
async function wallClock(): Promise<{ one: number; crew: number; repo: string }> {
  const scratch = args.values.repo === undefined
    ? await Deno.makeTempDir({ prefix: "pitroom-bench-crew-" })
    : null;
  try {
    const repo = args.values.repo ?? join(scratch!, "repo");
    const home = await Deno.makeTempDir({ prefix: "pitroom-bench-crew-home-" });
    await ensureRepo(repo, benchEnv(home), DEFAULT_SHAPE, (line) => console.error(line));
    await Deno.remove(home, { recursive: true });
    return { ...(await wallClockIn(repo)), repo };
  } finally {
    if (scratch !== null) await Deno.remove(scratch, { recursive: true }).catch(() => {});
  }
}

async function wallClockIn(repo: string): Promise<{ one: number; crew: number }> {
  await using w = await crewWorld({ maxParallel: 30 }, { work: repo });
  const step = [{ sleepMs: L }, { answer: "done" }];
  let t = performance.now();
  ok(await w.run(["crew", "-g", "one", task("one", step)]), "crew of one");
  ok(await w.run(["wait", "-g", "one", "--timeout", "120"]), "wait one");
  const one = performance.now() - t;
  const tasks = Array.from({ length: N }, (_, i) => task(`t${i}`, step));
  t = performance.now();
  ok(await w.run(["crew", "-g", "many", ...tasks]), "crew");
  ok(await w.run(["wait", "-g", "many", "--timeout", "300"]), "wait");
  return { one, crew: performance.now() - t };
}

async function latency(): Promise<number[]> {
  await using w = await crewWorld({ maxParallel: 30 });
  const steps = [{ sleepMs: 1500 }];
  for (let k = 0; k < 5; k++) {
    steps.push({ tool: "read", target: `f${k}` } as never, { sleepMs: 300 });
  }
  steps.push({ answer: "done" } as never);
  ok(
    await w.run([
      "crew",
      "-g",
      "lat",
      ...Array.from({ length: 10 }, (_, i) => task(`l${i}`, steps)),
    ]),
    "crew",
  );
  const watch = w.spawn(["watch", "-g", "lat", "--json", "--interval", "0"]);
  const arrivals: Array<{ at: number; line: WatchLine }> = [];
  let buffer = "";
  const decoder = new TextDecoder();
  for await (const chunk of watch.stdout) {
    const at = Date.now();
    buffer += decoder.decode(chunk, { stream: true });
    let nl;
    while ((nl = buffer.indexOf("\n")) >= 0) {
      arrivals.push({ at, line: JSON.parse(buffer.slice(0, nl)) });
      buffer = buffer.slice(nl + 1);
    }
  }
  await watch.status;
  await watch.stderr.cancel();
  // The k-th tool call of a run is the one a progress line with `tools: k` reports.
  const calls = new Map<string, number[]>();
  const gaps: number[] = [];
  for (const { at, line } of arrivals) {
    if (line.event !== "progress" || line.tools === 0) continue;
    if (!calls.has(line.run)) {
      const events = await readEventsFile(join(w.stateDir, "runs", line.run, "events.jsonl"));
      calls.set(
        line.run,
        events.filter((e) => e.type === "worker.tool_call").map((e) => e.time),
      );
    }
    const time = calls.get(line.run)![line.tools - 1];
    if (time === undefined) {
      throw new NoFigure(`run ${line.run} has no tool call ${line.tools}, its watch line says so`);
    }
    gaps.push(at - time);
  }
  return gaps;
}

async function memory(): Promise<{ hostKb: number; followersKb: number; singleKb: number }> {
  await using w = await crewWorld({ maxParallel: 30 });
  const never = join(w.dir, "never");
  const hang = [{ tool: "read", target: "x" }, { waitFile: never }, { answer: "done" }];
  // One process per run instead: a foreground run of its own, measured while it works.
  const release = join(w.dir, "release-single");
  const single = w.spawn([
    "run",
    task("single", [{ tool: "read", target: "x" }, { waitFile: release }, { answer: "done" }]),
  ]);
  let singleKb = 0;
  while (singleKb === 0) {
    await new Promise((r) => setTimeout(r, 200));
    const st = await w.run(["ls", "--json", "--running"]);
    const live = JSON.parse(st.stdout) as Array<{ progress: { tools: number } }>;
    if (live.some((r) => r.progress.tools > 0)) singleKb = await rssKb(single.pid);
  }
  await Deno.writeTextFile(release, "");
  await single.output();
  ok(
    await w.run(["crew", "-g", "mem", ...Array.from({ length: M }, (_, i) => task(`m${i}`, hang))]),
    "crew",
  );
  const watch = w.spawn(["watch", "-g", "mem", "--json"]);
  const wait = w.spawn(["wait", "-g", "mem", "--timeout", "300"]);
  const host = Number((await Deno.readTextFile(join(w.stateDir, "host", "pid"))).trim());
  // All runs in flight: every worker has started.
  for (;;) {
    const st = await w.run(["status", "-g", "mem", "--json"]);
    const records = JSON.parse(st.stdout) as Array<{ progress: { tools: number } }>;
    if (records.filter((r) => r.progress.tools > 0).length >= Math.min(M, 30)) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const hostKb = await rssKb(host);
  const followersKb = (await rssKb(watch.pid)) + (await rssKb(wait.pid));
  await Deno.writeTextFile(never, "");
  await Promise.all([watch.output(), wait.output()]);
  return { hostKb, followersKb, singleKb };
}

const a = await wallClock();
if (args.values.only === "a") {
  // Part (a) alone (`--only a`): the crew against one run, in the repository.
  const ratio = checkFigures({ crewOverOne: a.crew / a.one }).crewOverOne;
  console.log(
    `(a) ${N} read runs of ${L / 1000}s in ${a.repo}: one run ${(a.one / 1000).toFixed(2)}s, ` +
      `crew ${(a.crew / 1000).toFixed(2)}s: the crew takes ${ratio.toFixed(2)}x one run ` +
      `(target <= 1.15x for 10 of 3 s)`,
  );
  Deno.exit(0);
}
const b = await latency();
const c = await memory();
const seq = a.one * N;
const figures = checkFigures({
  speedup: seq / a.crew,
  crewOverOne: a.crew / a.one,
  p50: quantile(b, 0.5, "(b) event -> watch line"),
  p95: quantile(b, 0.95, "(b) event -> watch line"),
  ...c,
});
const mb = (kb: number) => (kb / 1024).toFixed(0);
console.log(
  `(a) ${N} workers of ${L / 1000}s: one run ${(a.one / 1000).toFixed(1)}s, crew ${
    (a.crew / 1000).toFixed(1)
  }s, ` +
    `sequential estimate ${(seq / 1000).toFixed(0)}s -> ${
      figures.speedup.toFixed(1)
    }x faster (target >= 18x for 20 of 5 s); the crew takes ${
      figures.crewOverOne.toFixed(2)
    }x one run (target <= 1.15x for 10 read runs of 3 s), in the git repository ${a.repo}`,
);
console.log(
  `(b) event -> watch --json line: p50 ${figures.p50}ms, p95 ${figures.p95}ms over ${b.length} lines (target p50 <= 100ms)`,
);
console.log(
  `(c) ${M} runs in flight: host ${mb(c.hostKb)} MB + watch and wait ${mb(c.followersKb)} MB = ${
    mb(c.hostKb + c.followersKb)
  } MB (target <= 300 MB); ` +
    `one process per run would be ${M} x ${mb(c.singleKb)} MB = ${mb(M * c.singleKb)} MB`,
);
