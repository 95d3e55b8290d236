/** The bash completion script, generated from the completion model. */
import type { CompletionCommand, CompletionFlag, ValueKind } from "./completion_model.ts";

function reply(value: ValueKind): string {
  switch (value.kind) {
    case "runs":
    case "groups":
    case "workers":
      return `_pitroom_words "$(_pitroom_dynamic ${value.kind})"`;
    case "words":
      return `_pitroom_words "${value.words.join(" ")}"`;
    case "files":
      return `compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -f -- "$cur")`;
    case "dirs":
      return `compopt -o filenames 2>/dev/null; mapfile -t COMPREPLY < <(compgen -d -- "$cur")`;
    case "free":
      return ":";
  }
}

function spellings(flag: CompletionFlag): string[] {
  return [...(flag.short === undefined ? [] : [`-${flag.short}`]), `--${flag.long}`];
}

function commandCase(cmd: CompletionCommand): string[] {
  const valued = cmd.flags.filter((f) => f.value !== null);
  const lines = [`    ${cmd.name})`];
  if (valued.length > 0) {
    lines.push(`      case "$prev" in`);
    for (const flag of valued) {
      lines.push(`        ${spellings(flag).join("|")}) ${reply(flag.value!)}; return 0 ;;`);
    }
    lines.push(`      esac`);
  }
  const all = cmd.flags.flatMap(spellings).join(" ");
  lines.push(`      if [[ $cur == -* ]]; then _pitroom_words "${all}"; return 0; fi`);
  lines.push(`      ${reply(cmd.args)}`);
  lines.push(`      ;;`);
  return lines;
}

/** The script `pitroom completions bash` prints. */
export function bashScript(commands: CompletionCommand[]): string {
  return [
    "# bash completion for pitroom (made by `pitroom completions bash`; make it again after an update)",
    "# Load it with: source <(pitroom completions bash)",
    "_pitroom_dynamic() {",
    '  "${COMP_WORDS[0]}" __complete "$1" 2>/dev/null',
    "}",
    "_pitroom_words() {",
    '  mapfile -t COMPREPLY < <(compgen -W "$1" -- "$cur")',
    "}",
    "_pitroom() {",
    '  local cur="${COMP_WORDS[COMP_CWORD]}" prev="" cmd="${COMP_WORDS[1]}"',
    '  (( COMP_CWORD > 0 )) && prev="${COMP_WORDS[COMP_CWORD-1]}"',
    "  # --flag=value: bash splits at the =",
    '  if [[ $cur == "=" ]]; then cur=""; fi',
    '  if [[ $prev == "=" ]] && (( COMP_CWORD > 1 )); then prev="${COMP_WORDS[COMP_CWORD-2]}"; fi',
    "  COMPREPLY=()",
    "  if (( COMP_CWORD == 1 )); then",
    `    _pitroom_words "${["--help", "--version", ...commands.map((c) => c.name)].join(" ")}"`,
    "    return 0",
    "  fi",
    '  case "$cmd" in',
    ...commands.flatMap(commandCase),
    "  esac",
    "  return 0",
    "}",
    "complete -F _pitroom pitroom",
    "",
  ].join("\n");
}
