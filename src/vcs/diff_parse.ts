/**
 * Pure parsers for `git diff-tree -z` output: the raw format (modes, blobs, status) and the
 * numstat format (lines added and removed, `-` for binary), and their merge into file changes.
 */

/** How a file changed between two snapshots (renames are reported as delete + add). */
export type ChangeStatus = "added" | "modified" | "deleted";

/** One line of `--raw -z`: a path with its old and new mode and blob. */
export interface RawChange {
  path: string;
  status: ChangeStatus;
  /** Git mode (`100644`, `100755`, `120000`, `160000`), or null when absent on that side. */
  oldMode: string | null;
  newMode: string | null;
  oldBlob: string | null;
  newBlob: string | null;
}

/** One file of a change set, with its diffstat. */
export interface FileChange extends RawChange {
  /** Lines added (0 for a binary file). */
  added: number;
  /** Lines removed (0 for a binary file). */
  removed: number;
  /** True when git sees the file as binary (no line counts). */
  binary: boolean;
}

const ABSENT_MODE = "000000";

function present(mode: string, blob: string): { mode: string | null; blob: string | null } {
  return mode === ABSENT_MODE ? { mode: null, blob: null } : { mode, blob };
}

/** Parses `git diff-tree -r -z --raw --no-renames` output. */
export function parseRawZ(stdout: string): RawChange[] {
  const tokens = stdout.split("\0");
  const changes: RawChange[] = [];
  for (let i = 0; i + 1 < tokens.length; i += 2) {
    const meta = tokens[i]!;
    const path = tokens[i + 1]!;
    const match = /^:(\d{6}) (\d{6}) ([0-9a-f]+) ([0-9a-f]+) ([A-Z])\d*$/.exec(meta);
    if (match === null) throw new Error(`Unexpected raw diff record: "${meta}"`);
    const [, oldModeText, newModeText, oldBlobText, newBlobText, letter] = match as unknown as [
      string,
      string,
      string,
      string,
      string,
      string,
    ];
    const before = present(oldModeText, oldBlobText);
    const after = present(newModeText, newBlobText);
    const status: ChangeStatus = before.mode === null
      ? "added"
      : after.mode === null
      ? "deleted"
      : "modified";
    if (!"AMDT".includes(letter)) {
      throw new Error(`Unexpected diff status "${letter}" of "${path}"`);
    }
    changes.push({
      path,
      status,
      oldMode: before.mode,
      newMode: after.mode,
      oldBlob: before.blob,
      newBlob: after.blob,
    });
  }
  return changes;
}

/** Lines added and removed per path, or null counts for a binary file. */
export type Numstat = Map<string, { added: number; removed: number } | null>;

/** Parses `git diff-tree -r -z --numstat --no-renames` output. */
export function parseNumstatZ(stdout: string): Numstat {
  const stats: Numstat = new Map();
  for (const record of stdout.split("\0")) {
    if (record === "") continue;
    const match = /^(\d+|-)\t(\d+|-)\t(.*)$/s.exec(record);
    if (match === null) throw new Error(`Unexpected numstat record: "${record}"`);
    const [, added, removed, path] = match as unknown as [string, string, string, string];
    stats.set(
      path,
      added === "-" || removed === "-" ? null : { added: Number(added), removed: Number(removed) },
    );
  }
  return stats;
}

/** Joins raw changes with their line counts. A path git did not count has no line changes. */
export function mergeChanges(raw: RawChange[], numstat: Numstat): FileChange[] {
  return raw.map((change) => {
    const stat = numstat.get(change.path);
    return stat === null
      ? { ...change, added: 0, removed: 0, binary: true }
      : { ...change, added: stat?.added ?? 0, removed: stat?.removed ?? 0, binary: false };
  });
}
