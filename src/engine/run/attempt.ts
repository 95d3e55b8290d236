/**
 * One attempt: one target of the chain runs the task. Describes the launch through the backend,
 * runs it through the process shell, tees the raw stream, parses it into the event union, keeps
 * progress, and classifies the end.
 */
import type { SandboxSetting } from "../../confine/sandbox/mod.ts";
import type { HeldSys } from "../../store/state.ts";
import { join } from "../../sys/path.ts";
import { event, type PitroomEvent, type WorkerEvent } from "../../events/mod.ts";
import type { RunPaths } from "../../store/paths.ts";
import type { Hidden, Progress } from "../../store/record.ts";
import type { Backend, Mode, Outcome, ProcessEnd } from "../../workers/types.ts";
import { gather, type Gathered } from "./progress.ts";
import { type Launched, type Launcher, localLauncher } from "./launcher.ts";
import { timingMark } from "../../sys/timing.ts";

/** What an attempt needs. */
export interface AttemptInput {
  backend: Backend;
  runId: string;
  attempt: number;
  mode: Mode;
  prompt: string;
  cwd: string;
  model?: string;
  effort?: string;
  web: boolean;
  sessionId?: string;
  timeoutMs: number;
  /** Usage a CLI with cumulative session counts (codex) reported before this run. */
  priorUsage?: Record<string, number>;
  stop?: AbortSignal;
  progress: Progress;
  /** An isolate run: its `--link` folders, and whether links leading out are allowed. */
  isolation?: { links: readonly string[]; allowLinks: boolean };
  /** The tree's secret-looking files (absolute) the sandbox hides from the worker. */
  secrets?: readonly string[];
  /** The run's sandbox setting (as frozen when it was created). */
  sandbox: SandboxSetting;
  /** Where the worker runs: here (the default) or on a configured host. */
  launcher?: Launcher;
}

/** What an attempt produced. */
export interface AttemptResult {
  outcome: Outcome;
  /** The launcher lost its worker (a dropped connection): the run ends lost. */
  lost?: boolean;
  end: ProcessEnd;
  events: WorkerEvent[];
  answer?: string;
  sessionId?: string;
  /** The session's cumulative usage at the end, for CLIs that count per session. */
  sessionTotals?: Record<string, number>;
  /** The sandbox the worker ran in (`none` without one). */
  sandbox: string;
  /** The worker reported the tokens it used (a `worker.tokens` event came). */
  tokensReported: boolean;
  /** What the report should say about how the worker ran (no sandbox, links leading out). */
  notes: string[];
  /** What the sandbox hid from the worker besides Pitroom's own state. */
  hidden?: Hidden;
  /** The folders the sandbox let the worker write (real paths); null without a sandbox. */
  writable: string[] | null;
}

/** Callbacks an attempt reports through. */
export interface AttemptSink {
  /** Every event of the union, in order (the caller writes the events file). */
  emit(ev: PitroomEvent): void;
  /** Progress changed (the caller throttles record writes). */
  progressed(progress: Progress): void;
  spawned(pid: number): void;
  /**
   * Told, before the worker is spawned, which folders its sandbox lets it write (null: all, no
   * sandbox); the spawn waits for it (a read run walks its ignored files then: workspace.ts).
   */
  beforeSpawn?(writable: readonly string[] | null): Promise<void>;
}

/** Runs one attempt to its end. */
export async function runAttempt(
  sys: HeldSys,
  paths: RunPaths,
  input: AttemptInput,
  sink: AttemptSink,
): Promise<AttemptResult> {
  const privateDir = join(paths.private, `attempt-${input.attempt}`);
  await Deno.mkdir(privateDir, { recursive: true, mode: 0o700 });
  const state = input.backend.newState();
  if (input.priorUsage) state.scratch.priorUsage = input.priorUsage;
  const events: WorkerEvent[] = [];
  const gathered: Gathered = { progress: input.progress, texts: [] };
  const stream = await Deno.open(paths.stream, { create: true, append: true, mode: 0o600 });
  const stderrLog = await Deno.open(paths.stderr, { create: true, append: true, mode: 0o600 });
  const encoder = new TextEncoder();
  const take = (evs: WorkerEvent[]) => {
    for (const raw of evs) {
      const ev = relativeTarget(raw, input.cwd);
      events.push(ev);
      sink.emit(ev);
      gather(gathered, ev);
      sink.progressed(gathered.progress);
    }
  };
  let launched: Launched;
  try {
    launched = await (input.launcher ?? localLauncher).run(sys, {
      backend: input.backend,
      runId: input.runId,
      mode: input.mode,
      prompt: input.prompt,
      cwd: input.cwd,
      privateDir,
      web: input.web,
      sandbox: input.sandbox,
      ...(input.model === undefined ? {} : { model: input.model }),
      ...(input.effort === undefined ? {} : { effort: input.effort }),
      ...(input.sessionId === undefined ? {} : { sessionId: input.sessionId }),
      ...(input.secrets === undefined ? {} : { secrets: input.secrets }),
      ...(input.isolation === undefined ? {} : { isolation: input.isolation }),
    }, {
      timeoutMs: input.timeoutMs,
      ...(input.stop === undefined ? {} : { stop: input.stop }),
      onSpawn: (pid) => {
        timingMark(sys, "spawned");
        sink.spawned(pid);
      },
      ...(sink.beforeSpawn === undefined ? {} : { beforeSpawn: sink.beforeSpawn }),
      onStdoutLine(line, at) {
        stream.writeSync(encoder.encode(line + "\n"));
        take(input.backend.parse(line, state, at));
      },
      onStreamLine(line) {
        stream.writeSync(encoder.encode(line + "\n"));
      },
      onHeard: take,
      onStderrLine(line, at) {
        stderrLog.writeSync(encoder.encode(line + "\n"));
        take(input.backend.parseStderr(line, state, at));
      },
    });
  } finally {
    stream.close();
    stderrLog.close();
  }
  const { end, notes, hidden, writable } = launched;
  // A launcher that lost its worker (a dropped connection) says so: the run ends lost.
  const outcome = end.lost !== undefined
    ? { class: "failed" as const, message: end.lost }
    : input.backend.classify(end, events);
  const answer = gathered.answer ?? (outcome.class === "ok" ? gathered.texts.at(-1) : undefined);
  if (outcome.class !== "ok") {
    sink.emit(event("worker.error", sys.clock.now(), { message: outcome.message }));
  }
  return {
    outcome,
    ...(end.lost === undefined ? {} : { lost: true }),
    end,
    events,
    sandbox: launched.sandbox,
    tokensReported: events.some((e) => e.type === "worker.tokens"),
    notes,
    writable,
    ...(hidden === undefined ? {} : { hidden }),
    ...(answer === undefined ? {} : { answer }),
    ...(gathered.sessionId === undefined ? {} : { sessionId: gathered.sessionId }),
    ...(isCounts(state.scratch.usageTotals) ? { sessionTotals: state.scratch.usageTotals } : {}),
  };
}

function isCounts(value: unknown): value is Record<string, number> {
  return typeof value === "object" && value !== null &&
    Object.values(value).every((v) => typeof v === "number");
}

/** Shows paths inside the run's directory relative to it (`src/a.ts`, not `/home/.../src/a.ts`). */
function relativeTarget(ev: WorkerEvent, cwd: string): WorkerEvent {
  if (ev.type !== "worker.tool_call") return ev;
  const prefix = cwd.endsWith("/") ? cwd : cwd + "/";
  if (!ev.target.includes(prefix)) return ev;
  return { ...ev, target: ev.target.split(prefix).join("") };
}
