/** `pitroom models`, declared beside its code (models.ts). */
import { defineCommand, flag, JSON_FLAG } from "./command.ts";

export const MODELS_FLAGS = {
  all: flag.boolean({ describe: "include models you have never used or configured" }),
  json: JSON_FLAG,
};

export const MODELS = defineCommand({
  name: "models",
  summary: "list each installed worker's models, effort levels, your costs and usage",
  description: "The free workers (OpenCode, Gemini CLI) come first.",
  flags: MODELS_FLAGS,
  args: [{
    name: "WORKER",
    describe: "only this worker (opencode, codex, claude, gemini, qwen, kilo, copilot, crush)",
  }],
  examples: ["pitroom models", "pitroom models opencode --all", "pitroom models --json"],
  run: () => import("./models.ts").then((m) => m.modelsCommand),
});
