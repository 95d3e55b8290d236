/**
 * The MCP benchmark's task part: what serving a `pitroom_run` as a task (the 2026-07-28 Tasks
 * extension) costs against the same call served plainly, both from a 2026-07-28 client to one
 * long-running `pitroom mcp` on stdio, interleaved (plain, task, plain, ...), medians:
 *
 * - plain: `tools/call` without the extension, waiting for the run (`waitSeconds`);
 * - task: `tools/call` with the extension (the handle comes back at once), then `tasks/get`
 *   every `POLL_MS` until `completed` (the result is the plain call's).
 *
 * Each side's time outside the run (call to answer minus the run's own time, as in run.ts) gives
 * the overhead; the handle's latency and one `tasks/get`'s are reported too. A real client polls
 * at the task's `pollIntervalMs` (1 s): the wait for its next poll is the client's choice and not
 * counted here (the benchmark polls every `POLL_MS`). `run.ts` runs this part; alone:
 *
 *   deno run -P=pitroom benchmarks/mcp/tasks.ts [--runs N] [--worker codex]
 */
import { parseArgs } from "node:util";
import type { RunReport } from "../../src/engine/mod.ts";
import { modernStdio, type Response } from "../../tests/server/mcp/_modern.ts";
import { type World, world } from "../../tests/server/mcp/_world.ts";
import { median } from "../_figures.ts";

/** How often the benchmark asks `tasks/get` (tight, so the poll interval hides no cost). */
export const POLL_MS = 10;

const round = (n: number) => Math.round(n * 10) / 10;

/** The run's own time: from its record's creation to its end. */
function runMs(report: RunReport): number {
  return (report.endedAt ?? report.createdAt) - report.createdAt;
}

/** What `measureTasks` found. */
export interface TaskFigures {
  rounds: number;
  plain: { callMedianMs: number; outsideMedianMs: number };
  task: {
    handleMedianMs: number;
    getMedianMs: number;
    gets: number;
    endMedianMs: number;
    outsideMedianMs: number;
  };
  taskOverPlainMs: number;
}

function result(r: Response, what: string): Response["result"] {
  if (r.error !== undefined) throw new Error(`${what}: ${JSON.stringify(r.error)}`);
  return r.result;
}

/** Times `rounds` plain and task-served runs of `request` (round 0 warms up). */
export async function measureTasks(
  w: World,
  request: Record<string, unknown>,
  rounds: number,
  log: (line: string) => void = () => {},
): Promise<TaskFigures> {
  await using c = await modernStdio(w);
  const plain = { callMs: [] as number[], outsideMs: [] as number[] };
  const task = {
    handleMs: [] as number[],
    getMs: [] as number[],
    endMs: [] as number[],
    outsideMs: [] as number[],
  };
  const checked = (report: RunReport) => {
    if (report.outcome !== "ok") throw new Error(`run ${report.id} ended ${report.outcome}`);
    return report;
  };
  for (let i = 0; i <= rounds; i++) {
    const record = i > 0;
    let start = performance.now();
    const answered = result(
      await c.request("tools/call", {
        name: "pitroom_run",
        arguments: { ...request, waitSeconds: 600 },
      }),
      "plain pitroom_run",
    );
    let ms = performance.now() - start;
    const report = checked(answered.structuredContent.runs[0]);
    if (record) {
      plain.callMs.push(ms);
      plain.outsideMs.push(ms - runMs(report));
    }

    start = performance.now();
    const created = result(
      await c.request("tools/call", { name: "pitroom_run", arguments: request }, { tasks: true }),
      "task pitroom_run",
    );
    const handleMs = performance.now() - start;
    let done = created;
    const gets: number[] = [];
    if (created.resultType === "task") {
      while (done.status !== "completed") {
        if (done.status === "failed" || done.status === "cancelled") {
          throw new Error(`task ${done.status}: ${JSON.stringify(done)}`);
        }
        await new Promise((r) => setTimeout(r, POLL_MS));
        const asked = performance.now();
        done = result(
          await c.request("tasks/get", { taskId: created.taskId }, { tasks: true }),
          "tasks/get",
        );
        gets.push(performance.now() - asked);
      }
      done = done.result;
    }
    ms = performance.now() - start;
    const taskReport = checked(done.structuredContent.runs[0]);
    if (record) {
      task.handleMs.push(handleMs);
      task.getMs.push(...gets);
      task.endMs.push(ms);
      task.outsideMs.push(ms - runMs(taskReport));
    }
    log(`  tasks round ${i}${record ? "" : " (warm-up)"} done`);
  }
  const plainOutside = median(plain.outsideMs, "plain outside");
  const taskOutside = median(task.outsideMs, "task outside");
  return {
    rounds,
    plain: {
      callMedianMs: round(median(plain.callMs, "plain call")),
      outsideMedianMs: round(plainOutside),
    },
    task: {
      handleMedianMs: round(median(task.handleMs, "task handle")),
      getMedianMs: round(median(task.getMs, "tasks/get")),
      gets: task.getMs.length,
      endMedianMs: round(median(task.endMs, "task end")),
      outsideMedianMs: round(taskOutside),
    },
    taskOverPlainMs: round(taskOutside - plainOutside),
  };
}

/** The figures as lines for a person. */
export function taskLines(f: TaskFigures): string[] {
  return [
    `  2026-07-28 plain pitroom_run (stdio): call ${f.plain.callMedianMs} ms, outside ${f.plain.outsideMedianMs} ms`,
    `  2026-07-28 pitroom_run as a task: handle ${f.task.handleMedianMs} ms, tasks/get ${f.task.getMedianMs} ms (${f.task.gets} asked), to the result ${f.task.endMedianMs} ms, outside ${f.task.outsideMedianMs} ms -> +${f.taskOverPlainMs} ms over the plain call (polling every ${POLL_MS} ms)`,
  ];
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      runs: { type: "string", default: "10" },
      worker: { type: "string", default: "codex" },
    },
  });
  const worker = values.worker;
  const model = worker === "claude" || worker === "gemini" ? "trivial" : "fake/trivial";
  await using w = await world({
    trivial: { turns: [{ answer: "The answer is 42.", usage: { input: 1200, output: 8 } }] },
  });
  const figures = await measureTasks(
    w,
    { task: "What is the answer?", worker, model },
    Number(values.runs),
    (line) => console.error(line),
  );
  console.log(taskLines(figures).join("\n"));
}
