/**
 * The sandbox of one launch (src/confine/sandbox/): the config's setting, what the launch must not see,
 * the launch wrapped, and what the report should say. Every launch on a worker's files goes
 * through here: the worker's attempts and the run's verify command.
 *
 * Hidden from every launch: Pitroom's state dir (the records of other runs, the MCP token, the
 * dashboard's secret, the history) and config file, and the default places of both (where a
 * Pitroom started without its recursion marker would look), with only the guard (read-only), the
 * attempt's private folder and the run's own tree (an isolate copy, a read view) shown again; the
 * home folder's well-known credentials (confine/secret_names.ts) and every other worker CLI's login
 * (workers/logins.ts), but the running CLI's own; the config's `sandbox.hide` paths; and the
 * secret-looking files of the tree the caller names. An isolate run without a sandbox whose copy
 * holds links leading out of it is refused (exit 3) unless the run allows links; then the links
 * are named.
 */
import type { HeldSys } from "../store/state.ts";
import { loadConfig } from "../store/config.ts";
import { RefusedError } from "../sys/errors.ts";
import { lstatOrNull } from "../sys/fs.ts";
import { join } from "../sys/path.ts";
import { HOME_CREDENTIALS } from "./secret_names.ts";
import { realOrNullNow } from "./sandbox/paths.ts";
import {
  checkedSandboxSetting,
  detectNetwork,
  detectSandbox,
  escapingLinks,
  isPathEntry,
  type SandboxKind,
  sandboxLaunch,
  type SandboxPlan,
  type SandboxSetting,
  type SandboxUse,
  treeRoot,
} from "./sandbox/mod.ts";
import { configPaths, loginPaths, otherLogins } from "../workers/logins.ts";
import type { Hidden } from "../store/record.ts";
import { listed } from "./hidden.ts";
import type { Launch, Mode, WorkerName } from "../workers/types.ts";

/**
 * The config's sandbox setting (its folders and entries checked) and the machine's sandbox: a
 * run's as frozen when it was created (older records, and commands: the config file now).
 */
export async function sandboxSettingOf(
  sys: HeldSys,
  frozen?: { sandbox?: unknown },
): Promise<{ setting: SandboxSetting; warnings: string[]; found: SandboxKind | null }> {
  const raw = frozen?.sandbox !== undefined
    ? frozen.sandbox ?? undefined
    : (await loadConfig(sys.configPath)).config.sandbox;
  const { setting, warnings } = await checkedSandboxSetting(raw, sys.env.get("HOME"));
  const found = setting.mode === "off" ? null : await detectSandbox(sys);
  return { setting, warnings, found };
}

/** The tree name patterns of `sandbox.hide` and `sandbox.show`. */
export function namePatterns(setting: SandboxSetting): { hide: string[]; show: string[] } {
  return {
    hide: setting.hide.filter((e) => !isPathEntry(e)),
    show: setting.show.filter((e) => !isPathEntry(e)),
  };
}

/**
 * What a launch must not see, what it must see after all, and which of the hidden paths are
 * Pitroom's own (not counted in the report).
 */
export function confinementPaths(
  sys: Pick<HeldSys, "stateDir" | "configPath"> & { state: Pick<HeldSys["state"], "paths"> },
  input: {
    /** The worker CLI (its own login stays visible); null for a command that is none (verify). */
    worker: WorkerName | null;
    env: Readonly<Record<string, string>>;
    setting: SandboxSetting;
    /** Absolute paths of the tree's secret-looking files and folders to hide. */
    secrets: readonly string[];
  },
): { hide: string[]; show: string[]; own: string[] } {
  const home = input.env.HOME;
  const xdg = (name: string, fallback: string) =>
    input.env[name] ?? (home === undefined ? undefined : join(home, fallback));
  // Where a Pitroom started in the sandbox without its marker would look (the default places).
  const defaults = [xdg("XDG_STATE_HOME", ".local/state"), xdg("XDG_CONFIG_HOME", ".config")]
    .flatMap((dir) => dir === undefined ? [] : [join(dir, "pitroom")]);
  const own = [sys.stateDir, sys.configPath, ...defaults];
  return {
    own,
    hide: [
      ...own,
      ...(home === undefined ? [] : HOME_CREDENTIALS.map((p) => join(home, p))),
      ...otherLogins(input.worker, input.env),
      ...input.setting.hide.filter(isPathEntry),
      ...input.secrets,
    ],
    show: [
      sys.state.paths.guard,
      ...(input.worker === null ? [] : loginPaths(input.worker, input.env)),
      ...input.setting.show.filter(isPathEntry),
    ],
  };
}

/** What `sandboxAttempt` needs besides the launch. */
export interface AttemptSandbox {
  mode: Mode;
  privateDir: string;
  /** The worker CLI, or null for a command that is none (verify). */
  worker: WorkerName | null;
  /** Absolute paths of the tree's secret-looking files to hide (none when they are allowed). */
  secrets?: readonly string[];
  isolation?: { links: readonly string[]; allowLinks: boolean };
  /** The setting to use instead of the config's (the escape suite's own). */
  setting?: SandboxSetting;
  /**
   * Who runs, for the report's notes.
   * @default "The worker"
   */
  who?: string;
}

/** Wraps one launch in the sandbox the config asks for, with what the report says. */
export async function sandboxAttempt(
  sys: HeldSys,
  launch: Launch,
  input: AttemptSandbox,
): Promise<
  { launch: Launch; use: SandboxUse; notes: string[]; hidden?: Hidden; writable?: string[] }
> {
  const setting = input.setting ?? (await sandboxSettingOf(sys)).setting;
  const { hide, show, own } = confinementPaths(sys, {
    worker: input.worker,
    env: launch.env,
    setting,
    secrets: input.secrets ?? [],
  });
  const wrapped = await sandboxLaunch(sys, launch, {
    mode: input.mode,
    privateDir: input.privateDir,
    setting,
    hide,
    show,
    ...(setting.network === "isolated" && input.worker !== null
      ? { loopback: await readAll(configPaths(input.worker, launch.env, launch.cwd)) }
      : {}),
  });
  const notes: string[] = [];
  const who = input.who ?? "The worker";
  if (wrapped.plan !== undefined) await refuseVisibleState(sys.stateDir, wrapped.plan);
  if (wrapped.use.kind !== "none") {
    const hidden = wrapped.plan === undefined ? null : await hiddenOf(own, launch, wrapped.plan);
    if (wrapped.use.network !== undefined) {
      notes.push(
        `${who} had a network of its own: of the host's loopback only port${
          wrapped.use.network.ports.length === 1 ? "" : "s"
        } ${wrapped.use.network.ports.join(", ")} could be reached`,
      );
    }
    return {
      launch: wrapped.launch,
      use: wrapped.use,
      notes,
      ...(hidden ? { hidden } : {}),
      ...(wrapped.plan === undefined ? {} : { writable: wrapped.plan.writable }),
    };
  }
  notes.push(`${who} ran without a sandbox: ${wrapped.use.reason}`);
  if (input.isolation !== undefined) {
    const { root } = await treeRoot(launch.cwd);
    const links = await escapingLinks(root, { known: input.isolation.links });
    if (links.length > 0) {
      const named = links.slice(0, 5).map((l) => `${l.path} -> ${l.target}`).join(", ");
      const more = links.length > 5 ? ` and ${links.length - 5} more` : "";
      if (!input.isolation.allowLinks) {
        throw new RefusedError(
          "links_leave_copy",
          `Cannot isolate the worker without a sandbox: the copy holds links leading out of it: ${named}${more}`,
          { hint: "pitroom run -i --allow-links ..." },
        );
      }
      notes.push(`Links in the copy lead out of it (no sandbox holds them): ${named}${more}`);
    }
  }
  return { launch: wrapped.launch, use: wrapped.use, notes };
}

/**
 * Refuses (exit 3) a sandbox that could not hide Pitroom's state dir: one that is `/`, holds the
 * home folder (`PITROOM_STATE_DIR=$HOME`) or lies in a `sandbox.show` path is never hidden, which
 * would leave the MCP token, the dashboard's key and every run's record readable.
 */
async function refuseVisibleState(stateDir: string, plan: SandboxPlan): Promise<void> {
  const real = await realOrSelf(stateDir);
  if (plan.hidden.includes(real)) return;
  throw new RefusedError(
    "state_dir_visible",
    `Cannot hide Pitroom's state dir ${stateDir} from the worker: it is /, holds your home folder or is in a "sandbox.show" path`,
    {
      hint: "set PITROOM_STATE_DIR to a folder of its own (the default is ~/.local/state/pitroom)",
    },
  );
}

/** The texts of the files that exist and can be read (for the loopback ports they name). */
async function readAll(paths: readonly string[]): Promise<string[]> {
  const texts = await Promise.all(paths.map((p) => Deno.readTextFile(p).catch(() => null)));
  return texts.filter((t): t is string => t !== null);
}

function realOrSelf(path: string): Promise<string> {
  // Answered at once, as the sandbox's other path questions (confine/sandbox/paths.ts).
  return Promise.resolve(realOrNullNow(path) ?? path);
}

/**
 * What the sandbox hid (null when it was only Pitroom's own state and config, which every launch
 * is kept from): credentials by their place in the home folder, the tree's secret-looking files
 * by their path in the tree.
 */
async function hiddenOf(
  pitroom: readonly string[],
  launch: Launch,
  plan: SandboxPlan,
): Promise<Hidden | null> {
  const own = new Set(await Promise.all(pitroom.map(realOrSelf)));
  const home = launch.env.HOME === undefined ? null : await realOrSelf(launch.env.HOME);
  const { root } = await treeRoot(plan.cwd);
  const tree: string[] = [];
  const credentials: string[] = [];
  for (const path of [...plan.hidden, ...plan.masked]) {
    if (own.has(path)) continue;
    if (path.startsWith(`${root}/`)) tree.push(path.slice(root.length + 1));
    else if (home !== null && path.startsWith(`${home}/`)) {
      credentials.push(`~/${path.slice(home.length + 1)}`);
    } else credentials.push(path);
  }
  if (tree.length + credentials.length === 0) return null;
  return {
    credentials: { count: credentials.length, examples: credentials.slice(0, 3) },
    files: { count: tree.length, examples: tree.slice(0, 3) },
  };
}

/** What `doctor` says about the sandbox: which one runs workers and what it hides. */
export async function sandboxCheck(
  sys: HeldSys,
): Promise<{ status: "ok" | "warn" | "error"; message: string; hint?: string }> {
  const { setting, found } = await sandboxSettingOf(sys);
  if (setting.mode === "off" || found === null) {
    return {
      status: "warn",
      message: `workers run without a sandbox: "sandbox" is "off" in the config`,
      hint: `set "sandbox": "auto" in ${sys.configPath}`,
    };
  }
  if (found.kind !== "none") {
    const base = `workers run in ${found.kind} (${found.binary}); ${await hiddenSummary(
      sys,
      setting,
    )}`;
    if (setting.network !== "isolated") {
      return { status: "ok", message: `${base}; network: the host's` };
    }
    const network = found.kind === "bwrap"
      ? await detectNetwork(sys, found.binary)
      : { kind: "none" as const, reason: `it needs bubblewrap, and this is ${found.kind}` };
    if (network.kind === "none") {
      return {
        status: "error",
        message:
          `${base}; network: "isolated" cannot be made (${network.reason}): runs are refused`,
        hint: `apt-get install passt, or set "sandbox": {"network": "host"} in ${sys.configPath}`,
      };
    }
    return {
      status: "ok",
      message:
        `${base}; network: each worker's own (${network.binary}), the host's loopback only on the ports its configuration names`,
    };
  }
  return {
    status: setting.mode === "required" ? "error" : "warn",
    message: `workers run without a sandbox: ${found.reason}` +
      (setting.mode === "required" ? ` ("sandbox" is "required": runs are refused)` : ""),
    hint: "apt-get install bubblewrap",
  };
}

/**
 * What a worker does not see here: Pitroom's own places, the credentials of this home folder
 * that exist (the built-in list, the CLIs' logins and `sandbox.hide` paths, less `sandbox.show`),
 * counted with examples, and the tree's secret-looking files with the config's name patterns.
 */
async function hiddenSummary(sys: HeldSys, setting: SandboxSetting): Promise<string> {
  const env = sys.env.toObject();
  const home = env.HOME;
  const shown = setting.show.filter(isPathEntry);
  const candidates = [
    ...(home === undefined ? [] : HOME_CREDENTIALS.map((p) => join(home, p))),
    ...otherLogins(null, env),
    ...setting.hide.filter(isPathEntry),
  ].filter((p) => !shown.some((s) => s === p || p.startsWith(`${s}/`)));
  const short = (path: string) =>
    home !== undefined && path.startsWith(`${home}/`) ? `~/${path.slice(home.length + 1)}` : path;
  const present: string[] = [];
  for (const path of new Set(candidates)) {
    if (await lstatOrNull(path) !== null) present.push(short(path));
  }
  const creds = present.length === 0
    ? "none of the known credential files is in your home folder"
    : listed(present.length, "credential path", present.slice(0, 4));
  const names = namePatterns(setting);
  const tree = names.hide.length === 0
    ? "a tree's secret-looking files"
    : `a tree's secret-looking files and those named ${names.hide.join(", ")}`;
  const after = [...shown.map(short), ...names.show];
  return `hidden from workers: Pitroom's state dir and config, ${creds} (each CLI keeps its own login), and ${tree}${
    after.length === 0 ? "" : ` (shown after all: ${after.join(", ")})`
  }`;
}
