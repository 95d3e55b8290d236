/** `pitroom cooldown`, declared beside its code (cooldown.ts). */
import { defineCommand, flag, JSON_FLAG } from "./command.ts";

export const COOLDOWN_FLAGS = {
  clear: flag.boolean({ describe: "forget every cooldown now" }),
  json: JSON_FLAG,
};

export const COOLDOWN = defineCommand({
  name: "cooldown",
  summary: "show (or clear) workers cooling down after a rate limit or quota",
  flags: COOLDOWN_FLAGS,
  args: [],
  examples: ["pitroom cooldown", "pitroom cooldown --clear"],
  run: () => import("./cooldown.ts").then((m) => m.cooldownCommand),
});
