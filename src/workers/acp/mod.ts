/**
 * The generic ACP worker: any agent that speaks the Agent Client Protocol over stdio, made a
 * worker by the config (`"workers": {"NAME": {"acp": ["cmd", "arg", ...]}}`, config.ts). One
 * backend per configured name, with the same face as the built-in ones: the launch runs the
 * configured command (argv.ts) and holds the conversation (talk.ts: initialize, a session, the
 * prompt, permission requests answered by the run's policy, policy.ts), whose reports become the
 * run's events (parse.ts); classify.ts reads how it ended; no models are listed (models.ts).
 */
import type { WorkerEvent } from "../../events/mod.ts";
import type { Runner } from "../../sys/mod.ts";
import { detectCli, findOnPath } from "../_detect.ts";
import type { Backend, Installed, ParseState, TestedVersions } from "../types.ts";
import { acpLaunch, cliOf } from "./argv.ts";
import { classifyAcp } from "./classify.ts";
import type { AcpWorker } from "./config.ts";
import { acpModels } from "./models.ts";

export { type AcpWorker, type AcpWorkers, readAcpWorkers, WORKER_NAME } from "./config.ts";
export { cliOf } from "./argv.ts";

/**
 * The agents the ACP worker was tested with over ACP, by the built-in CLI their command runs:
 * the e2e suite (tests/e2e/workers_acp_test.ts) ran these pinned versions against the scripted
 * model server. Another agent is untested: `doctor` says so.
 */
export const ACP_TESTED: Readonly<Record<string, TestedVersions>> = {
  gemini: {
    pinned: "0.61.0",
    min: "0.61.0",
    max: "0.61.0",
    relies: "its `--acp` mode (permission requests, `_meta.quota` token counts)",
  },
  opencode: {
    pinned: "1.18.33",
    min: "1.18.33",
    max: "1.18.33",
    relies: "its `acp` mode (session resume, model config option, `usage`)",
  },
  qwen: {
    pinned: "0.24.4",
    min: "0.24.4",
    max: "0.24.4",
    relies: "its `--acp` mode (a read run's answer; it reports no usage)",
  },
};

/** The stand-in for an agent no suite ran: no version is claimed. */
const UNTESTED: TestedVersions = {
  pinned: "",
  min: "",
  max: "",
  relies: "the Agent Client Protocol (version 1)",
};

/**
 * Finds an ACP command's program on PATH. A built-in CLI's version is read (`--version`); any
 * other program is never run to ask (it might not know the flag and wait): its version is "".
 */
async function detectAcp(
  command: readonly string[],
  runner: Runner,
  env: Record<string, string>,
): Promise<Installed | null> {
  const program = command[0] ?? "";
  const binary = findOnPath(program, env);
  if (binary === null) return null;
  if (cliOf(command) === null) return { binary, version: "" };
  return await detectCli(runner, program, { env }) ?? { binary, version: "" };
}

/** The backend of the configured ACP worker `name`. */
export function acpBackend(name: string, worker: AcpWorker): Backend {
  const cli = cliOf(worker.acp);
  return {
    name,
    cli,
    reportsTokens: false,
    ...(worker.env === undefined ? {} : { keepEnv: worker.env }),
    tested: (cli === null ? undefined : ACP_TESTED[cli]) ?? UNTESTED,
    detect: (runner, env) => detectAcp(worker.acp, runner, env),
    launch: (spec) => acpLaunch(name, worker.acp, spec),
    newState: (): ParseState => ({ steps: 0, scratch: {} }),
    // The conversation reads stdout (Launch.talk); a line handed here is one it did not see.
    parse: (line, _state, at): WorkerEvent[] => [
      { type: "worker.unknown", time: at.time, raw: line.slice(0, 2000) },
    ],
    parseStderr: (): WorkerEvent[] => [],
    classify: classifyAcp,
    models: acpModels,
  };
}
