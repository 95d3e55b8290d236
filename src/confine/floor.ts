/**
 * The fixed floor every worker keeps, whatever its permissions: no git history, ref or index
 * changes, no privilege escalation, no publishing, no recursive Pitroom, no recursive deletion.
 * One list drives both layers, and both read it here: the guard's shims first on the worker's
 * PATH (confine/guard/, which decide exactly, argument by argument) and each backend's own CLI
 * rules (opencode patterns, claude `Bash(...)` rules, gemini policy prefixes), which can only
 * match prefixes. Data only: this module imports nothing.
 */

/** Git subcommands refused whatever their arguments: they change history, refs or the index. */
export const DENIED_GIT_SUBCOMMANDS: readonly string[] = [
  "commit",
  "push",
  "pull",
  // fetch writes refs/remotes/* and FETCH_HEAD; a worker has no use for the user's remotes.
  "fetch",
  "reset",
  "checkout",
  "switch",
  "restore",
  "clean",
  "rebase",
  "merge",
  "cherry-pick",
  "revert",
  "am",
  "add",
  "stage",
  "rm",
  "mv",
  "update-ref",
  "update-index",
  "read-tree",
  "write-tree",
  "commit-tree",
  "checkout-index",
  "fast-import",
  "filter-branch",
  "filter-repo",
  "replace",
  "bisect",
  "gc",
  "prune",
  "prune-packed",
  "repack",
  "pack-refs",
  "maintenance",
  "mergetool",
  "merge-index",
  "merge-one-file",
  "merge-recursive",
  "merge-ours",
  "merge-subtree",
  "merge-resolve",
  "merge-octopus",
  "send-email",
  "send-pack",
  "receive-pack",
  "http-push",
  // The user's stored git credentials (`git credential fill` prints them).
  "credential",
  "credential-store",
  "credential-cache",
  "citool",
  "gui",
  "svn",
  "p4",
  "quiltimport",
  "archimport",
  "cvsexportcommit",
];

/** A git subcommand that reads in some forms and writes in others. */
export interface GitForms {
  /** Which forms read (people read this; the guard's shell checker decides). */
  reads: string;
  /** The writing forms as command prefixes, for CLIs whose rules only match prefixes. */
  prefixes: readonly string[];
}

/** Git subcommands refused in their writing forms only; the guard tells the forms apart. */
export const GIT_FORMS: Readonly<Record<string, GitForms>> = {
  branch: {
    reads: "no name, or a listing (`-a`, `-r`, `--list`, `--show-current`, `--contains`, ...)",
    prefixes: [
      "branch -d",
      "branch -D",
      "branch --delete",
      "branch -m",
      "branch -M",
      "branch --move",
      "branch -c",
      "branch -C",
      "branch --copy",
      "branch -f",
      "branch --force",
      "branch -u",
      "branch --set-upstream-to",
      "branch --unset-upstream",
      "branch --edit-description",
    ],
  },
  // `git tag NAME` cannot be told from `git tag` by a prefix: prefix rules deny it whole.
  tag: { reads: "no name, `-l`/`--list`, `-n`, `-v`, `--contains`, ...", prefixes: ["tag"] },
  config: {
    reads: "`--get*`, `-l`/`--list`, `get`, `list`",
    prefixes: [
      "config --add",
      "config --unset",
      "config --unset-all",
      "config --replace-all",
      "config --rename-section",
      "config --remove-section",
      "config -e",
      "config --edit",
      "config set",
      "config unset",
      "config rename-section",
      "config remove-section",
      "config edit",
      "config --global",
      "config --system",
      "config alias",
      "config core.hooksPath",
    ],
  },
  remote: {
    reads: "no subcommand, `-v`, `show`, `get-url`",
    prefixes: [
      "remote add",
      "remote remove",
      "remote rm",
      "remote rename",
      "remote set-url",
      "remote set-head",
      "remote set-branches",
      "remote prune",
      "remote update",
    ],
  },
  // A bare `git stash` pushes: prefix rules deny it whole.
  stash: { reads: "`list`, `show`", prefixes: ["stash"] },
  worktree: {
    reads: "`list`",
    prefixes: [
      "worktree add",
      "worktree remove",
      "worktree move",
      "worktree prune",
      "worktree lock",
      "worktree unlock",
      "worktree repair",
    ],
  },
  notes: {
    reads: "no subcommand, `list`, `show`, `get-ref`",
    prefixes: [
      "notes add",
      "notes append",
      "notes copy",
      "notes edit",
      "notes merge",
      "notes remove",
      "notes prune",
    ],
  },
  reflog: {
    reads: "everything but `expire`, `delete`, `drop`",
    prefixes: ["reflog expire", "reflog delete", "reflog drop"],
  },
  // `git symbolic-ref HEAD NAME` cannot be told from the read by a prefix: denied whole.
  "symbolic-ref": { reads: "one name (`symbolic-ref HEAD`)", prefixes: ["symbolic-ref"] },
  submodule: {
    reads: "no subcommand, `status`, `summary`",
    prefixes: [
      "submodule add",
      "submodule update",
      "submodule init",
      "submodule deinit",
      "submodule sync",
      "submodule set-branch",
      "submodule set-url",
      "submodule absorbgitdirs",
      "submodule foreach",
    ],
  },
  "sparse-checkout": {
    reads: "`list`",
    prefixes: [
      "sparse-checkout set",
      "sparse-checkout add",
      "sparse-checkout init",
      "sparse-checkout reapply",
      "sparse-checkout disable",
    ],
  },
  apply: {
    reads: "applying to the files only (without `--index`, `--cached`, `-3`)",
    prefixes: ["apply --index", "apply --cached", "apply -3", "apply --3way"],
  },
};

/** Git command prefixes the backends' rules deny (`commit`, `branch -D`, ...), without `git`. */
export function deniedGitPrefixes(): string[] {
  return [...DENIED_GIT_SUBCOMMANDS, ...Object.values(GIT_FORMS).flatMap((f) => f.prefixes)];
}

/** Programs that run something as another user: refused outright. */
export const DENIED_PROGRAMS: readonly string[] = ["sudo", "su", "doas", "pkexec"];

/** Why a program of `DENIED_PROGRAMS` is refused (the one line the worker sees). */
export const DENIED_PROGRAMS_WHY = "it runs commands as another user";

/** A program that publishes in some forms. */
export interface PublishingRule {
  program: string;
  /**
   * Refused forms: `publish` is refused when that word is any argument; `release create` when
   * `release` is an argument and `create` one after it. Conservative on purpose: a rare innocent
   * command that says `publish` is refused rather than a publish let through.
   */
  forms: readonly string[];
}

/** Commands that publish or release a package or image, or change a registry's records. */
export const PUBLISHING: readonly PublishingRule[] = [
  {
    program: "npm",
    forms: [
      "publish",
      "unpublish",
      "deprecate",
      "undeprecate",
      "dist-tag add",
      "dist-tag rm",
      "owner add",
      "owner rm",
      "access grant",
      "access revoke",
      "access set",
    ],
  },
  { program: "pnpm", forms: ["publish", "unpublish", "deprecate", "dist-tag add", "dist-tag rm"] },
  {
    program: "yarn",
    forms: ["publish", "unpublish", "npm publish", "npm tag add", "npm tag remove"],
  },
  { program: "bun", forms: ["publish"] },
  { program: "deno", forms: ["publish"] },
  { program: "jsr", forms: ["publish"] },
  { program: "lerna", forms: ["publish"] },
  { program: "changeset", forms: ["publish"] },
  { program: "cargo", forms: ["publish", "yank", "owner"] },
  { program: "twine", forms: ["upload", "register"] },
  { program: "poetry", forms: ["publish"] },
  { program: "uv", forms: ["publish"] },
  { program: "hatch", forms: ["publish"] },
  { program: "flit", forms: ["publish"] },
  { program: "pdm", forms: ["publish"] },
  { program: "gem", forms: ["push", "yank", "owner"] },
  {
    program: "gh",
    forms: [
      "release create",
      "release upload",
      "release delete",
      "release delete-asset",
      "release edit",
      "repo create",
      "repo delete",
      "repo edit",
      "repo rename",
      "repo archive",
      "pr merge",
    ],
  },
  { program: "docker", forms: ["push", "--push"] },
  { program: "podman", forms: ["push"] },
  { program: "helm", forms: ["push"] },
  { program: "mvn", forms: ["deploy"] },
  { program: "gradle", forms: ["publish"] },
  { program: "dotnet", forms: ["nuget push"] },
  { program: "nuget", forms: ["push"] },
  { program: "dart", forms: ["pub publish"] },
  { program: "flutter", forms: ["pub publish"] },
  { program: "vsce", forms: ["publish"] },
  { program: "ovsx", forms: ["publish"] },
];

/** Why a publishing form is refused (the one line the worker sees). */
export const PUBLISHING_WHY = "it publishes, or changes what a registry or code host serves";

/** The publishing forms as command prefixes (`npm publish`, `gh release create`, ...). */
export const DENIED_PUBLISHING: readonly string[] = PUBLISHING.flatMap((rule) =>
  rule.forms.map((form) => `${rule.program} ${form}`)
);

/** The program a worker may not start: Pitroom itself (the recursion guard). */
export const RECURSION_PROGRAM = "pitroom";

/** Why `RECURSION_PROGRAM` is refused (the one line the worker sees). */
export const RECURSION_WHY = "a worker may not start Pitroom";

/**
 * Set in every worker's environment (to the run id); Pitroom refuses to run under it, so a
 * worker cannot start Pitroom even by absolute path. Defined in a leaf the CLI reads first.
 */
export { RECURSION_MARKER } from "../sys/marker.ts";

/** Recursive deletion, as command prefixes (backend rules only; a shim on `rm` would be noise). */
const DENIED_RM_PREFIXES: readonly string[] = [
  "rm -rf",
  "rm -fr",
  "rm -r",
  "rm -R",
  "rm -Rf",
  "rm --recursive",
];

/** The whole floor as command prefixes (`git commit`, `sudo`, `npm publish`, `rm -rf`, ...). */
export function deniedCommandPrefixes(): string[] {
  return [
    ...deniedGitPrefixes().map((sub) => `git ${sub}`),
    ...DENIED_PROGRAMS,
    RECURSION_PROGRAM,
    ...DENIED_PUBLISHING,
    ...DENIED_RM_PREFIXES,
  ];
}
