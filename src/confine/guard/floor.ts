/**
 * The floor's program shims (pure): next to the git shim, first on the worker's PATH. A refused
 * program (`sudo`, `pitroom`) is refused outright; a publishing program (`npm`, `cargo`, `gh`,
 * ...) is refused in its publishing forms and otherwise passed to the real program, the first
 * one on PATH after the guard's folder.
 */
import { alternatives, fillTemplate, findRealProgram, shQuote } from "./sh.ts";

/** A program refused outright. */
export interface RefusedProgram {
  program: string;
  /** Why, for the one line the worker sees. */
  why: string;
  /** @default 1 */
  exitCode?: number;
}

/** A program refused in some forms (`publish`; `release create`: `create` after `release`). */
export interface GuardedProgram {
  program: string;
  forms: readonly string[];
  why: string;
}

/** The shim of a program refused outright. */
export function refusedProgramScript(rule: RefusedProgram): string {
  return `#!/bin/sh
# Pitroom's floor (generated): \`${rule.program}\` is refused in a worker run.
printf 'pitroom: \\140%s\\140 is not allowed in a worker run: %s\\n' ${shQuote(rule.program)} ${
    shQuote(rule.why)
  } >&2
exit ${rule.exitCode ?? 1}
`;
}

const GUARDED_TEMPLATE = String.raw`#!/bin/sh
# Pitroom's floor (generated): some forms of __PROGRAM__ are refused in a worker run (__WHY__);
# everything else goes to the real __PROGRAM__, the first one on PATH after this folder.
self=__SELF__
refuse() {
  printf 'pitroom: \140%s %s\140 is not allowed in a worker run: %s\n' __PROGRAM_Q__ "$1" __WHY_Q__ >&2
  exit 1
}
__CHECKS__
__FIND_REAL__
exec "$real" "$@"
`;

/** Shell loops that refuse the program's forms among "$@". */
function formChecks(forms: readonly string[]): string {
  const single = forms.filter((f) => !f.includes(" "));
  const pairs = new Map<string, string[]>();
  for (const form of forms.filter((f) => f.includes(" "))) {
    const [first, second] = form.split(" ", 2) as [string, string];
    pairs.set(first, [...(pairs.get(first) ?? []), second]);
  }
  const checks: string[] = [];
  if (single.length > 0) {
    checks.push(`for a in "$@"; do
  case $a in
    ${alternatives(single.map(shQuote))}) refuse "$a" ;;
  esac
done`);
  }
  for (const [first, seconds] of pairs) {
    checks.push(`seen=0
for a in "$@"; do
  if [ "$seen" = 1 ]; then
    case $a in
      ${alternatives(seconds.map(shQuote))}) refuse ${shQuote(first)}" $a" ;;
    esac
  fi
  if [ "$a" = ${shQuote(first)} ]; then seen=1; fi
done`);
  }
  return checks.join("\n");
}

/** The shim of a program refused in some forms; `self` is the guard's folder. */
export function guardedProgramScript(self: string, rule: GuardedProgram): string {
  return fillTemplate(GUARDED_TEMPLATE, {
    PROGRAM: rule.program,
    WHY: rule.why,
    SELF: shQuote(self),
    PROGRAM_Q: shQuote(rule.program),
    WHY_Q: shQuote(rule.why),
    CHECKS: formChecks(rule.forms),
    FIND_REAL: findRealProgram(rule.program),
  });
}
