/**
 * Whether a worker's shell command, as its tool call reports it, certainly changes no file: a
 * pipeline of simple commands from a short list of programs that only read, with none of their
 * options that write or run something else. Anything else could change any file. Pure.
 *
 * The command is read as the parsers give it: on one line (their targets collapse whitespace),
 * so a command cut with "…", or one that uses anything beyond words, quotes and `|` (redirection,
 * `;`, `&`, `$`, backquotes, parentheses, a backslash), is not bounded.
 */

/** Options that make a listed program write a file or run another program. */
const WRITING_OPTIONS: Readonly<Record<string, readonly string[]>> = {
  cat: [],
  head: [],
  tail: [],
  nl: [],
  wc: [],
  ls: [],
  pwd: [],
  echo: [],
  true: [],
  stat: [],
  du: [],
  cut: [],
  cmp: [],
  diff: [],
  grep: [],
  egrep: [],
  fgrep: [],
  rg: ["--pre"],
  tree: ["-o"],
  sort: ["-o", "--output", "--compress-program"],
  find: [
    "-exec",
    "-execdir",
    "-ok",
    "-okdir",
    "-delete",
    "-fprint",
    "-fprint0",
    "-fprintf",
    "-fls",
  ],
};

/** git subcommands that only read (with no option that writes or runs a program). */
const GIT_READING = new Set(["status", "diff", "log", "show", "ls-files", "rev-parse", "blame"]);
const GIT_WRITING_OPTIONS = ["--output", "-o", "--ext-diff"];

/** sed's only bounded form: `sed -n 'A,Bp' FILE...` (a line range printed). */
const SED_PRINT = /^(\d+|\$)(,(\d+|\$))?p$/;

/** The words of each stage of a pipeline, quotes removed; null when it is not that simple. */
export function pipelineWords(command: string): string[][] | null {
  const stages: string[][] = [[]];
  let word: string | null = null;
  let quote: "'" | '"' | null = null;
  for (const ch of command) {
    if (quote === "'") {
      if (ch === "'") quote = null;
      else word += ch;
      continue;
    }
    if (quote === '"') {
      if (ch === '"') quote = null;
      else if (ch === "$" || ch === "`" || ch === "\\") return null;
      else word += ch;
      continue;
    }
    if (ch === "'" || ch === '"') {
      quote = ch;
      word ??= "";
    } else if (ch === " " || ch === "\t") {
      if (word !== null) stages.at(-1)!.push(word);
      word = null;
    } else if (ch === "|") {
      if (word !== null) stages.at(-1)!.push(word);
      word = null;
      if (stages.at(-1)!.length === 0) return null;
      stages.push([]);
    } else if (/[;&<>`$()\\\n\r{}]/.test(ch)) {
      return null;
    } else word = (word ?? "") + ch;
  }
  if (quote !== null) return null;
  if (word !== null) stages.at(-1)!.push(word);
  return stages.every((stage) => stage.length > 0) ? stages : null;
}

function hasOption(args: readonly string[], options: readonly string[]): boolean {
  return args.some((arg) =>
    options.some((option) =>
      arg === option || (option.startsWith("--") && arg.startsWith(`${option}=`)) ||
      // A short option may come glued to its value or to other short options (`-ofile`, `-no`).
      (!option.startsWith("--") && option.length === 2 && /^-[a-zA-Z]/.test(arg) &&
        !arg.startsWith("--") && arg.slice(1).includes(option[1]!))
    )
  );
}

function stageReadsOnly(words: readonly string[]): boolean {
  const [program, ...args] = words;
  if (program === undefined) return false;
  if (program === "sed") {
    const options = args.filter((arg) => arg.startsWith("-"));
    const rest = args.filter((arg) => !arg.startsWith("-"));
    return options.length > 0 && options.every((o) => o === "-n") && SED_PRINT.test(rest[0] ?? "");
  }
  if (program === "git") {
    return GIT_READING.has(args[0] ?? "") && !hasOption(args.slice(1), GIT_WRITING_OPTIONS);
  }
  const writing = WRITING_OPTIONS[program];
  return writing !== undefined && !hasOption(args, writing);
}

/** True when the reported command certainly changes no file. */
export function readsOnly(command: string): boolean {
  if (command.endsWith("…")) return false;
  const stages = pipelineWords(command.trim());
  return stages !== null && stages.every(stageReadsOnly);
}
