/**
 * The fixed floor every writing worker keeps, whatever its permissions: no git history or ref
 * changes (and no changes to the user's index), no privilege escalation, no publishing, no
 * recursive deletion. Each backend turns these into its own CLI's rules (opencode patterns,
 * claude `Bash(...)` rules, gemini policy prefixes).
 */

/** Git subcommands that change history, refs or the index, or throw work away. */
export const DENIED_GIT_SUBCOMMANDS: readonly string[] = [
  "commit",
  "push",
  "reset",
  "rebase",
  "checkout",
  "switch",
  "restore",
  "clean",
  "stash",
  "tag",
  "merge",
  "cherry-pick",
  "revert",
  "am",
  "add",
  "rm",
  "mv",
  "update-ref",
  "update-index",
  "filter-branch",
  "reflog",
  "gc",
  "branch -d",
  "branch -D",
  "branch --delete",
  "branch -m",
  "branch -M",
];

/** Programs that run something as another user. */
export const DENIED_PROGRAMS: readonly string[] = ["sudo", "su", "doas"];

/** Commands that publish a package. */
export const DENIED_PUBLISHING: readonly string[] = [
  "npm publish",
  "pnpm publish",
  "yarn publish",
  "cargo publish",
  "deno publish",
  "gem push",
  "twine upload",
];

/** Recursive deletion, as command prefixes. */
export const DENIED_RM_PREFIXES: readonly string[] = [
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
    ...DENIED_GIT_SUBCOMMANDS.map((sub) => `git ${sub}`),
    ...DENIED_PROGRAMS,
    ...DENIED_PUBLISHING,
    ...DENIED_RM_PREFIXES,
  ];
}
