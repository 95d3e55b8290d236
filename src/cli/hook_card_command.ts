/** `pitroom hook-card`, declared beside its code (hook_card.ts). */
import { defineCommand } from "./command.ts";

export const HOOK_CARD = defineCommand({
  name: "hook-card",
  summary: "a PostToolUse hook: one card when a Pitroom command started, finished or applied runs",
  description: [
    "Reads the hook's JSON on stdin (Claude Code or Codex) and prints a card as",
    '{"systemMessage": ...} once per run and phase; anything else prints nothing.',
  ].join("\n"),
  flags: {},
  args: [],
  examples: ["pitroom hook-card < hook-input.json"],
  run: () => import("./hook_card.ts").then((m) => m.hookCardCommand),
});
