/**
 * Secret-looking files in a tree: what a worker should not see (`.env`, private keys, credential
 * files). Pure: given the paths of a snapshot and what git ignores, it names the ones to keep
 * out. The names themselves are policy (confine/secret_names.ts), with the config's
 * `sandbox.hide`/`sandbox.show` name patterns (confine/sandbox/names.ts) laid over them.
 */
import { isSecretDir, isSecretPath } from "./secret_names.ts";
import { matchesName } from "./sandbox/mod.ts";

export { isSecretPath };

/** Name patterns of the config (`sandbox.hide`, `sandbox.show`) over the built-in list. */
export interface SecretPatterns {
  hide: readonly string[];
  show: readonly string[];
}

const NONE: SecretPatterns = { hide: [], show: [] };

/** True when a tree path is hidden: a secret-looking name or a `hide` pattern, and no `show`. */
export function isHiddenPath(path: string, patterns: SecretPatterns = NONE): boolean {
  if (patterns.show.some((p) => matchesName(p, path))) return false;
  return isSecretPath(path) || patterns.hide.some((p) => matchesName(p, path));
}

/** True when an ignored directory entry (`dir/`) is hidden as a whole. */
function isHiddenDir(entry: string, patterns: SecretPatterns): boolean {
  const trimmed = entry.replace(/\/$/, "");
  if (patterns.show.some((p) => matchesName(p, trimmed))) return false;
  return isSecretDir(trimmed) || patterns.hide.some((p) => matchesName(p, trimmed));
}

/** Secret-looking paths of a tree, relative to its root. */
export interface FoundSecrets {
  /** Tracked and untracked files (in the snapshot). */
  tracked: string[];
  /** Ignored files and folders (a folder ends with `/`). */
  ignored: string[];
  /** Whether there is any. */
  any: boolean;
  /** Up to three, for a report. */
  examples: string[];
}

/**
 * The secret-looking files among a snapshot's files (to drop from a read view or mask in a
 * sandbox) and among the ignored entries git lists (an ignored folder listed as a whole is
 * looked at by its own name only).
 */
export function findSecrets(
  files: readonly string[],
  ignored: readonly string[],
  patterns: SecretPatterns = NONE,
): FoundSecrets {
  const tracked = files.filter((path) => isHiddenPath(path, patterns));
  const hidden = ignored.filter((entry) =>
    entry.endsWith("/") ? isHiddenDir(entry, patterns) : isHiddenPath(entry, patterns)
  );
  const examples = [...tracked, ...hidden].slice(0, 3);
  return { tracked, ignored: hidden, any: tracked.length + hidden.length > 0, examples };
}
