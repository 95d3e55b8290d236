/**
 * `pitroom eval QUESTIONS.json [-W WORKER]... [-t DUR] [--json]`: scores workers on bounded
 * questions (engine.eval) and prints one row per worker (score, per kind, failures, median time
 * and tokens) and the failed or missed questions under the table; `--json` prints the result.
 */
import { createEngine, type EvalResult } from "../engine/mod.ts";
import { formatTokens, QUESTION_KINDS } from "../engine/present.ts";
import { formatDuration } from "../sys/duration.ts";
import { UsageError } from "../sys/errors.ts";
import type { CommandRun } from "./command.ts";
import type { EVAL_FLAGS } from "./eval_command.ts";
import { printJson, table } from "./output.ts";
import { safeLine } from "./safe.ts";

function points(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(2).replace(/0$/, "");
}

/** The text of an eval's result (pure). */
export function renderEval(result: EvalResult): string {
  const head = ["WORKER", "SCORE", ...QUESTION_KINDS.map((k) => k.toUpperCase()), "FAILURES"];
  const rows = [[...head, "MEDIAN TIME", "MEDIAN TOKENS"]];
  for (const row of result.workers) {
    rows.push([
      row.worker,
      `${points(row.score)}/${row.max}`,
      ...QUESTION_KINDS.map((k) =>
        row.byKind[k].max === 0 ? "-" : `${points(row.byKind[k].score)}/${row.byKind[k].max}`
      ),
      String(row.failures),
      row.medianMs === null ? "-" : formatDuration(row.medianMs),
      row.medianTokens === null ? "-" : formatTokens(row.medianTokens),
    ]);
  }
  const lines = [
    `${result.questions.length} questions in ${result.dir}`,
    "",
    table(rows).trimEnd(),
  ];
  const misses = result.workers.flatMap((row) =>
    row.answers.filter((a) => a.score < 1).map((a) =>
      `  ${row.worker}  ${a.id}  ${points(a.score)}  ${
        safeLine(a.failure ?? "scored below 1", 60)
      }  (run ${a.run})`
    )
  );
  if (misses.length > 0) lines.push("", "below full marks:", ...misses);
  return lines.join("\n") + "\n";
}

/** Runs an eval. */
export const evalCommand: CommandRun<typeof EVAL_FLAGS> = async ({ sys, flags, args }) => {
  if (args.length !== 1) {
    throw new UsageError("Give one questions file", { hint: "pitroom eval questions.json" });
  }
  const stop = new AbortController();
  const onSignal = () => stop.abort(new Error("interrupted"));
  Deno.addSignalListener("SIGINT", onSignal);
  try {
    const result = await createEngine(sys).eval(args[0]!, {
      workers: flags.worker ?? [],
      signal: stop.signal,
      ...(flags.timeout === undefined ? {} : { timeoutMs: flags.timeout }),
    });
    if (flags.json) printJson(sys, result);
    else sys.out.stdout(renderEval(result));
    return 0;
  } finally {
    Deno.removeSignalListener("SIGINT", onSignal);
  }
};
