/**
 * The config's ACP workers as `doctor` and `init` see them: each one's command found on PATH or
 * not, and its version against the agent versions the ACP worker was tested with (for a command
 * that runs a built-in CLI; any other agent is untested and says so).
 */
import type { Runner } from "../../sys/mod.ts";
import { acpBackend, type AcpWorker } from "../../workers/acp/mod.ts";
import { versionFit } from "../../workers/tested.ts";
import { findOnPath } from "../../workers/_detect.ts";
import { INSTALL_HINTS, type WorkerStatus } from "./installed.ts";

/** Detects every configured ACP worker, in the config's order. */
export function detectAcpWorkers(
  runner: Runner,
  env: Record<string, string>,
  workers: Readonly<Record<string, AcpWorker>>,
): Promise<WorkerStatus[]> {
  return Promise.all(
    Object.entries(workers).map(async ([name, worker]) => {
      const backend = acpBackend(name, worker);
      const installed = await backend.detect(runner, env);
      const tested = backend.tested;
      return {
        worker: name,
        installed,
        path: installed === null ? null : findOnPath(installed.binary, env),
        tested,
        fit: installed === null
          ? null
          : tested.pinned === ""
          ? "untested"
          : versionFit(tested, installed.version),
        installHint: backend.cli === null || backend.cli === undefined
          ? `install the agent, or fix "workers.${name}.acp" in the config (${
            worker.acp.join(" ")
          })`
          : INSTALL_HINTS[backend.cli],
        acp: worker.acp,
      };
    }),
  );
}
