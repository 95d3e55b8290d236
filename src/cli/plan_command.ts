/** `pitroom plan`, declared beside its code (plan.ts). */
import { defineCommand, JSON_FLAG } from "./command.ts";

export const PLAN_FLAGS = {
  json: JSON_FLAG,
};

export const PLAN = defineCommand({
  name: "plan",
  summary: "where a plan stands (`plan status PLAN`), and its notes (`plan note PLAN TEXT`)",
  description: [
    "`pitroom plan status PLAN` prints one row per task (state, implementer status, last review",
    "verdict, fix rounds, applied, last note) and every ruling, rebuilt from the run records and",
    'notes alone. `pitroom plan note PLAN "Task N: ..."` keeps a timestamped note in the state',
    "dir (keyed by the plan's real path, never in the repository).",
    "",
    "A plan is Markdown: a `# Title`, a Spec and a Global Constraints section, and tasks under",
    "headings `Task N: title` with a `**Worker:** cheap|standard|capable` line.",
    "`pitroom run -i --plan PLAN --step N` gives the worker task N's implementer brief.",
    "",
    "Templates shipped in the binary (and in skills/pitroom-driven-development/):",
    "  implementer.md      the implementer brief of `run --plan`",
    "  task-reviewer.md    `review RUN`",
    "  fix-reviewer.md     `review RUN` of a fix round",
    "  branch-reviewer.md  `review --range`",
  ].join("\n"),
  flags: PLAN_FLAGS,
  args: [{ name: "ACTION", describe: "`status` or `note`", required: true }, {
    name: "PLAN",
    describe: "the plan file",
    required: true,
  }, { name: "TEXT", describe: "the note (`Task N: ...`)", variadic: true }],
  examples: [
    "pitroom plan status docs/plan.md",
    "pitroom plan status docs/plan.md --json",
    'pitroom plan note docs/plan.md "Task 2: Ruling: keep the old name — callers use it — a rename"',
  ],
  run: () => import("./plan.ts").then((m) => m.planCommand),
});
