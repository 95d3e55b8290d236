/**
 * `pitroom install` / `pitroom uninstall`: put Pitroom into the user's agent clients and take it
 * out again. Three parts, each its own module: the status line and hook card in Claude Code's
 * settings (install_settings.ts), the skills in `~/.agents/skills` and `~/.claude/skills`
 * (install_skills.ts), and the MCP server registered in each client (install_mcp.ts). Without a
 * part flag (`--statusline`, `--skills`, `--mcp`) the first two run; with any, exactly those.
 * Every part first runs as a dry run, so a config that cannot be read stops the command before
 * anything is written; what skills and MCP entries were put in place is kept in the install
 * record (install_record.ts), which `uninstall` follows to remove exactly those.
 */
import type { Sys } from "../sys/mod.ts";
import type { CommandRun, FlagValuesOf } from "./command.ts";
import type { INSTALL_FLAGS, UNINSTALL_FLAGS } from "./install_command.ts";
import { type InstallRecord, readRecord, writeRecord } from "./install_record.ts";
import { installMcp, type McpChange, parseClients, uninstallMcp } from "./install_mcp.ts";
import { applySettings, describeSettings, type SettingsResult } from "./install_settings.ts";
import {
  installSkills,
  type SkillChange,
  skillRoots,
  skillSource,
  uninstallSkills,
} from "./install_skills.ts";
import { printJson } from "./output.ts";

export { pitroomArgs, planInstall, planUninstall } from "./install_settings.ts";

interface Parts {
  statusline: boolean;
  skills: boolean;
  mcp: boolean;
}

/** The values of install's flags; uninstall takes these but --copy and --force. */
type InstallValues = FlagValuesOf<typeof INSTALL_FLAGS>;

function partsOf(flags: InstallValues): Parts {
  const mcp = flags.mcp === true || flags.client !== undefined;
  const named = flags.statusline === true || flags.skills === true || mcp;
  return named
    ? { statusline: flags.statusline === true, skills: flags.skills === true, mcp }
    : { statusline: true, skills: true, mcp: false };
}

interface Outcome {
  settings?: SettingsResult;
  skills?: SkillChange[];
  mcp?: McpChange[];
}

async function runParts(
  sys: Sys,
  flags: InstallValues,
  record: InstallRecord,
  options: { install: boolean; dryRun: boolean },
): Promise<Outcome> {
  const parts = partsOf(flags);
  const { install, dryRun } = options;
  const force = flags.force === true;
  const clients = parseClients(flags.client);
  const outcome: Outcome = {};
  if (parts.statusline) outcome.settings = await applySettings(sys, { install, dryRun });
  if (parts.skills) {
    outcome.skills = install
      ? await installSkills(sys, record, {
        source: skillSource(sys),
        roots: skillRoots(sys.env),
        copy: flags.copy === true,
        force,
        dryRun,
        stamp: new Date(sys.clock.now()).toISOString().replace(/[-:]/g, "").slice(0, 15),
      })
      : await uninstallSkills(record, dryRun);
  }
  if (parts.mcp) {
    outcome.mcp = install
      ? await installMcp(sys, record, { clients, force, dryRun })
      : await uninstallMcp(sys, record, { clients, dryRun });
  }
  return outcome;
}

const SKILL_WORDS: Record<SkillChange["action"], string> = {
  added: "added",
  unchanged: "already there",
  updated: "updated",
  kept: "yours kept (--force replaces it, backed up)",
  replaced: "replaced, yours backed up",
  removed: "removed",
  restored: "removed, yours given back",
  left: "changed since the install: left alone",
  absent: "not there",
};

/** The same, said of a dry run: what would happen. */
const SKILL_WORDS_DRY: Record<SkillChange["action"], string> = {
  added: "would add",
  unchanged: "already there",
  updated: "would update",
  kept: "yours would be kept (--force replaces it, backed up)",
  replaced: "would replace, yours backed up",
  removed: "would remove",
  restored: "would remove, yours given back",
  left: "changed since the install: would be left alone",
  absent: "not there",
};

const MCP_WORDS: Record<McpChange["action"], string> = {
  added: "registered",
  unchanged: "already registered",
  updated: "updated",
  kept: `another "pitroom" server is registered: kept (--force replaces it)`,
  replaced: `replaced your "pitroom" server (given back by uninstall)`,
  removed: "removed",
  restored: `removed, your "pitroom" server given back`,
  left: "changed since the install: left alone",
  absent: "not registered",
};

/** The same, said of a dry run: what would happen. */
const MCP_WORDS_DRY: Record<McpChange["action"], string> = {
  added: "would register",
  unchanged: "already registered",
  updated: "would update",
  kept: `another "pitroom" server is registered: would be kept (--force replaces it)`,
  replaced: `would replace your "pitroom" server (given back by uninstall)`,
  removed: "would remove",
  restored: `would remove, your "pitroom" server given back`,
  left: "changed since the install: would be left alone",
  absent: "not registered",
};

function describe(outcome: Outcome, dryRun: boolean): string[] {
  const lines: string[] = [];
  if (outcome.settings) lines.push(...describeSettings(outcome.settings, dryRun));
  if (outcome.skills) {
    if (outcome.skills.length === 0) lines.push("skills      none to install or remove");
    for (const c of outcome.skills) {
      const kind = c.kind && (c.action === "added" || c.action === "updated") ? ` (${c.kind})` : "";
      const backup = c.backup ? `: ${c.backup}` : "";
      const words = dryRun ? SKILL_WORDS_DRY : SKILL_WORDS;
      lines.push(`skill       ${c.path}  ${words[c.action]}${kind}${backup}`);
    }
  }
  if (outcome.mcp) {
    if (outcome.mcp.length === 0) lines.push("mcp         no client found or nothing recorded");
    for (const c of outcome.mcp) {
      const words = dryRun ? MCP_WORDS_DRY : MCP_WORDS;
      lines.push(`mcp         ${c.client.padEnd(14)} ${words[c.action]}  (${c.config})`);
      for (const command of c.commands ?? []) {
        lines.push(`              ${dryRun ? "would run" : "ran"}: ${command}`);
      }
      if (c.backup) lines.push(`              backup: ${c.backup}`);
    }
  }
  if (dryRun && (outcome.skills || outcome.mcp)) lines.push("dry run: nothing written");
  return lines;
}

async function apply(sys: Sys, flags: InstallValues, install: boolean): Promise<number> {
  const dryRun = flags["dry-run"] === true;
  // A dry run first: a config that cannot be read stops everything before the first write.
  const outcome = await runParts(sys, flags, await readRecord(sys.stateDir), {
    install,
    dryRun: true,
  });
  let result = outcome;
  if (!dryRun) {
    const record = await readRecord(sys.stateDir);
    result = await runParts(sys, flags, record, { install, dryRun: false });
    if (result.skills !== undefined || result.mcp !== undefined) {
      await writeRecord(sys.stateDir, record);
    }
  }
  if (flags.json) {
    const { settings, ...rest } = result;
    printJson(sys, {
      dryRun,
      ...(settings
        ? {
          settingsPath: settings.settingsPath,
          changed: settings.changed,
          changes: settings.changes,
          backup: settings.backup,
        }
        : {}),
      ...rest,
    });
    return 0;
  }
  for (const line of describe(result, dryRun)) sys.out.stdout(`${line}\n`);
  return 0;
}

/** Puts the status line and hook card, the skills and (`--mcp`) the MCP server in place. */
export const installCommand: CommandRun<typeof INSTALL_FLAGS> = ({ sys, flags }) =>
  apply(sys, flags, true);

/** Takes out again what `install` put in place. */
export const uninstallCommand: CommandRun<typeof UNINSTALL_FLAGS> = ({ sys, flags }) =>
  apply(sys, flags, false);
