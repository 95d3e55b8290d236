/**
 * The Crush launch: `crush run --quiet --verbose` with the prompt on stdin (crush prepends piped
 * stdin to the prompt; there is no positional prompt), then closed. Facts from Crush's source
 * (charmbracelet/crush `internal/cmd/run.go`, `internal/app/app.go`; the pinned 0.96.1 binary
 * cannot be fetched here, see the README): `run` approves every permission request of its session
 * by itself and has no flag that removes a tool, so the mode is held by Pitroom alone (the
 * sandbox, the guard shim, and in read mode the read-only check that undoes any change). Its data
 * folder (sessions, database, a lock only one crush may hold) defaults to `.crush` inside the
 * project, so every run is given Pitroom's own outside it (`<data home>/crush/pitroom`), where a
 * follow-up finds its session. Crush locks a data folder to one process; runs at once share this
 * one with the lock skipped (`CRUSH_SKIP_DATADIR_LOCK`: its SQLite database takes concurrent
 * writers by itself), as a lock would fail every run but the first.
 */
import type { Launch, RunSpec } from "../types.ts";

/** Environment settings that keep Crush quiet and off the network (metrics, provider updates). */
export const QUIET_ENV: Readonly<Record<string, string>> = {
  CRUSH_DISABLE_METRICS: "1",
  CRUSH_DISABLE_PROVIDER_AUTO_UPDATE: "1",
  NO_COLOR: "1",
};

/** Lets several runs share Pitroom's data folder (see above). */
const SHARED_DATA_ENV: Readonly<Record<string, string>> = { CRUSH_SKIP_DATADIR_LOCK: "1" };

/** The data home crush's Pitroom folders live in. */
export function crushDataHome(env: Record<string, string>): string | undefined {
  const data = env.XDG_DATA_HOME ??
    (env.HOME === undefined ? undefined : `${env.HOME}/.local/share`);
  return data === undefined ? undefined : `${data}/crush/pitroom`;
}

/** Crush's own folders: its config (`~/.config/crush`, the providers and keys) and data homes. */
export function crushState(env: Record<string, string>): string[] {
  const xdg = (name: string, fallback: string) =>
    env[name] ?? (env.HOME === undefined ? undefined : `${env.HOME}/${fallback}`);
  return [xdg("XDG_CONFIG_HOME", ".config"), xdg("XDG_DATA_HOME", ".local/share")]
    .filter((dir): dir is string => dir !== undefined).map((dir) => `${dir}/crush`);
}

/** The argv of one attempt (the prompt is never in it). */
export function crushArgv(
  spec: Pick<RunSpec, "model" | "sessionId" | "privateDir" | "baseEnv">,
): string[] {
  const argv = ["crush", "run", "--quiet", "--verbose"];
  argv.push("--data-dir", crushDataHome(spec.baseEnv) ?? `${spec.privateDir}/crush`);
  if (spec.model) argv.push("--model", spec.model);
  if (spec.sessionId) argv.push("--session", spec.sessionId);
  return argv;
}

/** Describes the launch of one Crush attempt. */
export function launchCrush(spec: RunSpec): Launch {
  const base = spec.baseEnv;
  const path = [...(spec.pathPrefix ?? []), ...(base.PATH ? [base.PATH] : [])].join(":");
  const home = crushDataHome(base);
  return {
    argv: crushArgv(spec),
    env: { ...base, ...QUIET_ENV, ...SHARED_DATA_ENV, ...(path ? { PATH: path } : {}) },
    cwd: spec.cwd,
    files: [],
    stdin: spec.prompt,
    state: home === undefined ? [`${spec.privateDir}/crush`] : [home],
  };
}
