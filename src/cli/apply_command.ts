/** `pitroom apply` and `pitroom discard`, declared beside their code (apply.ts). */
import { defineCommand, flag, JSON_FLAG, RUN_SELECTION, SCOPE_FLAG } from "./command.ts";

export const APPLY_FLAGS = {
  "allow-delete": flag.boolean({ describe: "apply deletions too" }),
  group: flag.string({
    short: "g",
    value: "NAME",
    describe: "apply the group's finished isolate runs, oldest first",
  }),
  json: JSON_FLAG,
  dir: SCOPE_FLAG,
};

export const APPLY = defineCommand({
  name: "apply",
  summary: "apply an isolate run's patch to your tree (checked first)",
  description: [
    "Writes the changes an isolate run (-i) made in its private copy into your tree.",
    "Every file is checked first: nothing is written when a file changed under the patch",
    "(exit 1). A patch that deletes files needs --allow-delete (exit 3 without).",
    "With -g, applies the group's finished runs in order and stops at the first that does",
    "not apply. Running apply again after an interrupted apply finishes it.",
  ].join("\n"),
  flags: APPLY_FLAGS,
  args: [{ ...RUN_SELECTION, variadic: true }],
  examples: ["pitroom apply last", "pitroom apply 3f2a --allow-delete", "pitroom apply -g docs"],
  run: () => import("./apply.ts").then((m) => m.applyCommand),
});

export const DISCARD_FLAGS = {
  json: JSON_FLAG,
  dir: SCOPE_FLAG,
};

export const DISCARD = defineCommand({
  name: "discard",
  summary: "remove an isolate run's private copy (its patch stays)",
  flags: DISCARD_FLAGS,
  args: [{ ...RUN_SELECTION, variadic: true }],
  examples: ["pitroom discard last"],
  run: () => import("./apply.ts").then((m) => m.discardCommand),
});
