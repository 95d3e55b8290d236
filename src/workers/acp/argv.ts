/**
 * The launch of an ACP worker: the configured command as it is (the agent's own flags and model
 * included), in the worker's tree, with the guard first on PATH; stdin is the conversation
 * (talk.ts), never a prompt in argv. Where the command's program is a built-in worker CLI
 * (`gemini --acp`, `opencode acp`, `qwen --acp`, `kilo acp`, `copilot --acp`), that CLI's own state
 * folders are writable in the sandbox, as for its built-in backend (its login and settings are
 * borrowed); any other agent's are not, unless listed in `sandbox.writable`.
 */
import { basename, delimiter } from "../../sys/path.ts";
import { lookup } from "../_json.ts";
import { claudeState } from "../claude/argv.ts";
import { codexState } from "../codex/argv.ts";
import { geminiState } from "../gemini/argv.ts";
import { opencodeState } from "../opencode/argv.ts";
import { KILO } from "../opencode/flavour.ts";
import { qwenState } from "../qwen/argv.ts";
import { copilotState } from "../copilot/argv.ts";
import { crushState } from "../crush/argv.ts";
import { WORKER_NAMES, type WorkerName } from "../names.ts";
import type { Launch, RunSpec } from "../types.ts";
import { AcpTalk } from "./talk.ts";

/** The state folders of each built-in CLI (every one: the type holds it), for an ACP command that runs one. */
const STATE: Readonly<Record<WorkerName, (env: Record<string, string>) => string[]>> = {
  claude: claudeState,
  codex: codexState,
  gemini: geminiState,
  opencode: opencodeState,
  qwen: qwenState,
  kilo: (env) => opencodeState(env, KILO),
  copilot: copilotState,
  crush: crushState,
};

/** The built-in CLI an ACP command runs (by its program's name), or null. */
export function cliOf(command: readonly string[]): WorkerName | null {
  const program = basename(command[0] ?? "");
  return (WORKER_NAMES as readonly string[]).includes(program) ? program as WorkerName : null;
}

/** Describes the launch of one attempt of the ACP worker `name` running `command`. */
export function acpLaunch(name: string, command: readonly string[], spec: RunSpec): Launch {
  const prefix = spec.pathPrefix ?? [];
  const path = [...prefix, ...(spec.baseEnv.PATH === undefined ? [] : [spec.baseEnv.PATH])]
    .join(delimiter);
  const env = { ...spec.baseEnv, ...(path === "" ? {} : { PATH: path }) };
  const cli = cliOf(command);
  const state = cli === null ? undefined : lookup(STATE, cli);
  return {
    argv: [...command],
    env,
    cwd: spec.cwd,
    files: [],
    stdin: null,
    talk: new AcpTalk({
      name,
      mode: spec.mode,
      web: spec.web,
      cwd: spec.cwd,
      prompt: spec.prompt,
      ...(spec.model === undefined ? {} : { model: spec.model }),
      ...(spec.sessionId === undefined ? {} : { sessionId: spec.sessionId }),
    }),
    ...(state === undefined ? {} : { state: state(env) }),
  };
}
