/** `pitroom self-check`, declared beside its code (self_check.ts). */
import { defineCommand, JSON_FLAG } from "./command.ts";

export const SELF_CHECK_FLAGS = {
  json: JSON_FLAG,
};

export const SELF_CHECK = defineCommand({
  name: "self-check",
  summary: "check the program itself: embedded assets, permission set, state dir, git",
  flags: SELF_CHECK_FLAGS,
  args: [],
  examples: ["pitroom self-check", "pitroom self-check --json"],
  run: () => import("./self_check.ts").then((m) => m.selfCheckCommand),
});
