/**
 * Generated run folders for the history benchmark: finished records written with src/store (as a
 * supervisor leaves them), a compressed events file with the worker's steps, and a patch for one
 * run in ten. Text is drawn from a fixed vocabulary with a skewed (Zipf-like) frequency, from a
 * seeded generator, so every machine indexes the same corpus.
 */
import { gzipSync } from "node:zlib";
import { event, type PitroomEvent } from "../../src/events/mod.ts";
import { statePaths } from "../../src/store/paths.ts";
import { emptyProgress, RECORD_SCHEMA, type RunRecord } from "../../src/store/record.ts";

/** A small seeded generator (mulberry32). */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SYLLABLES = [
  "ka",
  "lo",
  "mi",
  "ret",
  "ry",
  "pol",
  "icy",
  "sess",
  "ion",
  "log",
  "in",
  "par",
  "ser",
  "con",
  "fig",
  "buf",
  "fer",
  "hand",
  "ler",
  "cache",
  "sync",
  "task",
  "queue",
  "slot",
  "tree",
  "diff",
  "patch",
  "graph",
  "node",
  "edge",
  "auth",
  "token",
  "route",
  "schema",
  "field",
  "event",
];

/** The vocabulary: 5,000 made-up words; word i is drawn with weight 1 / (i + 1). */
export function vocabulary(): string[] {
  const rand = random(7);
  const words = new Set<string>();
  while (words.size < 5000) {
    const n = 2 + Math.floor(rand() * 3);
    let w = "";
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(rand() * SYLLABLES.length)];
    words.add(w);
  }
  return [...words];
}

/** Draws words with a Zipf-like skew. */
export function wordSource(words: string[], rand: () => number): (n: number) => string {
  const cumulative: number[] = [];
  let total = 0;
  for (let i = 0; i < words.length; i++) cumulative.push(total += 1 / (i + 1));
  const pick = () => {
    const x = rand() * total;
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return words[lo]!;
  };
  return (n) => Array.from({ length: n }, pick).join(" ");
}

const WORKERS = [
  ["opencode", "opencode/big-pickle"],
  ["opencode", "openrouter/qwen3-coder:free"],
  ["codex", "gpt-5.5"],
  ["claude", "sonnet"],
  ["gemini", "gemini-2.5-flash"],
] as const;
const OUTCOMES = [
  "ok",
  "ok",
  "ok",
  "ok",
  "ok",
  "ok",
  "ok",
  "failed",
  "rate_limited",
  "timeout",
] as const;
const KINDS = ["read", "read", "read", "search", "list", "shell", "edit"] as const;

/** Writes `count` finished runs, one minute apart, ending now; returns their ids. */
export function generateRuns(stateDir: string, count: number, now: number): string[] {
  const paths = statePaths(stateDir);
  Deno.mkdirSync(paths.runs, { recursive: true });
  const rand = random(42);
  const words = wordSource(vocabulary(), rand);
  const ids: string[] = [];
  const pad = (n: number) => String(n).padStart(2, "0");
  for (let i = 0; i < count; i++) {
    const start = now - (count - i) * 60_000;
    const d = new Date(start);
    const id = `${d.getFullYear()}${pad(d.getMonth() + 1)}${pad(d.getDate())}-${pad(d.getHours())}${
      pad(d.getMinutes())
    }${pad(d.getSeconds())}-${(i % 65536).toString(16).padStart(4, "0")}`;
    const [worker, model] = WORKERS[Math.floor(rand() * WORKERS.length)]!;
    const outcome = OUTCOMES[Math.floor(rand() * OUTCOMES.length)]!;
    const ended = start + 5_000 + Math.floor(rand() * 300_000);
    const tokens = {
      input: 2_000 + Math.floor(rand() * 400_000),
      output: 100 + Math.floor(rand() * 5_000),
      cached: Math.floor(rand() * 200_000),
      reasoning: Math.floor(rand() * 2_000),
    };
    const steps = 3 + Math.floor(rand() * 12);
    const events: PitroomEvent[] = [
      event("run.started", start, { run: id, worker, model, mode: "read", attempt: 1 }),
    ];
    for (let s = 0; s < steps; s++) {
      const kind = KINDS[Math.floor(rand() * KINDS.length)]!;
      events.push(event("worker.tool_call", start + s, {
        tool: kind,
        kind,
        target: kind === "shell" ? `deno task ${words(2)}` : `src/${words(1)}/${words(1)}.ts`,
        status: rand() < 0.05 ? "error" : "ok",
      }));
      if (rand() < 0.3) events.push(event("worker.text", start + s, { text: words(20) }));
    }
    const ok = outcome === "ok";
    const answer = ok ? words(60) : undefined;
    const workerCost = worker === "opencode" ? 0 : tokens.input * 1e-6;
    const primaryCost = tokens.input * 3e-6 + tokens.output * 15e-6;
    const record: RunRecord = {
      schemaVersion: RECORD_SCHEMA,
      id,
      state: ok ? "done" : "problem",
      mode: "read",
      task: words(12),
      cwd: "/home/user/project",
      repoRoot: "/home/user/project",
      ...(i % 7 === 0 ? { group: `g${i % 50}` } : {}),
      chain: [{ worker, model }],
      web: false,
      timeoutMs: 1_800_000,
      createdAt: start,
      startedAt: start,
      endedAt: ended,
      attempts: [{ worker, model, startedAt: start, endedAt: ended, outcome }],
      progress: { ...emptyProgress(), steps, tools: steps, tokens },
      outcome,
      exit: ok ? 0 : 1,
      ...(answer ? { answer } : { message: `The worker ended ${outcome}` }),
      receipt: {
        tokens,
        returnedTokens: answer ? Math.ceil(answer.length / 4) : 0,
        compression: null,
        workerCost,
        workerCostSource: worker === "opencode" ? "free" : "price-table",
        primary: "sonnet",
        primaryCost,
        saved: primaryCost - workerCost,
      },
    };
    const run = paths.run(id);
    Deno.mkdirSync(run.dir);
    Deno.writeTextFileSync(run.record, JSON.stringify(record, null, 2) + "\n");
    const lines = events.map((e) => JSON.stringify(e)).join("\n") + "\n";
    Deno.writeFileSync(run.eventsGz, gzipSync(lines));
    if (i % 10 === 0) {
      Deno.writeTextFileSync(
        run.patch,
        `diff --git a/src/x.ts b/src/x.ts\n--- a/src/x.ts\n+++ b/src/x.ts\n@@ -1 +1 @@\n-${
          words(8)
        }\n+${words(8)}\n`,
      );
    }
    ids.push(id);
  }
  return ids;
}
