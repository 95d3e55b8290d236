/** `pitroom history`, declared beside its code (history.ts). */
import { defineCommand, flag, JSON_FLAG } from "./command.ts";

export const HISTORY_FLAGS = {
  model: flag.string({ short: "m", value: "M", describe: "only this model" }),
  worker: flag.string({ short: "W", value: "W", describe: "only this worker" }),
  state: flag.string({
    value: "S",
    describe: "only runs in this state or outcome (done, problem, lost, rate_limited, ...)",
  }),
  group: flag.string({ short: "g", value: "G", describe: "only this group" }),
  since: flag.string({
    value: "30d|all",
    describe: "only runs that ended this recently (search: all; stats: 30d)",
  }),
  limit: flag.number({
    short: "n",
    value: "N",
    min: 1,
    integer: true,
    describe: "at most this many runs (default 20)",
  }),
  json: JSON_FLAG,
};

export const HISTORY = defineCommand({
  name: "history",
  summary: "search every finished run (task, answer, steps); `history stats`, `history import`",
  description: [
    "`pitroom history [TEXT]` searches the full text of tasks, answers and steps, newest first;",
    'every word must match, a trailing * matches a prefix, "double quotes" keep a phrase.',
    "`pitroom history stats` shows runs, success rate, time, tokens and savings per worker and",
    "model and per day (rate-limited and out-of-quota runs counted apart). `pitroom history",
    "import` rebuilds history.db from the run folders (it also runs by itself the first time).",
    "--state takes done, problem (every run not done), lost, or an outcome such as rate_limited.",
  ].join("\n"),
  flags: HISTORY_FLAGS,
  args: [{ name: "TEXT", describe: "words to search for, or `stats` or `import`", variadic: true }],
  examples: [
    'pitroom history "retry policy"',
    "pitroom history --state problem --since 7d",
    "pitroom history stats --since 30d",
    "pitroom history import",
  ],
  run: () => import("./history.ts").then((m) => m.historyCommand),
});
