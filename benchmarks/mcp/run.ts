/**
 * The MCP benchmark: what a `pitroom_run` call adds over the engine doing the same run, the same
 * run through the CLI, and how long an event of a run takes to reach a subscriber as
 * `notifications/resources/updated`. Everything is measured in this one process, interleaved
 * (engine, MCP, CLI, engine, ...), against one scripted model server. See README.md.
 *
 *   deno task bench:mcp [--runs N] [--worker codex] [--json] [--out FILE]
 */
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import type { RunReport } from "../../src/engine/mod.ts";
import { pitroom } from "../../tests/support/pitroom.ts";
import { ResourceUpdatedNotificationSchema } from "../../tests/server/mcp/_sdk.ts";
import { engineOf, stdioClient, world } from "../../tests/server/mcp/_world.ts";
import { checkFigures, median, samples } from "../_figures.ts";
import { measureTasks, taskLines } from "./tasks.ts";

const DEFAULT_OUT = fileURLToPath(new URL("./results/latest.json", import.meta.url));

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

async function bench(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    options: {
      runs: { type: "string", default: "10" },
      worker: { type: "string", default: "codex" },
      json: { type: "boolean", default: false },
      out: { type: "string", default: DEFAULT_OUT },
    },
  });
  const runs = Number(values.runs);
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`--runs wants a positive integer`);
  const worker = values.worker;
  const model = worker === "claude" || worker === "gemini" ? "trivial" : "fake/trivial";
  const log = (line: string) => console.error(line);
  const loadavgBefore = Deno.loadavg();

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

  const viaEngine = async (): Promise<RunReport> => {
    const started = await engine.start(request);
    return (await engine.wait({ runs: started.ids }))[0]!;
  };
  const viaMcp = async (): Promise<RunReport> => {
    const result = await c.client.callTool({ name: "pitroom_run", arguments: request });
    if (result.isError) throw new Error(`pitroom_run failed: ${JSON.stringify(result.content)}`);
    return (result.structuredContent as { runs: RunReport[] }).runs[0]!;
  };
  const viaCli = async (): Promise<RunReport> => {
    const out = await pitroom(["run", "-W", worker, "-m", model, "--json", request.task], {
      env: { PATH: Deno.env.get("PATH") ?? "", ...w.env },
      cwd: w.repo,
    });
    if (out.code !== 0) throw new Error(`pitroom run failed (${out.code}): ${out.stderr}`);
    return JSON.parse(out.stdout);
  };
  const time = async (side: Side, fn: () => Promise<RunReport>, record: boolean) => {
    const start = performance.now();
    const report = await fn();
    const ms = performance.now() - start;
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
    const id = (started.structuredContent as { runs: RunReport[] }).runs[0]!.id;
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
  const result = {
    schemaVersion: 1,
    date: new Date().toISOString(),
    command: `deno task bench:mcp ${argv.join(" ")}`.trim(),
    machine: {
      nproc: navigator.hardwareConcurrency,
      loadavgBefore: loadavgBefore.map((n) => round(n)),
      loadavgAfter: Deno.loadavg().map((n) => round(n)),
      os: Deno.build.os,
    },
    deno: Deno.version.deno,
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
  };
  checkFigures(result);
  await Deno.mkdir(new URL("./results/", import.meta.url), { recursive: true });
  await Deno.writeTextFile(values.out, JSON.stringify(result, null, 2) + "\n");
  if (values.json) console.log(JSON.stringify(result, null, 2));
  else {
    const o = result.overhead;
    console.log(
      [
        `runs of ${result.worker}, ${runs} rounds, medians (outside = call time minus the run's own time)`,
        `  engine start+wait: call ${result.engine.callMedianMs} ms, outside ${result.engine.outsideMedianMs} ms`,
        `  MCP pitroom_run (stdio): call ${result.mcp.callMedianMs} ms, outside ${result.mcp.outsideMedianMs} ms -> +${o.mcpOverEngineMs} ms over the engine (target <= ${TARGETS.overheadMs})`,
        `  CLI pitroom run: call ${result.cli.callMedianMs} ms, outside ${result.cli.outsideMedianMs} ms -> +${o.cliOverEngineMs} ms over the engine`,
        `  event -> notification: p50 ${result.notify.p50Ms} ms, p95 ${result.notify.p95Ms} ms over ${result.notify.samples} events (target p50 <= ${TARGETS.notifyP50Ms})`,
        ...taskLines(tasks),
        `written to ${values.out}`,
      ].join("\n"),
    );
  }
  return 0;
}

if (import.meta.main) Deno.exitCode = await bench(Deno.args);
