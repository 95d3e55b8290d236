/**
 * The git shim of the guard (first layer): a POSIX shell `git` that refuses the subcommands that
 * change history, refs or the index, resolving aliases first, and execs the real git for
 * everything else. It costs a worker's `git status` one `sh`: a subcommand git knows is never
 * looked up as an alias (git ignores aliases that hide its own commands), so only an unknown word
 * costs one `git config --get alias.WORD`.
 */
import { alternatives, anyCase, fillTemplate, findRealProgram, shQuote } from "./sh.ts";

/** What the git shim refuses. */
export interface GitShimOptions {
  /** The guard's folder (where the shim lives), skipped when looking for the real git. */
  self: string;
  /** Subcommands refused whatever their arguments. */
  refused: readonly string[];
  /** Subcommands refused in their writing forms (each needs a checker in `FORM_CHECKERS`). */
  forms: readonly string[];
}

/**
 * Subcommands git always runs itself, so no alias can hide them: the shim skips the alias
 * lookup for these (and for every refused or checked one).
 */
const READ_BUILTINS = [
  "status",
  "diff",
  "log",
  "show",
  "rev-parse",
  "ls-files",
  "ls-tree",
  "cat-file",
  "grep",
  "blame",
  "annotate",
  "describe",
  "shortlog",
  "rev-list",
  "diff-tree",
  "diff-files",
  "diff-index",
  "merge-base",
  "merge-tree",
  "merge-file",
  "for-each-ref",
  "show-ref",
  "show-branch",
  "name-rev",
  "version",
  "help",
  "var",
  "check-ignore",
  "check-attr",
  "check-ref-format",
  "ls-remote",
  "archive",
  "format-patch",
  "range-diff",
  "whatchanged",
  "cherry",
  "count-objects",
  "fsck",
  "verify-commit",
  "verify-tag",
  "hash-object",
  "init",
  "clone",
];

/** Config keys `-c`/`--config-env` may not set: they would step around the guard. */
const GUARDED_CONFIG = ["alias.*", "core.hookspath", "url.*", "include.*", "includeif.*"];

const CHANGES = "it changes git history, refs, the index or files git tracks";

/**
 * Shell functions that decide a subcommand's writing forms. Each gets the subcommand's
 * arguments (an alias's own words first) and calls `refuse` for a writing form.
 */
export const FORM_CHECKERS: Readonly<Record<string, string>> = {
  branch: String.raw`list=0 pos=0
  for a in "$@"; do
    case $a in
      -d | -D | --delete | -m | -M | --move | -c | -C | --copy | -f | --force | -u | \
      --set-upstream-to | --set-upstream-to=* | --unset-upstream | --edit-description | -t | \
      --track | --track=* | --no-track | --create-reflog | --recurse-submodules)
        refuse "$shown $a" "it changes branches" ;;
      -l | --list | -a | --all | -r | --remotes | --show-current | --contains | --contains=* | \
      --no-contains | --no-contains=* | --merged | --merged=* | --no-merged | --no-merged=* | \
      --points-at | --points-at=*)
        list=1 ;;
      --*) ;;
      -*[dDmMcCfut]*) refuse "$shown $a" "it changes branches" ;;
      -*[alr]*) list=1 ;;
      -*) ;;
      *) pos=$((pos + 1)) ;;
    esac
  done
  if [ "$pos" -gt 0 ] && [ "$list" = 0 ]; then
    refuse "$shown $*" "it creates a branch (listing is allowed: git branch, git branch --list)"
  fi`,
  tag: String.raw`list=0 pos=0
  for a in "$@"; do
    case $a in
      -d | --delete | -a | --annotate | -s | --sign | -u | --local-user | --local-user=* | -f | \
      --force | -m | --message | --message=* | -F | --file | --file=* | -e | --edit | \
      --trailer | --trailer=* | --cleanup | --cleanup=* | --create-reflog)
        refuse "$shown $a" "it changes tags" ;;
      -l | --list | -n* | --contains | --contains=* | --no-contains | --no-contains=* | \
      --merged | --merged=* | --no-merged | --no-merged=* | --points-at | --points-at=* | \
      -v | --verify)
        list=1 ;;
      --*) ;;
      -*[dasufmFe]*) refuse "$shown $a" "it changes tags" ;;
      -*[lv]*) list=1 ;;
      -*) ;;
      *) pos=$((pos + 1)) ;;
    esac
  done
  if [ "$pos" -gt 0 ] && [ "$list" = 0 ]; then
    refuse "$shown $*" "it creates a tag (listing is allowed: git tag, git tag -l)"
  fi`,
  config: String.raw`read=0 fa=
  for a in "$@"; do
    case $a in
      --add | --unset | --unset-all | --replace-all | --rename-section | --remove-section | -e | \
      --edit)
        refuse "$shown $a" "it changes git configuration" ;;
      --get | --get-all | --get-regexp | --get-urlmatch | --get-color | --get-colorbool | -l | \
      --list)
        read=1 ;;
      -*) ;;
      *) [ -n "$fa" ] || fa=$a ;;
    esac
  done
  case $fa in
    get | list) read=1 ;;
    set | unset | rename-section | remove-section | edit) read=0 ;;
  esac
  if [ "$read" = 0 ]; then
    refuse "$shown $*" "it changes git configuration (reading is allowed: git config --get NAME, git config --list)"
  fi`,
  remote: String.raw`first_arg "$@"
  case $fa in
    '' | show | get-url) ;;
    *) refuse "$shown $fa" "it changes remotes" ;;
  esac`,
  stash: String.raw`first_arg "$@"
  case $fa in
    list | show) ;;
    *) refuse "$shown@{fa:+ $fa}" "it changes the stash or the files (reading is allowed: git stash list, git stash show)" ;;
  esac`,
  worktree: String.raw`first_arg "$@"
  case $fa in
    list) ;;
    *) refuse "$shown@{fa:+ $fa}" "it changes worktrees" ;;
  esac`,
  notes: String.raw`fa= skip=0
  for a in "$@"; do
    if [ "$skip" = 1 ]; then skip=0; continue; fi
    case $a in
      --ref) skip=1 ;;
      -*) ;;
      *) fa=$a; break ;;
    esac
  done
  case $fa in
    '' | list | show | get-ref) ;;
    *) refuse "$shown $fa" "it changes notes" ;;
  esac`,
  reflog: String.raw`first_arg "$@"
  case $fa in
    expire | delete | drop) refuse "$shown $fa" "it deletes reflog entries" ;;
  esac`,
  "symbolic-ref": String.raw`pos=0
  for a in "$@"; do
    case $a in
      -d | --delete | -m) refuse "$shown $a" "it changes a symbolic ref" ;;
      -*) ;;
      *) pos=$((pos + 1)) ;;
    esac
  done
  if [ "$pos" -gt 1 ]; then refuse "$shown $*" "it changes a symbolic ref"; fi`,
  submodule: String.raw`first_arg "$@"
  case $fa in
    add | update | init | deinit | sync | set-branch | set-url | absorbgitdirs)
      refuse "$shown $fa" "it changes submodules" ;;
    foreach) refuse "$shown $fa" "its commands run with git's own folder first on PATH, past this guard" ;;
  esac`,
  "sparse-checkout": String.raw`first_arg "$@"
  case $fa in
    list) ;;
    *) refuse "$shown@{fa:+ $fa}" "it changes which files are checked out" ;;
  esac`,
  apply: String.raw`for a in "$@"; do
    case $a in
      --index | --cached | -3 | --3way | -N | --intent-to-add)
        refuse "$shown $a" "it changes the index (git apply without it changes the files only)" ;;
    esac
  done`,
};

function formFunctionName(sub: string): string {
  return `form_${sub.replace(/-/g, "_")}`;
}

const TEMPLATE = String.raw`#!/bin/sh
# Pitroom's git guard (generated; rewritten before every worker attempt). A worker may not change
# git history, refs or the index: such commands are refused here, aliases resolved first, and
# everything else goes to the real git, the first one on PATH after this folder.
self=__SELF__
via=
refuse() {
  printf 'pitroom: \140git %s\140 is not allowed in a worker run: %s%s\n' "$1" "$2" "$via" >&2
  exit 1
}
__FIND_REAL__

# -c and --config-env may not set aliases, hooks, URL rewrites or includes.
check_config() {
  case @{1%%=*} in
    __GUARDED_CONFIG__) refuse "-c $1" "it would step around Pitroom's git guard" ;;
  esac
}

# The global options before the subcommand, kept quoted in $globals for the alias lookup and
# the final exec; $nglobal counts them.
globals=
nglobal=0
keep() {
  k=$1
  r=
  while :; do
    case $k in
      *\'*) r=$r@{k%%\'*}\'\\\'\'; k=@{k#*\'} ;;
      *) r=$r$k; break ;;
    esac
  done
  globals="$globals '$r'"
  nglobal=$((nglobal + 1))
}
scan_globals() {
  while [ $# -gt 0 ]; do
    case $1 in
      -c | --config-env)
        [ $# -ge 2 ] || return 0
        check_config "$2"; keep "$1"; keep "$2"; shift 2 ;;
      --config-env=*) check_config "@{1#--config-env=}"; keep "$1"; shift ;;
      -C | --git-dir | --work-tree | --namespace | --super-prefix | --attr-source)
        [ $# -ge 2 ] || return 0
        keep "$1"; keep "$2"; shift 2 ;;
      -*) keep "$1"; shift ;;
      *) return 0 ;;
    esac
  done
}
# An alias's words: leading options checked and skipped; the command in $aword, the rest in $arest.
scan_alias() {
  aword=
  arest=
  while [ $# -gt 0 ]; do
    case $1 in
      -c | --config-env)
        [ $# -ge 2 ] || return 0
        check_config "$2"; shift 2 ;;
      --config-env=*) check_config "@{1#--config-env=}"; shift ;;
      -C | --git-dir | --work-tree | --namespace | --super-prefix | --attr-source)
        [ $# -ge 2 ] || return 0
        shift 2 ;;
      -*) shift ;;
      *) aword=$1; shift; arest=$*; return 0 ;;
    esac
  done
}
run_real() {
  if [ -z "$globals" ]; then "$real" "$@"; else eval "\"\$real\" $globals \"\$@\""; fi
}
first_arg() {
  fa=
  for a in "$@"; do
    case $a in
      -*) ;;
      *) fa=$a; return 0 ;;
    esac
  done
}
__FORM_FUNCTIONS__
check() {
  c=$1
  shift
  case $c in
    __REFUSED__)
      refuse "$shown" "__CHANGES__" ;;
__FORM_CASES__
  esac
}

scan_globals "$@"
shift $nglobal
if [ $# -eq 0 ]; then
  if [ -z "$globals" ]; then exec "$real"; fi
  eval "exec \"\$real\" $globals"
fi
sub=$1
shift
word=$sub
shown=$sub
extra=
depth=0
while :; do
  case $word in
    __KNOWN__) break ;;
  esac
  value=$(run_real config --get "alias.$word" 2>/dev/null) || break
  depth=$((depth + 1))
  if [ "$depth" -gt 10 ]; then refuse "$sub" "its alias chain does not end"; fi
  case $value in
    '!'*) refuse "$sub" "it is a shell alias ($value)" ;;
  esac
  set -f
  scan_alias $value
  set +f
  if [ -z "$aword" ]; then break; fi
  extra="$arest $extra"
  word=$aword
  via=" ($sub is an alias of git $word)"
done
set -f
check "$word" $extra "$@"
set +f
if [ -z "$globals" ]; then exec "$real" "$sub" "$@"; fi
eval "exec \"\$real\" $globals \"\$sub\" \"\$@\""
`;

/** The git shim (pure). */
export function gitShimScript(options: GitShimOptions): string {
  const missing = options.forms.filter((f) => FORM_CHECKERS[f] === undefined);
  if (missing.length > 0) throw new Error(`git guard: no checker for ${missing.join(", ")}`);
  const functions = options.forms.map((f) =>
    `${formFunctionName(f)}() {\n  ${FORM_CHECKERS[f]!.replaceAll("@{", "${")}\n}`
  ).join("\n");
  const cases = options.forms.map((f) => `    ${anyCase(f)}) ${formFunctionName(f)} "$@" ;;`).join(
    "\n",
  );
  const known = [...new Set([...READ_BUILTINS, ...options.refused, ...options.forms])];
  return fillTemplate(TEMPLATE, {
    SELF: shQuote(options.self),
    FIND_REAL: findRealProgram("git"),
    GUARDED_CONFIG: alternatives(GUARDED_CONFIG, anyCase),
    FORM_FUNCTIONS: functions,
    REFUSED: alternatives(options.refused, anyCase),
    CHANGES: CHANGES,
    FORM_CASES: cases,
    KNOWN: alternatives(known),
  });
}
