/**
 * The guard's second layer (pure): what holds when git is run past the shim (by absolute path,
 * from a script, or by git itself for a hook, pager or alias). The worker's environment carries
 * git configuration (`GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`, which every git
 * process reads and passes on) pointing `core.hooksPath` at the guard's hooks: a
 * `reference-transaction` hook that refuses every ref update at "prepared" (git then aborts the
 * transaction) and a `pre-push` hook that refuses every push. Remote URLs are rewritten to a path
 * that cannot exist, and git never waits for a person: no prompts, no pager, no editor.
 */

/** A path under /dev/null: no remote URL rewritten to it can reach a repository. */
export const NOWHERE = "/dev/null/pitroom-worker-reaches-no-remote/";

/** The guard's hook scripts by file name. */
export function guardHooks(): Record<string, string> {
  return {
    "reference-transaction": `#!/bin/sh
# Pitroom's git guard (generated): no ref of any repository changes in a worker run. Git calls
# this hook with "prepared" before it commits a ref transaction; refusing aborts it.
case "$1" in
  preparing | prepared)
    echo "pitroom: git may not update refs in a worker run (a ref update past Pitroom's git guard was refused)" >&2
    exit 1 ;;
esac
exit 0
`,
    "pre-push": `#!/bin/sh
# Pitroom's git guard (generated): no push in a worker run.
echo "pitroom: git may not push in a worker run" >&2
exit 1
`,
  };
}

/** The git configuration every worker's git gets, as [key, value] pairs. */
export function guardGitConfig(hooksDir: string): [string, string][] {
  return [
    ["core.hooksPath", hooksDir],
    // An empty prefix matches every URL. pushInsteadOf covers pushes to a remote's url;
    // insteadOf also covers a remote's own pushurl (and fetches, which the shim refuses and
    // whose ref updates the hook refuses anyway). A user's own longer rewrite rule wins.
    [`url.${NOWHERE}.pushInsteadOf`, ""],
    [`url.${NOWHERE}.insteadOf`, ""],
    // No stored credentials of the user's for the worker's git (an empty value clears the list).
    ["credential.helper", ""],
    ["gc.auto", "0"],
    ["maintenance.auto", "false"],
  ];
}

/** Settings that keep git (and ssh under it) from waiting for a person. */
export const NO_PROMPT_ENV: Readonly<Record<string, string>> = {
  GIT_TERMINAL_PROMPT: "0",
  // Set but empty: git then asks neither core.askPass nor SSH_ASKPASS.
  GIT_ASKPASS: "",
  SSH_ASKPASS_REQUIRE: "never",
  GCM_INTERACTIVE: "never",
  GIT_PAGER: "cat",
  PAGER: "cat",
  GIT_EDITOR: "true",
  GIT_SEQUENCE_EDITOR: "true",
  // `git status` and friends leave the user's index file alone (no stat-cache refresh write).
  GIT_OPTIONAL_LOCKS: "0",
};

/**
 * The git part of a worker's environment: the caller's own `GIT_CONFIG_COUNT` entries kept,
 * the guard's appended after them (later entries win), and the no-prompt settings.
 */
export function guardGitEnv(
  callerEnv: Record<string, string>,
  hooksDir: string,
): Record<string, string> {
  const env: Record<string, string> = { ...NO_PROMPT_ENV };
  const own = Number(callerEnv.GIT_CONFIG_COUNT ?? "0");
  const start = Number.isInteger(own) && own > 0 ? own : 0;
  const entries = guardGitConfig(hooksDir);
  entries.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${start + i}`] = key;
    env[`GIT_CONFIG_VALUE_${start + i}`] = value;
  });
  env.GIT_CONFIG_COUNT = String(start + entries.length);
  if (callerEnv.GIT_SSH_COMMAND === undefined && callerEnv.GIT_SSH === undefined) {
    env.GIT_SSH_COMMAND = "ssh -o BatchMode=yes";
  }
  return env;
}
