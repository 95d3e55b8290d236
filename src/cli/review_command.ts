/** `pitroom review`, declared beside its code (review.ts). */
import { defineCommand, flag, JSON_FLAG, RUN_SELECTION } from "./command.ts";

export const REVIEW_FLAGS = {
  range: flag.string({ value: "A..B", describe: "review commits A..B instead" }),
  plan: flag.string({ value: "PLAN", describe: "with --range: the plan and notes" }),
  tier: flag.string({
    value: "TIER",
    describe: "the reviewer's tier (default: review, or capable for a range)",
  }),
  worker: flag.string({ short: "W", value: "CHAIN", describe: "the reviewer's worker or chain" }),
  model: flag.string({ short: "m", value: "MODEL", describe: "the reviewer's model" }),
  timeout: flag.duration({
    short: "t",
    value: "DUR",
    describe: "kill the reviewer after this long",
  }),
  bg: flag.boolean({ describe: "run in the background: print the run id and return" }),
  dir: flag.string({
    short: "d",
    value: "DIR",
    describe: "the repository: the range's, and whose runs `last` and a part of an id mean",
  }),
  json: JSON_FLAG,
};

export const REVIEW = defineCommand({
  name: "review",
  summary: "review a run's change (or a commit range) by a read-only worker on another backend",
  description: [
    "The reviewer gets one package: the brief, the implementer's report and the diff with 10",
    "lines of context; a fix round (a follow-up of a reviewed run) only the fix's diff and the",
    "previous findings; --range A..B the commits and the diff from the merge base (with --plan:",
    "the plan, its constraints and notes; the capable tier). Secrets are redacted first. The",
    "reviewer answers SPEC: PASS|FAIL and QUALITY: APPROVED|NEEDS-FIXES with findings by",
    "severity; an answer without both lines is a failed review (exit 1). Refused (exit 3): a",
    "running run, a read run, a run with no changes, a review.",
  ].join("\n"),
  flags: REVIEW_FLAGS,
  args: [RUN_SELECTION],
  examples: [
    "pitroom review last",
    "pitroom review 3f2a --tier capable --bg",
    'pitroom review --range "$(git merge-base main HEAD)..HEAD" --plan docs/plan.md',
  ],
  run: () => import("./review.ts").then((m) => m.reviewCommand),
});
