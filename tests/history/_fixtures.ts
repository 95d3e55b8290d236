/**
 * Run folders for history tests, written with the store's own functions: a finished record, its
 * events file (compressed, as a finished run leaves it) and its patch.
 */
import { event, type OutcomeClass, type PitroomEvent } from "../../src/events/mod.ts";
import { newRunId } from "../../src/engine/core/ids.ts";
import { statePaths } from "../../src/store/paths.ts";
import {
  emptyProgress,
  type Isolation,
  type Receipt,
  RECORD_SCHEMA,
  type RunRecord,
} from "../../src/store/record.ts";
import { createRunDir, writeRecord } from "../../src/store/runs.ts";
import type { Mode, WorkerName } from "../../src/workers/types.ts";
import { realClock } from "../../src/sys/real.ts";

/** What a fake finished run is made of. */
export interface FakeRun {
  task: string;
  /** When it ended (ms). */
  endedAt: number;
  durationMs?: number;
  outcome?: OutcomeClass;
  mode?: Mode;
  worker?: WorkerName;
  model?: string;
  group?: string;
  answer?: string;
  tokens?: { input: number; output: number; cached?: number; reasoning?: number };
  receipt?: { workerCost: number; primaryCost: number; returnedTokens: number };
  /** Attempts before the last one, with how they ended. */
  before?: { worker: WorkerName; model?: string; outcome: OutcomeClass }[];
  tools?: { kind: "read" | "search" | "edit" | "shell"; target: string; error?: string }[];
  texts?: string[];
  patch?: string;
  isolation?: Isolation;
  state?: RunRecord["state"];
}

let counter = 0;

/** The record of a fake finished run. */
export function fakeRecord(run: FakeRun): RunRecord {
  const duration = run.durationMs ?? 1000;
  const startedAt = run.endedAt - duration;
  const id = newRunId({
    clock: { ...realClock, now: () => startedAt },
    randomHex: () => (counter++ % 65536).toString(16).padStart(4, "0"),
  });
  const outcome = run.outcome ?? "ok";
  const worker = run.worker ?? "opencode";
  const t = run.tokens ?? { input: 100, output: 10 };
  const tokens = {
    input: t.input,
    output: t.output,
    cached: t.cached ?? 0,
    reasoning: t.reasoning ?? 0,
  };
  const attempts = [
    ...(run.before ?? []).map((a) => ({
      worker: a.worker,
      ...(a.model ? { model: a.model } : {}),
      startedAt,
      endedAt: startedAt,
      outcome: a.outcome,
    })),
    {
      worker,
      ...(run.model ? { model: run.model } : {}),
      startedAt,
      endedAt: run.endedAt,
      outcome,
    },
  ];
  const receipt: Receipt | undefined = run.receipt && {
    tokens,
    returnedTokens: run.receipt.returnedTokens,
    compression: null,
    workerCost: run.receipt.workerCost,
    workerCostSource: "price-table",
    primary: "sonnet",
    primaryCost: run.receipt.primaryCost,
    saved: run.receipt.primaryCost - run.receipt.workerCost,
  };
  const ok = outcome === "ok";
  return {
    schemaVersion: RECORD_SCHEMA,
    id,
    state: run.state ?? (ok ? "done" : "problem"),
    mode: run.mode ?? "read",
    task: run.task,
    cwd: "/tmp/project",
    repoRoot: "/tmp/project",
    chain: [{ worker, ...(run.model ? { model: run.model } : {}) }],
    web: false,
    timeoutMs: 60_000,
    createdAt: startedAt,
    startedAt,
    endedAt: run.endedAt,
    attempts,
    progress: { ...emptyProgress(), steps: 1, tools: run.tools?.length ?? 0, tokens },
    outcome,
    exit: ok ? 0 : 1,
    ...(run.group ? { group: run.group } : {}),
    ...(run.answer ? { answer: run.answer } : {}),
    ...(ok ? {} : { message: `The worker ended ${outcome}` }),
    ...(receipt ? { receipt } : {}),
    ...(run.isolation ? { isolation: run.isolation } : {}),
    ...(run.patch
      ? {
        changes: {
          before: { tree: "t0", head: null, bareDirs: [], ignored: [] },
          after: "t1",
          files: [{
            path: "a.txt",
            status: "modified" as const,
            added: 1,
            removed: 1,
            binary: false,
          }],
        },
      }
      : {}),
  };
}

/** The events of a fake run. */
export function fakeEvents(record: RunRecord, run: FakeRun): PitroomEvent[] {
  const t = record.startedAt ?? record.createdAt;
  return [
    event("run.started", t, { run: record.id, worker: "opencode", mode: record.mode, attempt: 1 }),
    ...(run.texts ?? []).map((text) => event("worker.text", t + 1, { text })),
    ...(run.tools ?? []).map((tool) =>
      event("worker.tool_call", t + 2, {
        tool: tool.kind,
        kind: tool.kind,
        target: tool.target,
        status: tool.error ? "error" : "ok",
        ...(tool.error ? { error: tool.error } : {}),
      })
    ),
    ...(record.answer ? [event("worker.answer", t + 3, { text: record.answer })] : []),
    event("run.finished", record.endedAt!, {
      run: record.id,
      state: record.state as "done",
      outcome: record.outcome!,
      exit: record.exit!,
    }),
  ];
}

async function gzip(text: string): Promise<Uint8Array> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream("gzip"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** Writes a fake finished run's folder; returns its record. */
export async function writeFakeRun(stateDir: string, run: FakeRun): Promise<RunRecord> {
  const paths = statePaths(stateDir);
  const record = fakeRecord(run);
  await createRunDir(paths, record.id);
  await writeRecord(paths, record);
  const lines = fakeEvents(record, run).map((e) => JSON.stringify(e) + "\n").join("");
  await Deno.writeFile(paths.run(record.id).eventsGz, await gzip(lines));
  if (run.patch) await Deno.writeTextFile(paths.run(record.id).patch, run.patch);
  return record;
}
