/**
 * Three-way merges of file versions held as blobs: `ours` and `theirs` both made from `base`,
 * the result holds the changes of both (git's `merge-file`, byte for byte, no filter). Apply
 * merges a patch into a file the user changed since; revert takes a worker's hunks out of a file
 * the user also changed. A merge that conflicts, a binary file, a symbolic link changed on both
 * sides, or a file deleted on one side and changed on the other is not merged: the caller refuses
 * for that file and can keep the conflicted text for the user.
 */
import { join } from "../sys/path.ts";
import { git, type GitSys, nulList } from "./git.ts";
import { rawCommonDir, rawEnv, stdinPathLine } from "./raw.ts";
import { encodeLossless } from "./lossless.ts";
import type { RepoInfo } from "./repo.ts";
import { ensureStore, type StoreOptions, trackingEnv, withScratch } from "./store.ts";
import type { Entry } from "./worktree_state.ts";

/** One path to merge: `ours` and `theirs` both came from `base` (null: no file). */
export interface MergeInput {
  path: string;
  base: Entry | null;
  ours: Entry | null;
  theirs: Entry | null;
}

/** A merge's outcome: the merged entry (written to Pitroom's store), or why there is none. */
export type MergeResult =
  | { path: string; merged: Entry | null }
  | { path: string; conflict: string; text?: Uint8Array };

const same = (a: Entry | null, b: Entry | null) =>
  a === null ? b === null : b !== null && a.blob === b.blob && a.mode === b.mode;

const REGULAR = new Set(["100644", "100755"]);

/** The outcome when no file content needs merging; undefined when it does. */
function trivial(input: MergeInput): MergeResult | undefined {
  const { path, base, ours, theirs } = input;
  if (same(ours, base)) return { path, merged: theirs };
  if (same(theirs, base) || same(ours, theirs)) return { path, merged: ours };
  if (ours === null || theirs === null || base === null) {
    return { path, conflict: "deleted on one side and changed on the other" };
  }
  if (![base, ours, theirs].every((e) => REGULAR.has(e.mode))) {
    return { path, conflict: "a symbolic link or submodule changed on both sides" };
  }
  const mode = base.mode === ours.mode
    ? theirs.mode
    : base.mode === theirs.mode || ours.mode === theirs.mode
    ? ours.mode
    : null;
  if (mode === null) return { path, conflict: "its mode changed on both sides" };
  if (ours.blob === base.blob || theirs.blob === base.blob || ours.blob === theirs.blob) {
    const blob = ours.blob === base.blob ? theirs.blob : ours.blob;
    return { path, merged: { mode, blob } };
  }
  return undefined;
}

/** Checks blobs out into `dir/<side>/<n>`, byte for byte; returns each file's path. */
async function blobsInto(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & { dir: string; side: string; blobs: readonly string[] },
): Promise<string[]> {
  const common = await rawCommonDir(repo, join(options.dir, `common-${options.side}`));
  const env = {
    ...rawEnv(repo, options, common),
    GIT_INDEX_FILE: join(options.dir, `index-${options.side}`),
  };
  const call = { cwd: repo.root, env };
  const records = options.blobs.map((blob, i) => `100644 ${blob}\t${i}`);
  await git(sys, ["update-index", "-z", "--add", "--index-info"], {
    ...call,
    stdin: nulList(records),
  });
  const prefix = join(options.dir, options.side) + "/";
  await git(sys, ["checkout-index", "--all", "--force", `--prefix=${prefix}`], call);
  return options.blobs.map((_, i) => `${prefix}${i}`);
}

/** Merges each input; see the module comment. */
export async function mergeEntries(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & {
    inputs: readonly MergeInput[];
    /** Names of ours, base and theirs in a conflict's markers. */
    labels?: [string, string, string];
  },
): Promise<MergeResult[]> {
  const labels = (options.labels ?? ["ours", "base", "theirs"]).flatMap((l) => ["-L", l]);
  const results = new Map<string, MergeResult>();
  const hard: MergeInput[] = [];
  for (const input of options.inputs) {
    const easy = trivial(input);
    if (easy === undefined) hard.push(input);
    else results.set(input.path, easy);
  }
  if (hard.length > 0) {
    await ensureStore(options);
    await withScratch(options, async (dir) => {
      const side = (name: string, pick: (i: MergeInput) => Entry | null) =>
        blobsInto(sys, repo, {
          ...options,
          dir,
          side: name,
          blobs: hard.map((i) => pick(i)!.blob),
        });
      const base = await side("base", (i) => i.base);
      const ours = await side("ours", (i) => i.ours);
      const theirs = await side("theirs", (i) => i.theirs);
      const clean: { input: MergeInput; file: string }[] = [];
      for (let i = 0; i < hard.length; i++) {
        const input = hard[i]!;
        const out = await git(
          sys,
          ["merge-file", "-q", ...labels, ours[i]!, base[i]!, theirs[i]!],
          {
            cwd: dir,
            okCodes: Array.from({ length: 256 }, (_, code) => code),
          },
        );
        if (out.code === 0) clean.push({ input, file: ours[i]! });
        else if (out.code >= 128) {
          results.set(input.path, {
            path: input.path,
            conflict: "a binary file changed on both sides",
          });
        } else {
          results.set(input.path, {
            path: input.path,
            conflict: "the changes overlap",
            text: await Deno.readFile(ours[i]!),
          });
        }
      }
      if (clean.length === 0) return;
      const hashed = await git(sys, ["hash-object", "--no-filters", "-w", "--stdin-paths"], {
        cwd: repo.root,
        env: trackingEnv(repo, options),
        stdin: encodeLossless(clean.map((c) => stdinPathLine(c.file)).join("")),
      });
      const ids = hashed.stdout.trim().split("\n");
      clean.forEach(({ input }, i) => {
        const { base, ours, theirs } = input;
        const mode = base!.mode === ours!.mode ? theirs!.mode : ours!.mode;
        results.set(input.path, { path: input.path, merged: { mode, blob: ids[i]! } });
      });
    });
  }
  return options.inputs.map((input) => results.get(input.path)!);
}
