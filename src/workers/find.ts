/**
 * A worker's backend by name, loaded when it is asked for: a run loads the code of the workers
 * of its chain only, not of all eight built-in ones and the ACP worker (lookup.ts `backendOf` and
 * registry.ts load them all, for the commands that list or check every worker). A built-in name
 * comes first; else the configured ACP worker of that name; else none.
 */
import type { AcpWorker } from "./acp/config.ts";
import type { Backend, WorkerName } from "./types.ts";

/**
 * How each built-in backend loads. A program that stands fake workers in for the real ones
 * replaces these as it replaces registry.ts's `BACKENDS` (tests/crew/_fake_pitroom.ts).
 */
export const BACKEND_LOADERS: Record<WorkerName, () => Promise<Backend>> = {
  opencode: () => import("./opencode/mod.ts").then((m) => m.opencodeBackend),
  codex: () => import("./codex/mod.ts").then((m) => m.codexBackend),
  claude: () => import("./claude/mod.ts").then((m) => m.claudeBackend),
  gemini: () => import("./gemini/mod.ts").then((m) => m.geminiBackend),
  qwen: () => import("./qwen/mod.ts").then((m) => m.qwenBackend),
  kilo: () => import("./kilo/mod.ts").then((m) => m.kiloBackend),
  copilot: () => import("./copilot/mod.ts").then((m) => m.copilotBackend),
  crush: () => import("./crush/mod.ts").then((m) => m.crushBackend),
};

/** Whether `name` is one of the built-in workers (not an ACP one). */
export function isBuiltIn(name: string): name is WorkerName {
  return Object.hasOwn(BACKEND_LOADERS, name);
}

/** The backend of worker `name`, given the config's own workers; undefined when there is none. */
export async function findBackend(
  name: string,
  workers: Readonly<Record<string, AcpWorker>>,
): Promise<Backend | undefined> {
  if (isBuiltIn(name)) return await BACKEND_LOADERS[name]();
  if (!Object.hasOwn(workers, name)) return undefined;
  const { acpBackend } = await import("./acp/mod.ts");
  return acpBackend(name, workers[name]!);
}
