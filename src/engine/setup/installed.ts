/**
 * Which worker CLIs are installed: each backend's `detect`, the binary's full path, and where the
 * version falls against the versions the backend was tested with.
 */
import type { Runner } from "../../sys/mod.ts";
import { BACKENDS } from "../../workers/registry.ts";
import {
  type Backend,
  type Installed,
  type TestedVersions,
  WORKER_NAMES,
  type WorkerName,
} from "../../workers/types.ts";
import { type VersionFit, versionFit } from "../../workers/tested.ts";
import { findOnPath } from "../../workers/_detect.ts";
export { findOnPath };

/** How to install each worker CLI. */
export const INSTALL_HINTS: Readonly<Record<WorkerName, string>> = {
  opencode: "npm i -g opencode-ai",
  codex: "npm i -g @openai/codex",
  claude: "npm i -g @anthropic-ai/claude-code",
  gemini: "npm i -g @google/gemini-cli",
  qwen: "npm i -g @qwen-code/qwen-code",
  kilo: "npm i -g @kilocode/cli",
  copilot: "npm i -g @github/copilot",
  crush: "npm i -g @charmland/crush",
};

/** What Pitroom found out about one worker. */
export interface WorkerStatus {
  /** A built-in worker, or one of the config's own (an ACP agent, with `acp`). */
  worker: string;
  /** The installed CLI, or null. */
  installed: Installed | null;
  /** The binary's full path, when it can be found on PATH. */
  path: string | null;
  /** The versions its backend was tested with (`Backend.tested`). */
  tested: TestedVersions;
  /**
   * Where the installed version falls against `tested`; null when not installed; `untested` for
   * an ACP agent no suite ran.
   */
  fit: VersionFit | "untested" | null;
  installHint: string;
  /** An ACP worker's command (the config's `workers.NAME.acp`). */
  acp?: string[];
}

async function detectOne(
  backend: Backend,
  runner: Runner,
  env: Record<string, string>,
): Promise<Installed | null> {
  try {
    return await backend.detect(runner, env);
  } catch (error) {
    // A CLI missing from PATH is "not installed", however the backend looked for it.
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/** Options of `detectWorkers`. */
export interface DetectOptions {
  /** The backends to ask (one left undefined counts as not installed). @default the registry */
  backends?: Readonly<Record<WorkerName, Backend | undefined>>;
  /** Only these workers. @default all */
  only?: readonly WorkerName[];
}

/** Detects every worker (in registry order), asking the installed CLIs in parallel. */
export function detectWorkers(
  runner: Runner,
  env: Record<string, string>,
  options: DetectOptions = {},
): Promise<WorkerStatus[]> {
  const backends = options.backends ?? BACKENDS;
  const names = WORKER_NAMES.filter((n) => options.only === undefined || options.only.includes(n));
  return Promise.all(names.map(async (worker): Promise<WorkerStatus> => {
    const backend = backends[worker];
    const installed = backend === undefined ? null : await detectOne(backend, runner, env);
    const tested = (backend ?? BACKENDS[worker]).tested;
    return {
      worker,
      installed,
      path: installed === null ? null : findOnPath(installed.binary, env),
      tested,
      fit: installed === null ? null : versionFit(tested, installed.version),
      installHint: INSTALL_HINTS[worker],
    };
  }));
}
