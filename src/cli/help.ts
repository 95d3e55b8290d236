/**
 * Help text, generated from the command declarations.
 */
import type { CommandDef, FlagDef } from "./command.ts";

function flagLabel(f: FlagDef): string {
  const value = f.type === "boolean" ? "" : ` ${f.value}`;
  return `${f.short ? `-${f.short}, ` : "    "}--${f.name}${value}`;
}

/** What help says after a flag's description: its default, or that it must be given. */
function flagNote(f: FlagDef): string {
  if (f.type === "boolean" || f.type === "repeated") return "";
  if (f.default !== undefined) return ` (default ${f.default})`;
  return f.required ? " (required)" : "";
}

/** The help flag every command takes. */
const HELP_FLAG: FlagDef = {
  name: "help",
  short: "h",
  type: "boolean",
  describe: "show this help",
};

/** Help for one command. */
export function commandHelp(def: CommandDef): string {
  const args = def.args.map((a) => {
    const name = a.variadic ? `${a.name}...` : a.name;
    return a.required ? name : `[${name}]`;
  });
  const lines = [
    `pitroom ${def.name} - ${def.summary}`,
    "",
    `Usage: pitroom ${def.name}${def.flags.length ? " [flags]" : ""}${
      args.length ? " " + args.join(" ") : ""
    }`,
  ];
  if (def.description) lines.push("", def.description);
  if (def.args.length) {
    lines.push("", "Arguments:");
    for (const a of def.args) lines.push(`  ${a.name.padEnd(24)} ${a.describe}`);
  }
  lines.push("", "Flags:");
  for (const f of [...def.flags, HELP_FLAG]) {
    lines.push(`  ${flagLabel(f).padEnd(28)} ${f.describe}${flagNote(f)}`);
  }
  if (def.examples.length) {
    lines.push("", "Examples:");
    for (const e of def.examples) lines.push(`  ${e}`);
  }
  return lines.join("\n") + "\n";
}

/**
 * The visible commands by group, in the order `pitroom help` and the CLI reference (docs/cli.md,
 * scripts/cli_reference.ts) list them. Every visible command is in exactly one group (a test
 * keeps it so).
 */
export const COMMAND_GROUPS: readonly { title: string; commands: readonly string[] }[] = [
  { title: "Runs", commands: ["run", "status", "ls", "watch", "wait", "stop"] },
  { title: "Crews", commands: ["crew"] },
  { title: "Results", commands: ["show", "apply", "discard", "revert"] },
  { title: "Review and plans", commands: ["review", "plan", "audit", "eval"] },
  { title: "History and receipts", commands: ["history", "savings", "clean"] },
  {
    title: "Integrations",
    commands: ["install", "uninstall", "mcp", "dash", "statusline", "hook-card", "completions"],
  },
  {
    title: "Maintenance",
    commands: ["init", "doctor", "self-check", "config", "models", "cooldown", "host", "help"],
  },
];

/** The visible commands in their groups, in help's order; a command in no group is left out. */
export function groupedCommands(
  commands: readonly CommandDef[],
): { title: string; commands: CommandDef[] }[] {
  return COMMAND_GROUPS.map((g) => ({
    title: g.title,
    commands: g.commands.map((name) => commands.find((c) => c.name === name && !c.hidden))
      .filter((c) => c !== undefined),
  }));
}

/** The overview `pitroom help` prints: the commands by group. */
export function overviewHelp(commands: readonly CommandDef[], version: string): string {
  const groups = groupedCommands(commands);
  const width = Math.max(...groups.flatMap((g) => g.commands.map((c) => c.name.length))) + 2;
  return [
    `pitroom ${version} - hand tasks to worker agent CLIs, with exact change tracking`,
    "",
    "Usage: pitroom <command> [flags]",
    ...groups.flatMap((g) => [
      "",
      `${g.title}:`,
      ...g.commands.map((c) => `  ${c.name.padEnd(width)} ${c.summary}`),
    ]),
    "",
    "Exit codes: 0 ok, 1 worker failed, 2 usage, 3 refused/setup, 4 timeout,",
    "            5 read-only violation, 6 verify failed, 7 damaged record, 75 still running",
    "",
    "Run `pitroom <command> --help` for a command's flags, `pitroom help events` for the",
    "JSON events of `show --events`.",
    "",
  ].join("\n");
}
