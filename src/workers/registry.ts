/**
 * Every backend by name: a small data table the engine looks workers up in.
 */
import { RefusedError } from "../sys/errors.ts";
import { claudeBackend } from "./claude/mod.ts";
import { codexBackend } from "./codex/mod.ts";
import { geminiBackend } from "./gemini/mod.ts";
import { opencodeBackend } from "./opencode/mod.ts";
import type { Backend, WorkerName } from "./types.ts";

/** The backends, by name (`undefined` for one not written yet). */
export const BACKENDS: Record<WorkerName, Backend | undefined> = {
  opencode: opencodeBackend,
  codex: codexBackend,
  claude: claudeBackend,
  gemini: geminiBackend,
};

/** The backend called `name`; refuses one that does not exist yet. */
export function getBackend(name: WorkerName): Backend {
  const backend = BACKENDS[name];
  if (backend === undefined) {
    throw new RefusedError("no_backend", `Worker "${name}" is not supported yet`, {
      hint: "use -W opencode",
    });
  }
  return backend;
}
