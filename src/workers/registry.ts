/**
 * Every backend by name: a small data table the engine looks workers up in.
 */
import { claudeBackend } from "./claude/mod.ts";
import { codexBackend } from "./codex/mod.ts";
import { copilotBackend } from "./copilot/mod.ts";
import { crushBackend } from "./crush/mod.ts";
import { geminiBackend } from "./gemini/mod.ts";
import { kiloBackend } from "./kilo/mod.ts";
import { opencodeBackend } from "./opencode/mod.ts";
import { qwenBackend } from "./qwen/mod.ts";
import type { Backend, WorkerName } from "./types.ts";

/** The backends, by name. */
export const BACKENDS: Record<WorkerName, Backend> = {
  opencode: opencodeBackend,
  codex: codexBackend,
  claude: claudeBackend,
  gemini: geminiBackend,
  qwen: qwenBackend,
  kilo: kiloBackend,
  copilot: copilotBackend,
  crush: crushBackend,
};
