/**
 * Checking a finished run's answer against the tree the worker worked in: its sections parsed,
 * its references checked (refs.ts) and its claims held against the run and the tree
 * (evidence.ts); the results go into the record before it is written final. Paths a worker
 * wrote in a private copy or a read view map back to the user's repository: the copy and the
 * view mirror its layout, and their roots stand for its root.
 */
import type { HeldSys } from "../../store/state.ts";
import type { RunRecord } from "../../store/record.ts";
import { join } from "../../sys/path.ts";
import { findRepo } from "../../vcs/repo.ts";
import { grepCounts, workTreeFiles } from "../../vcs/grep.ts";
import type { Workspace } from "../tree/workspace.ts";
import type { Final } from "../core/final.ts";
import { checkEvidence, mentionsFiles } from "./evidence.ts";
import { parseAnswer } from "./format.ts";
import { checkReferences, extractReferences, type RefTree } from "./refs.ts";
import { MODES } from "../../workers/modes.ts";

/** A file larger than this is not read to check a line in it. */
const READ_MAX = 8 * 1024 * 1024;

async function real(path: string): Promise<string> {
  try {
    return await Deno.realPath(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return path;
    throw error;
  }
}

function relativeTo(root: string, path: string): string | null {
  if (path === root) return "";
  const prefix = root.endsWith("/") ? root : `${root}/`;
  return path.startsWith(prefix) ? path.slice(prefix.length) : null;
}

/** The tree a run's references are checked against: the worker's tree after it. */
export async function refTreeOf(
  record: RunRecord,
  workspace: Workspace,
  options: {
    /** The tree id whose files are listed. */
    after: string;
    /** List the files (one `git ls-tree`); without, the tree lists none. @default true */
    list?: boolean;
  },
): Promise<RefTree & { root: string }> {
  const root = workspace.work.root;
  const given = [root, workspace.view?.root, record.repoRoot, record.isolation?.copyRoot]
    .filter((r): r is string => r !== undefined);
  const roots = [...new Set([...given, ...await Promise.all(given.map(real))])];
  const cwdReal = await real(workspace.cwd);
  let cwd = "";
  for (const r of roots) {
    const rel = relativeTo(r, cwdReal) ?? relativeTo(r, workspace.cwd);
    if (rel !== null) {
      cwd = rel;
      break;
    }
  }
  const files = options.list === false
    ? []
    : await workspace.work.files({ ...workspace.before, tree: options.after });
  return {
    root,
    files,
    cwd,
    roots,
    read: (path) => readSmall(join(root, path)),
  };
}

/**
 * The tree of a directory's repository as it is now (tracked and untracked files, read from
 * disk), for checking an answer after its run, e.g. a review's or an audit's; null outside a
 * repository. `dir` is the worker's folder the paths may be relative to.
 */
export async function refTreeAt(
  sys: Pick<HeldSys, "runner" | "env">,
  dir: string,
): Promise<(RefTree & { root: string }) | null> {
  const repo = await findRepo(sys, dir);
  if (repo === null) return null;
  const root = repo.root;
  const rel = relativeTo(root, await real(dir)) ?? "";
  return {
    root,
    files: await workTreeFiles(sys, root),
    cwd: rel,
    roots: [root],
    read: (path) => readSmall(join(root, path)),
  };
}

async function readSmall(file: string): Promise<string | null> {
  try {
    const info = await Deno.stat(file);
    if (!info.isFile || info.size > READ_MAX) return null;
    return await Deno.readTextFile(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.PermissionDenied) {
      return null;
    }
    throw error;
  }
}

/** Parses and checks `final`'s answer, writing `sections`, `refs` and `evidence` into `record`. */
export async function checkAnswer(
  sys: HeldSys,
  record: RunRecord,
  workspace: Workspace,
  final: Final,
): Promise<void> {
  const answer = final.answer;
  if (answer === undefined || answer.trim() === "") return;
  const parsed = parseAnswer(answer);
  if (parsed.formatted) {
    const { formatted: _f, preamble: _p, ...sections } = parsed;
    record.sections = sections;
  }
  if (record.cached !== undefined) return; // the earlier run's checks were copied with its answer
  const after = final.changes?.after ?? workspace.before.tree;
  // An answer that cites nothing and names no file costs no file listing.
  const list = extractReferences(answer).length > 0 || mentionsFiles(answer, parsed);
  const tree = await refTreeOf(record, workspace, {
    after: MODES[record.mode].keepsChanges ? after : workspace.before.tree,
    list,
  });
  const { checks: _checks, ...refs } = await checkReferences(answer, tree);
  record.refs = refs;
  const changed = MODES[record.mode].keepsChanges
    ? (final.changes?.files ?? []).map((f) => f.path)
    : [];
  const evidence = await checkEvidence({
    answer,
    parsed,
    mode: record.mode,
    tools: record.progress.tools,
    attached: (record.files?.length ?? 0) > 0,
    changed,
    tree,
    count: (text, scope, options) => grepCounts(sys, tree.root, text, { scope, ...options }),
  });
  if (evidence.length > 0) record.evidence = evidence;
  else delete record.evidence;
}
