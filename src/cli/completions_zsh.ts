/** The zsh completion script, generated from the completion model. */
import type { CompletionCommand, CompletionFlag, ValueKind } from "./completion_model.ts";

/** A word in single quotes for zsh. */
function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

function reply(value: ValueKind): string {
  switch (value.kind) {
    case "runs":
    case "groups":
    case "workers":
      return `compadd -- \${(f)"$(_pitroom_dynamic ${value.kind})"}`;
    case "words":
      return `compadd -- ${value.words.join(" ")}`;
    case "files":
      return "_files";
    case "dirs":
      return "_directories";
    case "free":
      return ":";
  }
}

function spellings(flag: CompletionFlag): string[] {
  return [...(flag.short === undefined ? [] : [`-${flag.short}`]), `--${flag.long}`];
}

/** `compadd` of names, each shown with its description. */
function described(names: string[], describe: string[], indent: string): string[] {
  return [
    `${indent}local -a names=(${names.join(" ")})`,
    `${indent}local -a shown=(`,
    ...names.map((n, i) => `${indent}  ${quote(`${n}  -- ${describe[i]}`)}`),
    `${indent})`,
    `${indent}compadd -l -d shown -- $names`,
  ];
}

function commandCase(cmd: CompletionCommand): string[] {
  const valued = cmd.flags.filter((f) => f.value !== null);
  const lines = [`    ${cmd.name})`];
  if (valued.length > 0) {
    lines.push(`      case $prev in`);
    for (const flag of valued) {
      lines.push(`        ${spellings(flag).join("|")}) ${reply(flag.value!)}; return ;;`);
    }
    lines.push(`      esac`);
  }
  const names = cmd.flags.flatMap(spellings);
  const describe = cmd.flags.flatMap((f) => spellings(f).map(() => f.describe));
  lines.push(`      if [[ $cur == -* ]]; then`);
  lines.push(...described(names, describe, "        "));
  lines.push(`        return`);
  lines.push(`      fi`);
  lines.push(`      ${reply(cmd.args)}`);
  lines.push(`      ;;`);
  return lines;
}

/** The script `pitroom completions zsh` prints. */
export function zshScript(commands: CompletionCommand[]): string {
  return [
    "#compdef pitroom",
    "# zsh completion for pitroom (made by `pitroom completions zsh`; make it again after an update)",
    "# Load it with: source <(pitroom completions zsh), after compinit; or save it as _pitroom in $fpath",
    "_pitroom_dynamic() {",
    "  ${words[1]} __complete $1 2>/dev/null",
    "}",
    "_pitroom() {",
    "  local cur=${words[CURRENT]} prev=${words[CURRENT-1]} cmd=${words[2]}",
    "  if (( CURRENT == 2 )); then",
    ...described(commands.map((c) => c.name), commands.map((c) => c.summary), "    "),
    "    return",
    "  fi",
    "  case $cmd in",
    ...commands.flatMap(commandCase),
    "  esac",
    "}",
    // Autoloaded from $fpath the file is the function's body; sourced, it registers itself.
    'if [[ "$funcstack[1]" == _pitroom ]]; then _pitroom "$@"; else compdef _pitroom pitroom; fi',
    "",
  ].join("\n");
}
