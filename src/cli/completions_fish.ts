/** The fish completion script, generated from the completion model. */
import type { CompletionCommand, CompletionFlag, ValueKind } from "./completion_model.ts";

/** A word in single quotes for fish. */
function quote(text: string): string {
  return `'${text.replaceAll("\\", "\\\\").replaceAll("'", "\\'")}'`;
}

function values(value: ValueKind): string {
  switch (value.kind) {
    case "runs":
    case "groups":
    case "workers":
      return `-f -a '(__pitroom_dynamic ${value.kind})'`;
    case "words":
      return `-f -a ${quote(value.words.join(" "))}`;
    case "files":
      return "-F";
    case "dirs":
      return "-f -a '(__fish_complete_directories)'";
    case "free":
      return "-f";
  }
}

function flagLine(cmd: string, flag: CompletionFlag): string {
  const parts = [`complete -c pitroom -n '__pitroom_using ${cmd}'`];
  if (flag.short !== undefined) parts.push(`-s ${flag.short}`);
  parts.push(`-l ${flag.long}`);
  if (flag.value !== null) parts.push(`-r ${values(flag.value)}`);
  parts.push(`-d ${quote(flag.describe)}`);
  return parts.join(" ");
}

function commandLines(cmd: CompletionCommand): string[] {
  const lines = [
    `complete -c pitroom -n __pitroom_needs_command -a ${cmd.name} -d ${quote(cmd.summary)}`,
    ...cmd.flags.map((f) => flagLine(cmd.name, f)),
  ];
  if (cmd.args.kind !== "free") {
    // Not while a flag is being typed: fish would start pitroom for the run ids at each flag's tab.
    lines.push(`complete -c pitroom -n '__pitroom_argument ${cmd.name}' ${values(cmd.args)}`);
  }
  return lines;
}

/** The script `pitroom completions fish` prints. */
export function fishScript(commands: CompletionCommand[]): string {
  return [
    "# fish completion for pitroom (made by `pitroom completions fish`; make it again after an update)",
    "# Load it with: pitroom completions fish | source",
    "function __pitroom_needs_command",
    "    test (count (commandline -opc)) -eq 1",
    "end",
    "function __pitroom_using",
    "    set -l words (commandline -opc)",
    '    test (count $words) -ge 2; and test "$words[2]" = $argv[1]',
    "end",
    "function __pitroom_argument",
    "    set -l token (commandline -ct)",
    "    __pitroom_using $argv[1]; and not string match -q -- '-*' \"$token\"",
    "end",
    "function __pitroom_dynamic",
    "    set -l words (commandline -opc)",
    "    $words[1] __complete $argv[1] 2>/dev/null",
    "end",
    "complete -c pitroom -e",
    "complete -c pitroom -f",
    ...commands.flatMap(commandLines),
    "",
  ].join("\n");
}
