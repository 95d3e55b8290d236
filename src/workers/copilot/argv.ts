/**
 * The Copilot CLI launch: `copilot --output-format json` with the prompt on stdin (piped stdin
 * with no `-p` is a non-interactive run), then closed. The mode's permission profile is flags:
 * - read: only the reading tools are offered (`--available-tools view grep glob`, and
 *   `web_fetch` with web); any other call is refused as a tool that does not exist;
 * - write and isolate: every tool is allowed without asking (`--allow-all-tools`, which a run
 *   without a terminal needs), except the floor's destructive commands (`--deny-tool
 *   'shell(git commit)'` and the like: a deny rule wins over the allow) and, without web,
 *   `web_fetch`.
 * Paths outside the working directory are never allowed (no `--allow-all-paths`): such a call
 * needs an approval nobody can give and is refused at once. `--no-ask-user` removes the tool
 * that asks the user questions. Updates, the banner and telemetry stay off.
 */
import { MODES } from "../modes.ts";
import type { Launch, RunSpec } from "../types.ts";
import {
  DENIED_PROGRAMS,
  DENIED_PUBLISHING,
  deniedGitPrefixes,
  RECURSION_PROGRAM,
} from "../../confine/floor.ts";

/** Environment settings that keep Copilot CLI off its update and telemetry paths. */
export const QUIET_ENV: Readonly<Record<string, string>> = {
  COPILOT_AUTO_UPDATE: "false",
  NO_COLOR: "1",
};

/** The reading tools a read run is offered. */
export const READ_TOOLS: readonly string[] = ["view", "grep", "glob"];

/** `--deny-tool` rules of the write modes: history-changing git and the floor's programs. */
export function deniedShell(): string[] {
  return [
    ...deniedGitPrefixes().map((sub) => `shell(git ${sub})`),
    ...[...DENIED_PROGRAMS, RECURSION_PROGRAM, ...DENIED_PUBLISHING].map((p) => `shell(${p})`),
  ];
}

/** The argv of one attempt (the prompt is never in it). */
export function copilotArgv(
  spec: Pick<RunSpec, "mode" | "model" | "effort" | "sessionId" | "web">,
): string[] {
  const argv = [
    "copilot",
    "--output-format",
    "json",
    "--no-auto-update",
    "--no-ask-user",
    "--disable-client-telemetry",
    "--no-color",
  ];
  if (spec.model) argv.push("--model", spec.model);
  if (spec.effort) argv.push("--reasoning-effort", spec.effort);
  if (spec.sessionId) argv.push("--resume", spec.sessionId);
  if (!MODES[spec.mode].edits) {
    argv.push("--available-tools", ...READ_TOOLS, ...(spec.web ? ["web_fetch"] : []));
    // Their calls run without asking; nothing else is offered.
    argv.push("--allow-all-tools");
    return argv;
  }
  argv.push("--allow-all-tools");
  for (const rule of deniedShell()) argv.push("--deny-tool", rule);
  if (!spec.web) argv.push("--excluded-tools", "web_fetch");
  return argv;
}

/** Copilot's own folders: its home (`COPILOT_HOME` or `~/.copilot`) and its package cache. */
export function copilotState(env: Record<string, string>): string[] {
  const home = env.HOME;
  const cache = env.XDG_CACHE_HOME ?? (home === undefined ? undefined : `${home}/.cache`);
  return [
    env.COPILOT_HOME ?? (home === undefined ? undefined : `${home}/.copilot`),
    cache === undefined ? undefined : `${cache}/copilot`,
  ].filter((dir): dir is string => dir !== undefined);
}

/** Describes the launch of one Copilot CLI attempt. */
export function launchCopilot(spec: RunSpec): Launch {
  const base = spec.baseEnv;
  const path = [...(spec.pathPrefix ?? []), ...(base.PATH ? [base.PATH] : [])].join(":");
  const state = copilotState(base);
  const cache = state[1];
  return {
    argv: copilotArgv(spec),
    env: { ...base, ...QUIET_ENV, ...(path ? { PATH: path } : {}) },
    cwd: spec.cwd,
    files: [],
    stdin: spec.prompt,
    state,
    // Its first start unpacks the CLI's package into the cache; two at once would race.
    ...(cache === undefined
      ? {}
      : { firstStart: { marker: `${cache}/pkg`, argv: ["copilot", "--version"] } }),
  };
}
