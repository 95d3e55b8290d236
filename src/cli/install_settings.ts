/**
 * The Claude Code settings part of `pitroom install` / `uninstall`: add (remove) the Pitroom status
 * line and the hook card in Claude Code's user settings (`$CLAUDE_CONFIG_DIR/settings.json`, else
 * `~/.claude/settings.json`). The file is merged, not replaced: a status line of the user's own
 * is kept by wrapping it (`pitroom statusline --then '<theirs>'`) and given back on uninstall;
 * the original file is backed up once (`settings.json.pitroom-backup`); running either twice
 * changes nothing; a file that is not valid JSON is refused and left untouched.
 */
import { RefusedError, UsageError } from "../sys/errors.ts";
import { exists, lstatOrNull } from "../sys/fs.ts";
import { backupPath, readJsonConfig, writeConfig } from "./install_files.ts";
import type { Sys } from "../sys/mod.ts";
import { join } from "../sys/path.ts";
import { shellCommands, shellLine, shellQuote } from "./shell_words.ts";

/** What one install step did. */
export interface SettingsChange {
  what: "statusLine" | "hookCard";
  action: "added" | "wrapped" | "updated" | "unchanged" | "removed" | "restored" | "absent";
  /** The command in the settings after the change (none once removed). */
  command?: string;
}

/** The settings after an install or uninstall, and what changed. */
export interface SettingsPlan {
  settings: Record<string, unknown>;
  changes: SettingsChange[];
}

type Json = Record<string, unknown>;

const HOOK_TIMEOUT_S = 10;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The Claude Code user settings file of an environment. */
export function claudeSettingsPath(env: { get(name: string): string | undefined }): string {
  const dir = env.get("CLAUDE_CONFIG_DIR");
  if (dir) return join(dir, "settings.json");
  const home = env.get("HOME");
  if (!home) {
    throw new UsageError("Cannot find Claude Code's settings: HOME is not set", {
      hint: "set CLAUDE_CONFIG_DIR to the folder that holds settings.json",
    });
  }
  return join(home, ".claude", "settings.json");
}

/**
 * A Pitroom command line of `sub` (pure): its words after `sub`, or null when `command` is not
 * `<pitroom> sub …`, where `<pitroom>` is `self` or any program named pitroom.
 */
export function pitroomArgs(command: string, sub: string, self: string): string[] | null {
  const [words] = shellCommands(command);
  if (words === undefined) return null;
  const at = words.indexOf(sub);
  if (at < 1) return null;
  const program = words.slice(0, at);
  const selfWords = shellCommands(self)[0] ?? [];
  const same = program.length === selfWords.length && program.every((w, i) => w === selfWords[i]);
  const named = program.some((w) => /(^|\/)pitroom$/.test(w) || w === "-P=pitroom");
  return same || named ? words.slice(at + 1) : null;
}

function statuslineCommand(self: string, then: string | null): string {
  return then === null ? `${self} statusline` : `${self} statusline --then ${shellQuote(then)}`;
}

function thenOf(args: readonly string[]): string | null {
  const at = args.indexOf("--then");
  return at >= 0 && at + 1 < args.length ? args[at + 1]! : null;
}

function postToolUse(settings: Json, path: string): unknown[] {
  const hooks = settings.hooks ?? {};
  if (!isObject(hooks)) {
    throw new RefusedError("invalid_settings", `"hooks" in "${path}" is not an object: left alone`);
  }
  const post = hooks.PostToolUse ?? [];
  if (!Array.isArray(post)) {
    throw new RefusedError(
      "invalid_settings",
      `"hooks.PostToolUse" in "${path}" is not a list: left alone`,
    );
  }
  return post;
}

function hookCommands(entry: unknown): Json[] {
  return isObject(entry) && Array.isArray(entry.hooks) ? entry.hooks.filter(isObject) : [];
}

/** The settings with the status line and the hook card added (pure; `path` is for messages). */
export function planInstall(current: Json, self: string, path: string): SettingsPlan {
  const settings: Json = structuredClone(current);
  const changes: SettingsChange[] = [];
  const line = settings.statusLine;
  if (line === undefined) {
    const command = statuslineCommand(self, null);
    settings.statusLine = { type: "command", command };
    changes.push({ what: "statusLine", action: "added", command });
  } else if (isObject(line) && typeof line.command === "string") {
    const ours = pitroomArgs(line.command, "statusline", self);
    const command = statuslineCommand(self, ours === null ? line.command : thenOf(ours));
    const action = ours === null ? "wrapped" : command === line.command ? "unchanged" : "updated";
    settings.statusLine = { ...line, type: "command", command };
    changes.push({ what: "statusLine", action, command });
  } else {
    throw new RefusedError(
      "invalid_settings",
      `"statusLine" in "${path}" is not a {type, command} object: left alone`,
    );
  }
  const post = postToolUse(settings, path);
  const command = `${self} hook-card`;
  const existing = post.flatMap(hookCommands).find((h) =>
    typeof h.command === "string" && pitroomArgs(h.command, "hook-card", self) !== null
  );
  if (existing === undefined) {
    post.push({
      matcher: "Bash",
      hooks: [{ type: "command", command, timeout: HOOK_TIMEOUT_S }],
    });
    changes.push({ what: "hookCard", action: "added", command });
  } else {
    changes.push({
      what: "hookCard",
      action: existing.command === command ? "unchanged" : "updated",
      command,
    });
    existing.command = command;
  }
  settings.hooks = { ...(isObject(settings.hooks) ? settings.hooks : {}), PostToolUse: post };
  return { settings, changes };
}

/** The settings with the status line and the hook card taken out again (pure). */
export function planUninstall(current: Json, self: string, path: string): SettingsPlan {
  const settings: Json = structuredClone(current);
  const changes: SettingsChange[] = [];
  const line = settings.statusLine;
  const ours = isObject(line) && typeof line.command === "string"
    ? pitroomArgs(line.command, "statusline", self)
    : null;
  if (ours === null || !isObject(line)) {
    changes.push({ what: "statusLine", action: "absent" });
  } else {
    const then = thenOf(ours);
    if (then === null) {
      delete settings.statusLine;
      changes.push({ what: "statusLine", action: "removed" });
    } else {
      settings.statusLine = { ...line, command: then };
      changes.push({ what: "statusLine", action: "restored", command: then });
    }
  }
  if (settings.hooks === undefined) {
    changes.push({ what: "hookCard", action: "absent" });
    return { settings, changes };
  }
  const post = postToolUse(settings, path);
  let removed = 0;
  const kept = post.flatMap((entry) => {
    if (!isObject(entry) || !Array.isArray(entry.hooks)) return [entry];
    const hooks = entry.hooks.filter((h) => {
      const mine = isObject(h) && typeof h.command === "string" &&
        pitroomArgs(h.command, "hook-card", self) !== null;
      if (mine) removed++;
      return !mine;
    });
    if (hooks.length === entry.hooks.length) return [entry];
    return hooks.length === 0 ? [] : [{ ...entry, hooks }];
  });
  changes.push({ what: "hookCard", action: removed > 0 ? "removed" : "absent" });
  if (removed > 0) {
    const hooks = { ...(settings.hooks as Json) };
    if (kept.length > 0) hooks.PostToolUse = kept;
    else delete hooks.PostToolUse;
    if (Object.keys(hooks).length > 0) settings.hooks = hooks;
    else delete settings.hooks;
  }
  return { settings, changes };
}

/** The command line that starts this Pitroom, quoted for a shell. */
export function selfLine(sys: Sys): string {
  return shellLine(sys.selfCommand());
}

/** What the settings step did. */
export interface SettingsResult {
  settingsPath: string;
  changed: boolean;
  changes: SettingsChange[];
  /** The backup of the settings as they were (null when there is none). */
  backup: string | null;
  /** This call made the backup. */
  backedUp: boolean;
}

/** Adds (removes) the status line and the hook card; writes nothing in a dry run. */
export async function applySettings(
  sys: Sys,
  options: { install: boolean; dryRun: boolean },
): Promise<SettingsResult> {
  const given = claudeSettingsPath(sys.env);
  const path = (await lstatOrNull(given))?.isSymlink ? await Deno.realPath(given) : given;
  const { text, value: settings } = await readJsonConfig(
    path,
    options.install ? "install" : "uninstall",
  );
  const self = selfLine(sys);
  const plan = options.install
    ? planInstall(settings, self, path)
    : planUninstall(settings, self, path);
  const next = JSON.stringify(plan.settings, null, 2) + "\n";
  const changed = text === null
    ? options.install
    : JSON.stringify(settings) !== JSON.stringify(plan.settings);
  let backedUp = false;
  if (changed && !options.dryRun) backedUp = await writeConfig(path, text, next);
  const backup = backupPath(path);
  return {
    settingsPath: path,
    changed,
    changes: plan.changes,
    backup: backedUp || (await exists(backup)) ? backup : null,
    backedUp,
  };
}

const WORDS: Record<SettingsChange["action"], string> = {
  added: "added",
  wrapped: "added, yours kept first (--then)",
  updated: "updated",
  unchanged: "already there",
  removed: "removed",
  restored: "removed, yours given back",
  absent: "not there",
};

/** The same, said of a dry run: what would happen. */
const WORDS_DRY: Record<SettingsChange["action"], string> = {
  added: "would add",
  wrapped: "would add, yours kept first (--then)",
  updated: "would update",
  unchanged: "already there",
  removed: "would remove",
  restored: "would remove, yours given back",
  absent: "not there",
};

/** The lines that tell a person what the settings step did (or, in a dry run, would do). */
export function describeSettings(result: SettingsResult, dryRun: boolean): string[] {
  const lines = result.changes.map((change) => {
    const name = change.what === "statusLine" ? "status line" : "hook card  ";
    const command = change.command ? `: ${change.command}` : "";
    return `${name}  ${(dryRun ? WORDS_DRY : WORDS)[change.action]}${command}`;
  });
  const path = result.settingsPath;
  if (!result.changed) lines.push(`nothing to change in ${path}`);
  else if (dryRun) lines.push(`dry run: ${path} not written`);
  else {
    lines.push(`written     ${path}`);
    if (result.backedUp) lines.push(`backup      ${result.backup} (your settings as they were)`);
  }
  return lines;
}
