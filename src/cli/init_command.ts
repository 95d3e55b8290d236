/** `pitroom init`, declared beside its code (init.ts). */
import { defineCommand, flag, JSON_FLAG } from "./command.ts";

export const INIT_FLAGS = {
  model: flag.string({ value: "ID", describe: "default model of the first worker" }),
  fallback: flag.string({ value: "A,B", describe: "fallback targets, in order" }),
  yes: flag.boolean({ describe: "write the config file" }),
  force: flag.boolean({ describe: "replace an existing config (a backup is kept)" }),
  json: JSON_FLAG,
};

export const INIT = defineCommand({
  name: "init",
  summary: "propose a starter config from the installed workers (writes only with --yes)",
  description: [
    "The proposal puts the free workers first (OpenCode, then Gemini CLI: the worker, then the",
    "fallbacks), sets the tiers, and puts review and audit on another backend. It writes the",
    "config file only with --yes, and replaces an existing one only with --force (keeping a",
    "backup).",
  ].join("\n"),
  flags: INIT_FLAGS,
  args: [],
  examples: ["pitroom init", "pitroom init --fallback codex,claude --yes"],
  run: () => import("./init.ts").then((m) => m.initCommand),
});
