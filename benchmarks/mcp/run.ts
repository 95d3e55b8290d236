/**
 * The MCP benchmark: what each tool's result hands a client (bytes and tokens, beside what main
 * handed before issue 30: results/sizes-main.json), what a `pitroom_run` call adds over the
 * engine doing the same run, the same run through the CLI, and how long an event of a run takes
 * to reach a subscriber as `notifications/resources/updated`. The timings are measured in this
 * one process, interleaved (engine, MCP, CLI, engine, ...), against one scripted model server.
 * See README.md.
 *
 *   deno task bench:mcp [--runs N] [--worker codex] [--only sizes|timing] [--json] [--out FILE]
 */
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { RunReport } from "../../src/engine/mod.ts";
import { pitroom } from "../../tests/support/pitroom.ts";
import { ResourceUpdatedNotificationSchema } from "../../tests/server/mcp/_sdk.ts";
import { engineOf, stdioClient, world } from "../../tests/server/mcp/_world.ts";
import { checkFigures, median, samples } from "../_figures.ts";
import { measureSizes, type Sizes, sizesTable } from "./sizes.ts";
import { measureTasks, taskLines } from "./tasks.ts";

const DEFAULT_OUT = fileURLToPath(new URL("./results/latest.json", import.meta.url));
const BASELINE = new URL("./results/sizes-main.json", import.meta.url);

/** What main handed before issue 30, by client and tool (null when the file is not there). */
async function baseline(): Promise<Sizes | null> {
  try {
    return (JSON.parse(await Deno.readTextFile(BASELINE)) as { sizes: Sizes }).sizes;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/** The targets of issue 14. */
export const TARGETS = { overheadMs: 30, notifyP50Ms: 50 } as const;

/** The events whose notification is timed (the server notifies on state changes). */
const STATE_EVENTS = new Set([
  "run.queued",
  "run.started",
  "run.fallback",
  "run.finished",
  "run.lost",
]);

/** The nearest-rank percentile (p of 100); no samples is an error (_figures.ts). */
function percentile(values: number[], p: number, what: string): number {
  const sorted = [...samples(values, what)].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

const round = (n: number) => Math.round(n * 10) / 10;

/** One side's samples: the whole call, and the part outside the run (call minus run time). */
interface Side {
  callMs: number[];
  outsideMs: number[];
}

function sideSummary(side: Side, name: string) {
  return {
    callMedianMs: round(median(side.callMs, `${name} call`)),
    outsideMedianMs: round(median(side.outsideMs, `${name} outside`)),
    outsideSamplesMs: side.outsideMs.map(round),
  };
}

/** The run's own time: from its record's creation to its end. */
function runMs(report: RunReport): number {
  return (report.endedAt ?? report.createdAt) - report.createdAt;
}

/** The timing rounds: engine, MCP and CLI runs side by side, and notification latency. */
async function timing(runs: number, worker: string, log: (line: string) => void) {
  const model = worker === "claude" || worker === "gemini" ? "trivial" : "fake/trivial";
  await using w = await world({
    trivial: { turns: [{ answer: "The answer is 42.", usage: { input: 1200, output: 8 } }] },
  });
  const engine = engineOf(w);
  await using c = await stdioClient(w);
  const request = { task: "What is the answer?", worker, model };

  // Every notification's arrival, by resource.
  const arrivals: { uri: string; at: number }[] = [];
  const awaited = new Map<string, () => void>();
  c.client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    arrivals.push({ uri: n.params.uri, at: Date.now() });
    awaited.get(n.params.uri)?.();
  });

  const sides: Record<"engine" | "mcp" | "cli", Side> = {
    engine: { callMs: [], outsideMs: [] },
    mcp: { callMs: [], outsideMs: [] },
    cli: { callMs: [], outsideMs: [] },
  };
  const latencies: { event: string; ms: number }[] = [];

  // Each side gives the run's id; its report is read after the clock stopped.
  const viaEngine = async (): Promise<string> => {
    const started = await engine.start(request);
    return (await engine.wait({ runs: started.ids }))[0]!.id;
  };
  const viaMcp = async (): Promise<string> => {
    const result = await c.client.callTool({ name: "pitroom_run", arguments: request });
    if (result.isError) throw new Error(`pitroom_run failed: ${JSON.stringify(result.content)}`);
    return (result.structuredContent as { runs: { id: string }[] }).runs[0]!.id;
  };
  const viaCli = async (): Promise<string> => {
    const out = await pitroom(["run", "-W", worker, "-m", model, "--json", request.task], {
      env: { PATH: Deno.env.get("PATH") ?? "", ...w.env },
      cwd: w.repo,
    });
    if (out.code !== 0) throw new Error(`pitroom run failed (${out.code}): ${out.stderr}`);
    return (JSON.parse(out.stdout) as RunReport).id;
  };
  const time = async (side: Side, fn: () => Promise<string>, record: boolean) => {
    const start = performance.now();
    const id = await fn();
    const ms = performance.now() - start;
    const report = await engine.get(id);
    if (report.outcome !== "ok") throw new Error(`run ${report.id} ended ${report.outcome}`);
    if (record) {
      side.callMs.push(ms);
      side.outsideMs.push(ms - runMs(report));
    }
  };

  /** A background run followed through its resource: each state event against its notification. */
  const notifyRound = async () => {
    const started = await c.client.callTool({
      name: "pitroom_run",
      arguments: { ...request, waitSeconds: 0 },
    });
    const id = (started.structuredContent as { runs: { id: string }[] }).runs[0]!.id;
    const uri = `pitroom://run/${id}`;
    const from = arrivals.length;
    const subscribedAt = Date.now();
    await c.client.subscribeResource({ uri });
    await engine.wait({ runs: [id] });
    // The final event's notification may still be on its way.
    const final = (await engine.events(id)).findLast((e) => e.type === "run.finished")!;
    if (!arrivals.slice(from).some((a) => a.uri === uri && a.at >= final.time)) {
      const came = Promise.withResolvers<void>();
      awaited.set(uri, came.resolve);
      const timer = setTimeout(() => came.reject(new Error(`no notification for ${uri}`)), 10_000);
      await came.promise.finally(() => clearTimeout(timer));
      awaited.delete(uri);
    }
    await c.client.unsubscribeResource({ uri });
    const events = (await engine.events(id)).filter((e) =>
      STATE_EVENTS.has(e.type) && e.time >= subscribedAt
    );
    const mine = arrivals.slice(from).filter((a) => a.uri === uri);
    // Each notification answers the latest state event written before it arrived.
    for (const ev of events) {
      const arrival = mine.find((a) => a.at >= ev.time);
      if (arrival !== undefined) latencies.push({ event: ev.type, ms: arrival.at - ev.time });
    }
  };

  log(`mcp bench: ${runs} rounds of engine, MCP (stdio) and CLI runs on ${worker} ${model}`);
  for (let i = 0; i <= runs; i++) {
    const record = i > 0; // round 0 warms up
    await time(sides.engine, viaEngine, record);
    await time(sides.mcp, viaMcp, record);
    await time(sides.cli, viaCli, record);
    if (record) await notifyRound();
    log(`  round ${i}${record ? "" : " (warm-up)"} done`);
  }

  // The task part (tasks.ts): a 2026-07-28 client's plain call against the same run as a task.
  const tasks = await measureTasks(w, request, runs, log);

  const engineOutside = median(sides.engine.outsideMs, "engine outside");
  return {
    worker: `${worker} ${model}`,
    rounds: runs,
    targets: TARGETS,
    engine: sideSummary(sides.engine, "engine"),
    mcp: sideSummary(sides.mcp, "mcp"),
    cli: sideSummary(sides.cli, "cli"),
    overhead: {
      mcpOverEngineMs: round(median(sides.mcp.outsideMs, "mcp outside") - engineOutside),
      cliOverEngineMs: round(median(sides.cli.outsideMs, "cli outside") - engineOutside),
    },
    notify: {
      samples: latencies.length,
      p50Ms: round(percentile(latencies.map((l) => l.ms), 50, "notifications")),
      p95Ms: round(percentile(latencies.map((l) => l.ms), 95, "notifications")),
      byEvent: Object.fromEntries(
        [...new Set(latencies.map((l) => l.event))].map((type) => {
          const ms = latencies.filter((l) => l.event === type).map((l) => l.ms);
          return [type, { samples: ms.length, p50Ms: round(percentile(ms, 50, type)) }];
        }),
      ),
    },
    tasks,
  };
}

type Timing = Awaited<ReturnType<typeof timing>>;

function timingLines(t: Timing): string[] {
  const o = t.overhead;
  return [
    `runs of ${t.worker}, ${t.rounds} rounds, medians (outside = call time minus the run's own time)`,
    `  engine start+wait: call ${t.engine.callMedianMs} ms, outside ${t.engine.outsideMedianMs} ms`,
    `  MCP pitroom_run (stdio): call ${t.mcp.callMedianMs} ms, outside ${t.mcp.outsideMedianMs} ms -> +${o.mcpOverEngineMs} ms over the engine (target <= ${TARGETS.overheadMs})`,
    `  CLI pitroom run: call ${t.cli.callMedianMs} ms, outside ${t.cli.outsideMedianMs} ms -> +${o.cliOverEngineMs} ms over the engine`,
    `  event -> notification: p50 ${t.notify.p50Ms} ms, p95 ${t.notify.p95Ms} ms over ${t.notify.samples} events (target p50 <= ${TARGETS.notifyP50Ms})`,
    ...taskLines(t.tasks),
  ];
}

async function bench(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: "string", default: "10" },
      worker: { type: "string", default: "codex" },
      json: { type: "boolean", default: false },
      out: { type: "string", default: DEFAULT_OUT },
      only: { type: "string" },
    },
  });
  if (values.only !== undefined && !["sizes", "timing"].includes(values.only)) {
    throw new Error(`--only wants sizes or timing, got "${values.only}"`);
  }
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs wants a positive integer`);
  const log = (line: string) => console.error(line);
  const loadavgBefore = Deno.loadavg();

  const main = await baseline();
  const sizes = values.only === "timing" ? undefined : await measureSizes(log);
  const timed = values.only === "sizes" ? undefined : await timing(runs, values.worker, log);
  const result = {
    schemaVersion: 2,
    date: new Date().toISOString(),
    command: `deno task bench:mcp ${argv.join(" ")}`.trim(),
    machine: {
      nproc: navigator.hardwareConcurrency,
      loadavgBefore: loadavgBefore.map((n) => round(n)),
      loadavgAfter: Deno.loadavg().map((n) => round(n)),
      os: Deno.build.os,
    },
    deno: Deno.version.deno,
    ...(sizes === undefined ? {} : { sizes, sizesOnMain: main }),
    ...(timed ?? {}),
  };
  checkFigures(result);
  await Deno.mkdir(new URL("./results/", import.meta.url), { recursive: true });
  await Deno.writeTextFile(values.out, JSON.stringify(result, null, 2) + "\n");
  if (values.json) console.log(JSON.stringify(result, null, 2));
  else {
    console.log(
      [
        ...(sizes === undefined ? [] : [
          `result sizes per tool${main === null ? "" : ", beside main's before issue 30"}`,
          ...sizesTable(sizes, main),
        ]),
        ...(timed === undefined ? [] : timingLines(timed)),
        `written to ${values.out}`,
      ].join("\n"),
    );
  }
  return 0;
}

if (import.meta.main) Deno.exitCode = await bench(Deno.args);
