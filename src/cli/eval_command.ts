/** `pitroom eval`, declared beside its code (eval.ts). */
import { defineCommand, flag, JSON_FLAG } from "./command.ts";

export const EVAL_FLAGS = {
  worker: flag.repeated({
    short: "W",
    value: "TARGET",
    describe: "a worker to score (repeatable; default: the configured worker)",
  }),
  timeout: flag.duration({
    short: "t",
    value: "DUR",
    describe: "kill a worker after this long on one question (default: the config's timeout)",
  }),
  json: JSON_FLAG,
};

export const EVAL = defineCommand({
  name: "eval",
  summary: "score workers on bounded questions with exact truths (definition, count, files)",
  description: [
    "QUESTIONS.json holds questions of three kinds, each with its truth given or computed with",
    "`git grep` when the eval starts: a definition (path:line; 1 point, 0.5 for the right",
    "file), a count (exact) and a list of files (scored by F1: missed and invented files both",
    "cost). Every -W gets every question at once as background read runs (one target each, no",
    "fallback); the table shows the score, per kind, failures and median time and tokens.",
    "A bad questions file is one error line naming its first problem (exit 2); docs/audits.md: Evals.",
  ].join("\n"),
  flags: EVAL_FLAGS,
  args: [{ name: "QUESTIONS", describe: "the questions file (JSON)", required: true }],
  examples: [
    "pitroom eval questions.json -W opencode -W codex:gpt-5.5",
    "pitroom eval questions.json --json",
  ],
  run: () => import("./eval.ts").then((m) => m.evalCommand),
});
