/**
 * The OpenCode launch: `opencode run --format json` with the prompt on stdin, a per-run agent
 * (`pitroom-read`, `pitroom-write` or `pitroom-isolate`) whose permission profile is injected
 * through `OPENCODE_CONFIG_CONTENT` (merged by OpenCode over the user's own config files, which
 * stay untouched), and the quiet settings that keep it off the network.
 *
 * OpenCode evaluates permission rules as a flat list in config order and the LAST rule whose
 * permission and pattern both match wins (`*` matches anything, `?` one character, and a
 * trailing ` *` is optional). So every profile starts with a catch-all and puts its narrower
 * exceptions after it. No rule is ever `ask`: headless `run` auto-rejects an ask and ends the
 * run with exit 0 and no answer.
 */
import { MODES } from "../modes.ts";
import { type Flavour, OPENCODE } from "./flavour.ts";
import type { Launch, Mode, RunSpec } from "../types.ts";
import {
  DENIED_PROGRAMS,
  DENIED_PUBLISHING,
  deniedGitPrefixes,
  RECURSION_PROGRAM,
} from "../../confine/floor.ts";

/** A permission value: one action, or a map from pattern to action (last match wins). */
export type PermissionRule = "allow" | "deny" | Record<string, "allow" | "deny">;

/** A permission block as OpenCode's config takes it. */
export type PermissionBlock = Record<string, PermissionRule>;

/** Name of the per-run agent of a mode. */
export function agentName(mode: Mode): string {
  return `pitroom-${mode}`;
}

/** Reads: everything in the project, but not secrets in `.env` files. */
const READ_FILES: Record<string, "allow" | "deny"> = {
  "*": "allow",
  "*.env": "deny",
  "*.env.*": "deny",
  "*.env.example": "allow",
};

/** Shell commands that only read, allowed in read mode (everything else is denied). */
export const READ_ONLY_COMMANDS: readonly string[] = [
  "ls *",
  "cat *",
  "head *",
  "tail *",
  "wc *",
  "grep *",
  "egrep *",
  "rg *",
  "find *",
  "tree *",
  "stat *",
  "file *",
  "du *",
  "pwd",
  "echo *",
  "sort *",
  "uniq *",
  "cut *",
  "diff *",
  "jq *",
  "which *",
  "basename *",
  "dirname *",
  "realpath *",
  "sed -n *",
  "git status *",
  "git log *",
  "git diff *",
  "git show *",
  "git grep *",
  "git blame *",
  "git ls-files *",
  "git rev-parse *",
  "git branch --show-current",
];

/** Forms of the allowed read commands that write or run something, denied after the allows. */
export const READ_ONLY_EXCEPTIONS: readonly string[] = [
  "*>*",
  "find *-delete*",
  "find *-exec*",
  "find *-ok*",
  "find *-fprint*",
  "find *-fls*",
  "rg *--pre*",
  "sed *-i*",
  "sed *--in-place*",
  "sort *-o*",
  "git *--output*",
];

/** History-changing and destructive commands, denied in write and isolate modes. */
export const DESTRUCTIVE_COMMANDS: readonly string[] = [
  // `git X ...`, and `git -C dir X ...` / `git -c k=v X ...`.
  ...deniedGitPrefixes().flatMap((sub) => [`git ${sub} *`, `git -* ${sub} *`]),
  ...[...DENIED_PROGRAMS, RECURSION_PROGRAM, ...DENIED_PUBLISHING].map((command) => `${command} *`),
  "rm -r*",
  "rm -R*",
  "rm -f*r*",
  "rm -f*R*",
  "rm * -r*",
  "rm * -R*",
  "rm *--recursive*",
];

function rules(patterns: readonly string[], action: "allow" | "deny"): Record<string, "allow"> {
  return Object.fromEntries(patterns.map((p) => [p, action])) as Record<string, "allow">;
}

/**
 * The permission block of a mode. Every key is explicit: `read` may read and search and run
 * only read-only commands; `write` and `isolate` may edit in place and run commands except the
 * destructive ones. Web fetch and search only with `web`.
 */
export function permissionProfile(mode: Mode, options: { web: boolean }): PermissionBlock {
  const web = options.web ? "allow" : "deny";
  const writes = MODES[mode].edits;
  return {
    // Catch-all first: anything not named below (MCP tools, future permissions) in read mode
    // is denied; in write modes allowed. Never left to OpenCode's default `ask`.
    "*": writes ? "allow" : "deny",
    read: READ_FILES,
    glob: "allow",
    grep: "allow",
    list: "allow",
    lsp: "allow",
    skill: "allow",
    todoread: "allow",
    todowrite: "allow",
    // The tool that tells the model a call was not possible (a removed tool, bad arguments).
    invalid: "allow",
    edit: writes ? { "*": "allow", ".git/*": "deny" } : "deny",
    bash: writes ? { "*": "allow", ...rules(DESTRUCTIVE_COMMANDS, "deny") } : {
      "*": "deny",
      ...rules(READ_ONLY_COMMANDS, "allow"),
      ...rules(READ_ONLY_EXCEPTIONS, "deny"),
    },
    webfetch: web,
    websearch: web,
    codesearch: web,
    task: "deny",
    question: "deny",
    plan_enter: "deny",
    plan_exit: "deny",
    doom_loop: "deny",
    external_directory: "deny",
  };
}

/** Per-run settings laid over the user's config: the agent of this mode, quiet, no sharing. */
export function runConfig(
  spec: Pick<RunSpec, "mode" | "web">,
  flavour: Flavour = OPENCODE,
): Record<string, unknown> {
  const permission = permissionProfile(spec.mode, { web: spec.web });
  return {
    ...flavour.runConfig,
    agent: {
      [agentName(spec.mode)]: {
        mode: "primary",
        description: `Pitroom ${spec.mode} worker`,
        permission,
      },
    },
    // The same block globally: should the agent be missing, OpenCode's fallback agent is held
    // to the same rules.
    permission,
    autoupdate: false,
    share: "disabled",
    // OpenCode's own undo snapshots (a git copy of the tree per step): Pitroom snapshots itself.
    snapshot: false,
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Deep-merges `over` onto `base` (objects merge, everything else is replaced). */
export function mergeConfig(
  base: Record<string, unknown>,
  over: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const current = out[key];
    // Permission blocks are replaced whole: merging would keep the base's rule order.
    out[key] = isObject(current) && isObject(value) && key !== "permission"
      ? mergeConfig(current, value)
      : value;
  }
  return out;
}

function inlineConfig(raw: string | undefined): Record<string, unknown> {
  if (raw === undefined || raw.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(raw);
    return isObject(value) ? value : {};
  } catch (error) {
    if (error instanceof SyntaxError) return {};
    throw error;
  }
}

/** Environment settings that keep OpenCode quiet and off the network. */
export const QUIET_ENV: Readonly<Record<string, string>> = OPENCODE.quietEnv;

/** The argv of one attempt (the prompt is never in it). */
export function opencodeArgv(
  spec: Pick<RunSpec, "mode" | "model" | "effort" | "sessionId">,
  flavour: Flavour = OPENCODE,
) {
  // WARN-level logs on stderr carry the real cause of what the stream calls "Unexpected server
  // error" (an unknown model, a bad config).
  const argv = [flavour.binary, "run", "--format", "json", "--print-logs", "--log-level", "WARN"];
  if (spec.model) argv.push("-m", spec.model);
  if (spec.effort) argv.push("--variant", spec.effort);
  if (spec.sessionId) argv.push("--session", spec.sessionId);
  argv.push("--agent", agentName(spec.mode));
  return argv;
}

/** Describes the launch of one OpenCode attempt. */
export function launchOpencode(spec: RunSpec): Launch {
  return launchFlavour(spec, OPENCODE);
}

/** Describes the launch of one attempt of an OpenCode-derived CLI. */
export function launchFlavour(spec: RunSpec, flavour: Flavour): Launch {
  const base = spec.baseEnv;
  const prefix = flavour.envPrefix;
  const config = mergeConfig(
    inlineConfig(base[`${prefix}_CONFIG_CONTENT`]),
    runConfig(spec, flavour),
  );
  const path = [...(spec.pathPrefix ?? []), ...(base.PATH ? [base.PATH] : [])].join(":");
  return {
    argv: opencodeArgv(spec, flavour),
    env: {
      ...base,
      ...flavour.quietEnv,
      ...(path ? { PATH: path } : {}),
      // `run` takes its project directory from PWD before the process cwd.
      PWD: spec.cwd,
      [`${prefix}_CONFIG_CONTENT`]: JSON.stringify(config),
      [`${prefix}_PERMISSION`]: JSON.stringify(config.permission),
    },
    cwd: spec.cwd,
    files: [],
    stdin: spec.prompt,
    state: opencodeState(base, flavour),
    ...firstStartOf(base, flavour),
  };
}

/** The database appears on the first start: until it exists, `<binary> models` runs first. */
function firstStartOf(env: Record<string, string>, flavour: Flavour): Pick<Launch, "firstStart"> {
  const data = env.XDG_DATA_HOME ??
    (env.HOME === undefined ? undefined : `${env.HOME}/.local/share`);
  if (data === undefined) return {};
  return {
    firstStart: {
      marker: `${data}/${flavour.stateName}/${flavour.database}`,
      argv: [flavour.binary, "models"],
    },
  };
}

/** The CLI's own folders: `opencode/` (or the flavour's) in the XDG data, cache, config and state homes. */
export function opencodeState(env: Record<string, string>, flavour: Flavour = OPENCODE): string[] {
  const home = env.HOME;
  const xdg = (name: string, fallback: string) =>
    env[name] ?? (home === undefined ? undefined : `${home}/${fallback}`);
  const state = xdg("XDG_STATE_HOME", ".local/state");
  return [
    ...[
      xdg("XDG_DATA_HOME", ".local/share"),
      xdg("XDG_CACHE_HOME", ".cache"),
      xdg("XDG_CONFIG_HOME", ".config"),
      state,
    ].filter((dir): dir is string => dir !== undefined).map((dir) => `${dir}/${flavour.stateName}`),
    ...(state === undefined ? [] : flavour.stateSiblings.map((name) => `${state}/${name}`)),
  ];
}
