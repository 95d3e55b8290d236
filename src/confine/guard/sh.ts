/**
 * Small helpers the guard's shell generators share (pure).
 */

/** A POSIX shell single-quoted word. */
export function shQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * A case pattern that matches `word` in any letter case (`commit` -> `[cC][oO]...`); a `*`
 * stays a wildcard.
 */
export function anyCase(word: string): string {
  return [...word].map((ch) => {
    const lower = ch.toLowerCase();
    const upper = ch.toUpperCase();
    if (lower !== upper) return `[${lower}${upper}]`;
    return /[?[\]\\|&;<>()$`"' ]/.test(ch) ? `\\${ch}` : ch;
  }).join("");
}

/** Case patterns joined with `|` (one alternative per word). */
export function alternatives(words: readonly string[], pattern = (w: string) => w): string {
  return words.map(pattern).join(" | ");
}

/**
 * Turns a shell template written with `@{` for `${` (so TypeScript leaves the shell's own
 * parameter expansions alone) and `__NAME__` placeholders into the script.
 */
export function fillTemplate(template: string, values: Record<string, string>): string {
  let out = template.replaceAll("@{", "${");
  for (const [name, value] of Object.entries(values)) out = out.replaceAll(`__${name}__`, value);
  const left = /__[A-Z_]+__/.exec(out);
  if (left) throw new Error(`guard template: no value for ${left[0]}`);
  return out;
}

/**
 * The shell lines that find the real `program`: the first executable of that name on PATH that
 * is not in the guard's own folder `$self`. Leaves it in `$real`; exits 127 when there is none.
 */
export function findRealProgram(program: string): string {
  return String.raw`real=
ifs=$IFS
IFS=:
set -f
for d in $PATH; do
  case $d in '' | "$self" | "$self/") continue ;; esac
  if [ -f "$d/${program}" ] && [ -x "$d/${program}" ] && ! [ "$d/${program}" -ef "$self/${program}" ]; then
    real=$d/${program}
    break
  fi
done
set +f
IFS=$ifs
if [ -z "$real" ]; then
  echo "${program}: command not found" >&2
  exit 127
fi`;
}
