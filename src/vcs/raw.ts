/**
 * Bytes as they are on disk. git converts between a file and its blob wherever attributes or
 * config say so (clean and smudge filters, `core.autocrlf`, `text`, `eol`, `ident`,
 * `working-tree-encoding`); Pitroom records and restores the bytes themselves, so every git call
 * that hashes, checks out or patches work-tree files runs with those conversions turned off.
 *
 * git 2.39 has no `--attr-source`, so the switch is an overlay of the repository's common git
 * dir (`GIT_COMMON_DIR`, in Pitroom's scratch space) whose `info/attributes`, the attributes
 * file that outranks every `.gitattributes`, unsets each converting attribute for every path. The
 * overlay's config is a copy of the repository's own (so its format and extensions, ignore and
 * symlink settings hold) that also includes the original (so relative includes resolve);
 * `info/exclude` is copied. HEAD and the index stay the work tree's. Sparse-checkout rules are
 * off for these calls: a snapshot records what is on disk, inside the cone or not.
 *
 * An index seeded from the user's holds git's filtered ids for files whose stat it trusts;
 * `rawCandidates` names the entries whose attributes could make those differ from the bytes.
 */
import { join } from "../sys/path.ts";
import { git, type GitSys, nulList } from "./git.ts";
import { encodeLossless } from "./lossless.ts";
import type { RepoInfo } from "./repo.ts";
import { type StoreOptions, trackingEnv } from "./store.ts";

/** The attributes line that turns every conversion off. */
export const NEUTRAL_ATTRIBUTES = "* -text -eol -crlf -filter -ident -working-tree-encoding\n";

async function readOrNull(path: string): Promise<Uint8Array | null> {
  try {
    return await Deno.readFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/** Quotes a config value (a path) for a config file (a line break as `\n`, which git reads). */
function configValue(text: string): string {
  const escaped = text.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
  return `"${escaped}"`;
}

/** Writes the overlay of `repo`'s common git dir into `dir` (a fresh folder); returns its path. */
export async function rawCommonDir(repo: RepoInfo, dir: string): Promise<string> {
  const common = join(dir, "common");
  await Deno.mkdir(join(common, "info"), { recursive: true, mode: 0o700 });
  await Deno.mkdir(join(common, "refs"));
  await Deno.mkdir(join(common, "objects"));
  const config = await readOrNull(join(repo.commonDir, "config")) ?? new Uint8Array();
  const include = new TextEncoder().encode(
    `\n[include]\n\tpath = ${configValue(join(repo.commonDir, "config"))}\n`,
  );
  const joined = new Uint8Array(config.length + include.length);
  joined.set(config);
  joined.set(include, config.length);
  await Deno.writeFile(join(common, "config"), joined);
  await Deno.writeTextFile(join(common, "info", "attributes"), NEUTRAL_ATTRIBUTES);
  const exclude = await readOrNull(join(repo.commonDir, "info", "exclude"));
  if (exclude !== null) await Deno.writeFile(join(common, "info", "exclude"), exclude);
  return common;
}

/**
 * `trackingEnv` over the overlay `common`: git sees and writes the bytes on disk, and a sparse
 * checkout's rules are off (every file on disk counts, inside the cone or not).
 */
export function rawEnv(
  repo: RepoInfo,
  store: StoreOptions,
  common: string,
): Record<string, string> {
  return { ...trackingEnv(repo, store), GIT_COMMON_DIR: common, ...NOT_SPARSE };
}

/** Config given through the environment (it outranks `config.worktree`, where sparse lives). */
export const NOT_SPARSE = {
  GIT_CONFIG_COUNT: "1",
  GIT_CONFIG_KEY_0: "core.sparseCheckout",
  GIT_CONFIG_VALUE_0: "false",
};

const CONVERTING = ["text", "eol", "crlf", "filter", "ident", "working-tree-encoding"];

/** True when one path's attributes (name -> value from `check-attr`) may convert its bytes. */
export function mayConvert(attrs: Map<string, string>, autocrlf: boolean): boolean {
  const given = (name: string) => {
    const value = attrs.get(name) ?? "unspecified";
    return value !== "unspecified" && value !== "unset";
  };
  if (given("filter") || given("ident") || given("working-tree-encoding")) return true;
  const text = attrs.get("text") ?? "unspecified";
  if (text !== "unspecified") return text !== "unset";
  const crlf = attrs.get("crlf") ?? "unspecified";
  if (crlf !== "unspecified") return crlf !== "unset";
  return given("eol") || autocrlf;
}

/** Parses `git check-attr -z` output into the attributes of each path. */
export function parseCheckAttrZ(stdout: string): Map<string, Map<string, string>> {
  const tokens = stdout.split("\0");
  const out = new Map<string, Map<string, string>>();
  for (let i = 0; i + 2 < tokens.length; i += 3) {
    const path = tokens[i]!;
    const attrs = out.get(path) ?? new Map<string, string>();
    attrs.set(tokens[i + 1]!, tokens[i + 2]!);
    out.set(path, attrs);
  }
  return out;
}

/** One regular-file entry of an index (`ls-files -s`). */
export interface IndexEntry {
  mode: string;
  blob: string;
  path: string;
}

/** Parses `git ls-files -s -z`, keeping stage-0 regular files. */
export function parseStagedZ(stdout: string): IndexEntry[] {
  const entries: IndexEntry[] = [];
  for (const record of stdout.split("\0")) {
    const match = /^(\d{6}) ([0-9a-f]+) (\d)\t(.*)$/s.exec(record);
    if (match === null) continue;
    const [, mode, blob, stage, path] = match as unknown as [
      string,
      string,
      string,
      string,
      string,
    ];
    if (stage === "0" && (mode === "100644" || mode === "100755")) {
      entries.push({ mode, blob, path });
    }
  }
  return entries;
}

/** The settings that decide how a snapshot reads the tree, read once per snapshot. */
export interface ConversionConfig {
  autocrlf: boolean;
  /** `core.attributesFile`, when set. */
  attributesFile: string | null;
  /** `core.sparseCheckout`: some tracked files are meant to be absent from the disk. */
  sparse: boolean;
  /**
   * False when a setting makes git read the disk other than plainly: `core.fileMode` or
   * `core.symlinks` off, `core.ignoreCase` on, or an object format other than SHA-1. The
   * snapshot's quick path is only taken when true.
   */
  plain: boolean;
}

const falsy = (value: string) =>
  ["false", "no", "off", "0", ""].includes(value.trim().toLowerCase());

/**
 * Reads `core.autocrlf`, `core.attributesFile`, `core.sparseCheckout` and what decides `plain`
 * (one git call).
 */
export async function conversionConfig(
  sys: GitSys,
  repo: RepoInfo,
  store: StoreOptions,
): Promise<ConversionConfig> {
  const out = await git(
    sys,
    [
      "config",
      "-z",
      "--get-regexp",
      "^(core\\.(autocrlf|attributesfile|sparsecheckout|filemode|symlinks|ignorecase)|extensions\\.objectformat)$",
    ],
    { cwd: repo.root, env: trackingEnv(repo, store), okCodes: [0, 1] },
  );
  const found: ConversionConfig = {
    autocrlf: false,
    attributesFile: null,
    sparse: false,
    plain: true,
  };
  for (const record of out.stdout.split("\0")) {
    if (record === "") continue;
    // A key written without "=" is a boolean true; git prints it with no newline.
    const cut = record.indexOf("\n");
    const key = cut < 0 ? record : record.slice(0, cut);
    const value = cut < 0 ? "true" : record.slice(cut + 1);
    if (key === "core.autocrlf") found.autocrlf = !falsy(value);
    else if (key === "core.sparsecheckout") found.sparse = !falsy(value);
    else if (key === "core.attributesfile") found.attributesFile = value;
    else if (key === "core.filemode" || key === "core.symlinks") found.plain &&= !falsy(value);
    else if (key === "core.ignorecase") found.plain &&= falsy(value);
    else if (key === "extensions.objectformat") found.plain &&= value.trim() === "sha1";
  }
  return found;
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await Deno.stat(path)).isFile;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return false;
    }
    throw error;
  }
}

/**
 * True when an attributes file outside the tree exists (`info/attributes`, the global or the
 * system one) or `core.autocrlf` is on: some conversion may apply.
 */
export async function convertsOutsideTree(
  sys: GitSys,
  repo: RepoInfo,
  config: ConversionConfig,
): Promise<boolean> {
  if (config.autocrlf) return true;
  const home = sys.env.get("HOME") ?? "";
  const xdg = sys.env.get("XDG_CONFIG_HOME") || (home === "" ? "" : join(home, ".config"));
  const configured = config.attributesFile;
  const files = [
    join(repo.commonDir, "info", "attributes"),
    configured === null
      ? (xdg === "" ? "" : join(xdg, "git", "attributes"))
      : configured.startsWith("~/")
      ? join(home, configured.slice(2))
      : configured,
    sys.env.get("GIT_ATTR_NOSYSTEM") ? "" : "/etc/gitattributes",
  ].filter((path) => path !== "");
  for (const path of files) if (await isFile(path)) return true;
  return false;
}

const NAME = new TextEncoder().encode(".gitattributes");

/**
 * Whether the index file's bytes hold the name `.gitattributes` anywhere (index versions 2
 * and 3 store every path whole); null for a version 4 index, whose paths are compressed.
 */
export function indexMayNameAttributes(bytes: Uint8Array): boolean | null {
  const version = bytes.length < 8
    ? 0
    : ((bytes[4]! << 24) | (bytes[5]! << 16) | (bytes[6]! << 8) | bytes[7]!) >>> 0;
  if (version !== 2 && version !== 3) return null;
  for (let i = bytes.indexOf(0x2e, 12); i >= 0; i = bytes.indexOf(0x2e, i + 1)) {
    let same = true;
    for (let k = 1; k < NAME.length && same; k++) same = bytes[i + k] === NAME[k];
    if (same) return true;
  }
  return false;
}

/** True when the index at `index` holds a `.gitattributes` file (read-only, no lock). */
export async function attributesInTree(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & { index: string },
): Promise<boolean> {
  // Reading the index file is much cheaper than a git process; a mention is checked by git.
  if (indexMayNameAttributes(await Deno.readFile(options.index)) === false) return false;
  const listed = await git(sys, ["ls-files", "-z", "--", "*.gitattributes"], {
    cwd: repo.root,
    env: { ...trackingEnv(repo, options), GIT_INDEX_FILE: options.index },
  });
  return listed.stdout.split("\0").some((path) =>
    path === ".gitattributes" || path.endsWith("/.gitattributes")
  );
}

/**
 * The regular files of the index at `index` whose attributes (the user's, as git would apply
 * them) may convert their bytes.
 */
export async function rawCandidates(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & { index: string; autocrlf: boolean },
): Promise<IndexEntry[]> {
  const env = { ...trackingEnv(repo, options), GIT_INDEX_FILE: options.index };
  const call = { cwd: repo.root, env };
  const entries = parseStagedZ((await git(sys, ["ls-files", "-s", "-z"], call)).stdout);
  if (entries.length === 0) return [];
  const checked = await git(sys, ["check-attr", "-z", "--stdin", ...CONVERTING], {
    ...call,
    stdin: nulList(entries.map((entry) => entry.path)),
  });
  const attrs = parseCheckAttrZ(checked.stdout);
  return entries.filter((entry) =>
    mayConvert(attrs.get(entry.path) ?? new Map(), options.autocrlf)
  );
}

/** One line of `git hash-object --stdin-paths`: C-quoted when the path would not read back. */
export function stdinPathLine(path: string): string {
  if (!path.includes("\n") && !path.startsWith('"')) return `${path}\n`;
  return `"${path.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"\n`;
}

/**
 * Blob ids of the bytes of `paths` (regular files, relative to the root) as they are on disk,
 * written to Pitroom's store when `write`.
 */
export async function hashRaw(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & { paths: readonly string[]; write: boolean },
): Promise<Map<string, string>> {
  const hashes = new Map<string, string>();
  if (options.paths.length === 0) return hashes;
  const args = ["hash-object", "--no-filters", ...(options.write ? ["-w"] : []), "--stdin-paths"];
  const out = await git(sys, args, {
    cwd: repo.root,
    env: trackingEnv(repo, options),
    stdin: encodeLossless(options.paths.map(stdinPathLine).join("")),
  });
  const ids = out.stdout.trim().split("\n");
  options.paths.forEach((path, i) => hashes.set(path, ids[i] ?? ""));
  return hashes;
}

/**
 * Replaces, in the index at `index`, every blob id that may be git's filtered form of a file by
 * the id of the file's bytes (the entry loses its stat data, so the next `add -A` reads it).
 */
export async function rehashConverted(
  sys: GitSys,
  repo: RepoInfo,
  options: StoreOptions & { index: string; env: Record<string, string>; autocrlf: boolean },
): Promise<void> {
  const candidates = await rawCandidates(sys, repo, options);
  if (candidates.length === 0) return;
  const ids = await hashRaw(sys, repo, {
    ...options,
    paths: candidates.map((entry) => entry.path),
    write: true,
  });
  const records = candidates.filter((entry) => ids.get(entry.path) !== entry.blob).map((entry) =>
    `${entry.mode} ${ids.get(entry.path)}\t${entry.path}\0`
  );
  if (records.length === 0) return;
  await git(sys, ["update-index", "-z", "--index-info"], {
    cwd: repo.root,
    env: options.env,
    stdin: encodeLossless(records.join("")),
  });
}
