/**
 * The shapes the page reads from the dashboard's API, as the page needs them. The page type-checks
 * with the DOM library only, so it cannot import the engine's modules; tests/ui/api_types_test.ts
 * fails to type-check when the engine's shapes stop fitting these.
 */

/** Token counts. */
export interface Tokens {
  input: number;
  output: number;
  cached: number;
  reasoning: number;
}

/** A worker and model. */
export interface Target {
  worker: string;
  model?: string;
}

/** A changed file of a run. */
export interface ChangedFile {
  path: string;
  status: "added" | "modified" | "deleted";
  added: number;
  removed: number;
  binary: boolean;
}

/** A run's state. */
export type RunState = "queued" | "running" | "done" | "problem" | "lost";

/** A run's report (the fields the page reads). */
export interface RunReport {
  id: string;
  state: RunState;
  mode: "read" | "write" | "isolate";
  task: string;
  group?: string;
  chain: Target[];
  effort?: string;
  verifyCommand?: string;
  createdAt: number;
  startedAt?: number;
  endedAt?: number;
  attempts: Array<
    Target & { startedAt: number; endedAt?: number; outcome?: string; message?: string }
  >;
  progress: {
    steps: number;
    tools: number;
    last?: string;
    denied?: number;
    tokens: Tokens;
    cost?: number;
  };
  outcome?: string;
  exit?: number;
  message?: string;
  answer?: string;
  changes?: { files: ChangedFile[] };
  notes?: string[];
  receipt?: { tokens: Tokens; saved: number; primary: string };
}

type Ev<T extends string, F> = { type: T; time: number } & F;

/** The events the page reads (others pass through unread). */
export type PitroomEvent =
  | Ev<
    "worker.tool_call",
    {
      tool: string;
      kind: string;
      target: string;
      status: "ok" | "error" | "denied";
      error?: string;
    }
  >
  | Ev<"worker.denied", { tool: string; message: string }>
  | Ev<"worker.text", { text: string }>
  | Ev<"worker.error", { message: string }>
  | Ev<"worker.tokens", Tokens & { cost?: number }>
  | Ev<"run.queued", { run: string; position: number }>
  | Ev<
    "run.started",
    { run: string; worker: string; model?: string; mode: string; attempt: number }
  >
  | Ev<
    "run.progress",
    { run: string; steps: number; tools: number; denied?: number; last?: string; tokens: Tokens }
  >
  | Ev<"run.skipped", { run: string; target: string; until: number }>
  | Ev<"run.fallback", { run: string; from: string; to: string; reason: string; message: string }>
  | Ev<
    "run.finished",
    {
      run: string;
      state: RunState;
      outcome: string;
      exit: number;
      message?: string;
      changed?: string[];
    }
  >
  | Ev<"run.lost", { run: string; reason: string }>
  | Ev<
    "worker.session" | "worker.step" | "worker.reasoning" | "worker.answer" | "worker.unknown",
    Record<never, never>
  >;

/** One history hit. */
export interface SearchHit {
  id: string;
  createdAt: number;
  endedAt: number | null;
  durationMs: number | null;
  task: string;
  worker: string | null;
  model: string | null;
  mode: string;
  group: string | null;
  state: string;
  outcome: string | null;
  changedFiles: number;
  saved: number | null;
  message: string | null;
  snippet?: string;
}

/** Figures of a set of runs. */
export interface StatsRow {
  label: string;
  runs: number;
  ok: number;
  problems: number;
  limited: number;
  successRate: number | null;
  totalMs: number;
  avgMs: number;
  tokens: Tokens;
  workerCost: number;
  saved: number;
}

/** The stats of a period. */
export interface Stats {
  total: StatsRow;
  targets: StatsRow[];
  days: StatsRow[];
}
