/** `pitroom audit`, declared beside its code (audit.ts). */
import { defineCommand, flag, JSON_FLAG, RUN_SELECTION, SCOPE_FLAG } from "./command.ts";

export const AUDIT_FLAGS = {
  worker: flag.string({
    short: "W",
    value: "CHAIN",
    describe: "the auditor (worker or chain), never the worker and model that answered",
  }),
  bg: flag.boolean({ describe: "audit in the background: print the audit run's id and return" }),
  json: JSON_FLAG,
  dir: SCOPE_FLAG,
};

export const AUDIT = defineCommand({
  name: "audit",
  summary: "have another model re-check a finished read answer",
  description: [
    "The auditor is never the worker and model that answered (another model of the same worker",
    "may audit): -W, else the config's tiers.audit, else the run's other targets (exit 3 when",
    "none is configured or installed). It re-checks the answer against the repository in a",
    "read-only run and answers AUDIT: AGREE|PARTLY|DISAGREE with the disputed claims; the",
    "verdict and who gave it land on the audited run (`pitroom show RUN`, --json, history).",
    "With the config's auditFix, a disputed answer gets one correction round in the answering",
    "model's own session. Exit 0 with a verdict, 1 when the audit gave none.",
  ].join("\n"),
  flags: AUDIT_FLAGS,
  args: [{ ...RUN_SELECTION, required: true }],
  examples: ["pitroom audit last", "pitroom audit 3f2a -W codex", "pitroom audit last --bg"],
  run: () => import("./audit.ts").then((m) => m.auditCommand),
});
