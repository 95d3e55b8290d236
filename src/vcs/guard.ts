/**
 * The git guard: a `git` on the worker's PATH that refuses the subcommands that change history,
 * refs or the index (resolving aliases first) and passes everything else to the real git. It is
 * a POSIX shell script, so it costs a worker's `git status` nothing noticeable, and it catches
 * what a CLI's own permission rules miss (`sh -c "git commit"`, `git -C dir push`, an alias).
 */
import { join } from "../sys/path.ts";

/** What the guard refuses and where the real git is. */
export interface GuardOptions {
  /** Absolute path of the real git. */
  realGit: string;
  /** Refused subcommands: one word (`commit`) or a subcommand with a flag (`branch -D`). */
  denied: readonly string[];
}

function shQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** The guard script (pure). */
export function guardScript(options: GuardOptions): string {
  const words = options.denied.filter((d) => !d.includes(" "));
  const flagged = new Map<string, string[]>();
  for (const d of options.denied.filter((d) => d.includes(" "))) {
    const [sub, flag] = d.split(" ", 2) as [string, string];
    flagged.set(sub, [...(flagged.get(sub) ?? []), flag]);
  }
  const flagCases = [...flagged].map(([sub, flags]) =>
    `  ${sub})\n    for a in "$@"; do case "$a" in ${
      flags.join("|")
    }) refuse "$sub $a" ;; esac; done ;;`
  ).join("\n");
  return `#!/bin/sh
# Pitroom's git guard: a worker may not change git history, refs or the index.
real=${shQuote(options.realGit)}
refuse() {
  echo "pitroom: \\\`git $1\\\` is not allowed in a worker run: it changes history, refs or the index" >&2
  exit 1
}
sub=''
skip=0
for a in "$@"; do
  if [ "$skip" = 1 ]; then skip=0; continue; fi
  case "$a" in
    -C|-c|--git-dir|--work-tree|--namespace|--exec-path|--config-env) skip=1 ;;
    -*) ;;
    *) sub="$a"; break ;;
  esac
done
n=0
while [ -n "$sub" ] && [ "$n" -lt 5 ]; do
  alias=$("$real" config --get "alias.$sub" 2>/dev/null) || break
  case "$alias" in
    '!'*) refuse "$sub (a shell alias)" ;;
  esac
  sub=\${alias%% *}
  n=$((n + 1))
done
case "$sub" in
  ${words.join("|")}) refuse "$sub" ;;
${flagCases}
esac
exec "$real" "$@"
`;
}

/** Writes the guard as `<dir>/git` (executable), rewriting it only when it changed. */
export async function writeGitGuard(dir: string, options: GuardOptions): Promise<string> {
  const path = join(dir, "git");
  const script = guardScript(options);
  let current: string | null = null;
  try {
    current = await Deno.readTextFile(path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  if (current !== script) {
    await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
    const temp = `${path}.${Deno.pid}.tmp`;
    await Deno.writeTextFile(temp, script, { mode: 0o755 });
    await Deno.rename(temp, path);
  }
  return path;
}
