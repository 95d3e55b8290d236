/**
 * A user-like repository for the tree benchmark, the same every time for a seed: a few hundred
 * folders up to seven levels deep holding small source-like files (sizes log-normal around
 * 2 KB), committed and packed as a clone would be, an ignored `node_modules/` and a `*.log`,
 * then the user's work in progress on top: tracked files modified, untracked files added (some
 * in a new folder).
 */
import { dirname, join } from "node:path";

/** The shape of the generated repository. */
export interface RepoShape {
  /** Committed files. */
  files: number;
  /** Folders holding them. */
  dirs: number;
  /** Tracked files modified after the commit. */
  modified: number;
  /** Untracked (not ignored) files added after the commit. */
  untracked: number;
  /** Ignored files (in `node_modules/` and `*.log`), neither tracked nor snapshot. */
  ignored: number;
  seed: number;
}

/** The benchmark's default: 31,000 files in 300 folders, 100 modified, 50 untracked. */
export const DEFAULT_SHAPE: RepoShape = {
  files: 31_000,
  dirs: 300,
  modified: 100,
  untracked: 50,
  ignored: 400,
  seed: 4,
};

/** What the generator made, for the report. */
export interface Generated {
  root: string;
  shape: RepoShape;
  bytes: number;
  maxDepth: number;
  ms: number;
  /** Lines `git status --porcelain` prints: modified files, untracked files and new folders. */
  statusLines: number;
  /** An untracked file (in a new folder), relative to the root. */
  untrackedFile: string;
}

/** mulberry32: a small seeded PRNG, so every run builds the same repository. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS = (
  "app api auth cache client config core data db event file handler http index io job log " +
  "model node parse path queue render route run schema server session store stream sync task " +
  "test token tree user util view worker item list map value state error result options"
).split(" ");
const EXTS = [".ts", ".ts", ".ts", ".js", ".py", ".go", ".rs", ".md", ".json", ".css", ".tsx"];

function pick<T>(next: () => number, items: readonly T[]): T {
  return items[Math.floor(next() * items.length)]!;
}

/** A log-normal size in bytes: median 2 KB, most files 0.5-8 KB, a few tens of KB. */
function fileSize(next: () => number): number {
  const normal = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
  return Math.min(120_000, Math.max(40, Math.round(2048 * Math.exp(0.9 * normal))));
}

/** A pool of source-like lines; files are drawn from it, each with its own header. */
function linePool(next: () => number): string[] {
  const lines: string[] = [];
  for (let i = 0; i < 4000; i++) {
    const indent = "  ".repeat(Math.floor(next() * 4));
    const a = pick(next, WORDS);
    const b = pick(next, WORDS);
    const c = pick(next, WORDS);
    const n = Math.floor(next() * 1000);
    const shapes = [
      `const ${a}${n} = ${b}.${c}(${a}, ${n});`,
      `if (${a}.${b} !== ${c}) return ${b}(${n});`,
      `export function ${a}_${b}(${c}: number): string {`,
      `// ${a} ${b} ${c}: keep the ${b} of the ${c} for ${n} rounds`,
      `${a}.${b}.push({ ${c}: ${n}, ${b}: "${a}-${n}" });`,
      `}`,
      ``,
    ];
    lines.push(indent + pick(next, shapes));
  }
  return lines;
}

function fileText(next: () => number, pool: readonly string[], id: string): string {
  const size = fileSize(next);
  const parts = [`// ${id}`];
  let length = parts[0]!.length;
  while (length < size) {
    const line = pool[Math.floor(next() * pool.length)]!;
    parts.push(line);
    length += line.length + 1;
  }
  return parts.join("\n") + "\n";
}

/** Folder paths: a random tree of `count` folders, no deeper than `maxDepth` below the root. */
function folderTree(next: () => number, count: number, maxDepth: number): string[] {
  const tops = ["src", "lib", "packages", "tests", "docs", "tools", "web", "services"];
  const dirs = [...tops];
  const depth = new Map(tops.map((d) => [d, 1]));
  while (dirs.length < count) {
    // Prefer shallow parents a little, so the tree is bushy rather than a chain.
    const parent = dirs[Math.floor(Math.pow(next(), 1.3) * dirs.length)]!;
    const d = depth.get(parent)!;
    if (d >= maxDepth) continue;
    const name = `${pick(next, WORDS)}${next() < 0.5 ? "" : `_${pick(next, WORDS)}`}`;
    const path = `${parent}/${name}`;
    if (depth.has(path)) continue;
    dirs.push(path);
    depth.set(path, d + 1);
  }
  return dirs;
}

/** Runs git in `cwd` with `env`; throws with its stderr on failure. */
export async function sh(
  cwd: string,
  env: Record<string, string>,
  ...args: string[]
): Promise<string> {
  const out = await new Deno.Command("git", { args, cwd, env, clearEnv: true, stdin: "null" })
    .output();
  if (out.code !== 0) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr).trim()}`);
  }
  return new TextDecoder().decode(out.stdout);
}

async function writeAll(root: string, files: Map<string, string>): Promise<void> {
  const made = new Set<string>();
  const entries = [...files];
  // A few writes in flight at once: generation is I/O bound, not what is measured.
  for (let i = 0; i < entries.length; i += 64) {
    const batch = entries.slice(i, i + 64);
    for (const [path] of batch) {
      const dir = dirname(join(root, path));
      if (!made.has(dir)) {
        await Deno.mkdir(dir, { recursive: true });
        made.add(dir);
      }
    }
    await Promise.all(batch.map(([path, text]) => Deno.writeTextFile(join(root, path), text)));
  }
}

/**
 * Builds the repository in `root` (an empty folder): the committed files, packed, then the
 * ignored, modified and untracked files. `env` is the environment every git call gets.
 */
export async function generateRepo(
  root: string,
  env: Record<string, string>,
  shape: RepoShape = DEFAULT_SHAPE,
): Promise<Generated> {
  const start = performance.now();
  const next = rng(shape.seed);
  const pool = linePool(next);
  const dirs = folderTree(next, shape.dirs, 7);
  const files = new Map<string, string>();
  files.set(".gitignore", "node_modules/\n*.log\ndist/\n");
  files.set("README.md", "# generated\n");
  // Folders get uneven shares: most a few dozen files, some a few hundred.
  const weights = dirs.map(() => Math.exp(1.6 * (next() + next() + next() - 1.5)));
  const total = weights.reduce((a, b) => a + b, 0);
  let bytes = 0;
  while (files.size < shape.files) {
    let r = next() * total;
    let i = 0;
    while (r > weights[i]! && i < dirs.length - 1) r -= weights[i++]!;
    const path = `${dirs[i]}/${pick(next, WORDS)}_${files.size}${pick(next, EXTS)}`;
    const text = fileText(next, pool, path);
    bytes += text.length;
    files.set(path, text);
  }
  await writeAll(root, files);
  await sh(root, env, "init", "-q", "-b", "main");
  await sh(root, env, "add", "-A");
  await sh(root, env, "commit", "-q", "-m", "generated");
  // A clone's objects are packed; 31,000 loose objects would slow both sides alike but unlike
  // any real repository.
  await sh(root, env, "repack", "-adq");
  await sh(root, env, "prune");

  const tracked = [...files.keys()];
  const later = new Map<string, string>();
  for (let i = 0; i < shape.ignored; i++) {
    const dir = `node_modules/${WORDS[i % 40]}-kit/${i % 3 === 0 ? "lib" : "dist"}`;
    later.set(`${dir}/${pick(next, WORDS)}_${i}.js`, fileText(next, pool, `ignored ${i}`));
  }
  later.set("debug.log", "ignored log\n");
  const modified = new Set<string>();
  while (modified.size < shape.modified) modified.add(pick(next, tracked));
  for (const path of modified) later.set(path, files.get(path)! + "// changed by the user\n");
  // A tenth of the untracked files in a new folder (one status line), the rest one by one.
  const inNewFolder = Math.ceil(shape.untracked / 10);
  const untracked: string[] = [];
  for (let i = 0; i < shape.untracked; i++) {
    const dir = i < inNewFolder ? "notes/drafts" : pick(next, dirs);
    untracked.push(`${dir}/new_${i}${pick(next, EXTS)}`);
    later.set(untracked[i]!, fileText(next, pool, `untracked ${i}`));
  }
  await writeAll(root, later);
  let maxDepth = 0;
  for (const d of dirs) maxDepth = Math.max(maxDepth, d.split("/").length);
  return {
    root,
    shape,
    bytes,
    maxDepth,
    ms: performance.now() - start,
    statusLines: shape.modified + (shape.untracked - inNewFolder) + (inNewFolder > 0 ? 1 : 0),
    untrackedFile: untracked[0] ?? ".gitignore",
  };
}

const MARKER = "pitroom-bench.json";

/** The environment of every git call: no user or system config, a fixed identity. */
export function benchEnv(home: string): Record<string, string> {
  return {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: home,
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_AUTHOR_NAME: "Bench",
    GIT_AUTHOR_EMAIL: "bench@example.invalid",
    GIT_COMMITTER_NAME: "Bench",
    GIT_COMMITTER_EMAIL: "bench@example.invalid",
    LC_ALL: "C",
  };
}

/**
 * A reused repository's index as generated: without an untracked cache, which any `git status`
 * run there with `core.untrackedCache` set adds to it and later ones then use. It makes the
 * baseline `git status` a quarter faster (41 -> 29-31 ms on 31,000 files) while Pitroom's walk,
 * which lists every untracked and ignored file, cannot use it: the ratios would measure another
 * tree.
 */
async function asGenerated(dir: string, env: Record<string, string>): Promise<void> {
  await sh(dir, env, "update-index", "--no-untracked-cache");
}

/** The generated repository of `shape` in `dir`: reused when its marker matches, else made afresh. */
export async function ensureRepo(
  dir: string,
  env: Record<string, string>,
  shape: RepoShape,
  log: (line: string) => void,
): Promise<Generated> {
  const marker = join(dir, ".git", MARKER);
  try {
    const kept = JSON.parse(await Deno.readTextFile(marker)) as Generated;
    if (JSON.stringify(kept.shape) === JSON.stringify(shape)) {
      log(`reusing the repository in ${dir}`);
      await asGenerated(dir, env);
      return kept;
    }
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  await Deno.remove(dir, { recursive: true }).catch((error) => {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  });
  await Deno.mkdir(dir, { recursive: true });
  log(`generating ${shape.files} files in ${dir}`);
  const made = await generateRepo(dir, env, shape);
  await Deno.writeTextFile(marker, JSON.stringify(made) + "\n");
  log(`generated in ${Math.round(made.ms / 1000)} s`);
  return made;
}
