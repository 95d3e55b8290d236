/**
 * The skills part of `pitroom install` / `uninstall`: each skill folder (`<name>/SKILL.md` and
 * its files) is linked (or with `--copy` copied) into `~/.agents/skills/` and Claude Code's
 * `skills/` folder, for each of those whose parent (`~/.agents`, `~/.claude`) exists. A folder of
 * the user's own with the same name is kept unless `--force` (then moved aside to the state
 * dir's `backups/` and given back by `uninstall`). What was put in place is in the install
 * record; `uninstall` removes exactly that, and only while it is still as installed.
 *
 * The skills come from a folder on disk (`PITROOM_SKILLS_DIR`, else the program's own `skills/`
 * when it runs from source) or, in the compiled binary or a bundle, from the embedded file list
 * (skills_bundle.ts), written to the state dir's `skills/` so that there is a folder to link to.
 */
import { installPaths } from "./install_record.ts";
import { lstatOrNull, statOrNullSync } from "../sys/fs.ts";
import type { Sys } from "../sys/mod.ts";
import { dirname, fromFileUrl, join } from "../sys/path.ts";
import type { InstallRecord, SkillEntry } from "./install_record.ts";
import { SKILL_FILES, type SkillFile } from "./skills_bundle.ts";
import { buildInfo } from "./version.ts";

/** Where the skills come from. */
export type SkillSource =
  | { kind: "dir"; dir: string }
  | { kind: "bundle"; files: readonly SkillFile[] };

/** One skills folder of a client. */
export interface SkillRoot {
  /** The folder that must exist (`~/.agents`, `~/.claude`). */
  parent: string;
  /** The skills folder in it. */
  dir: string;
}

/** What happened to one skill folder. */
export interface SkillChange {
  name: string;
  path: string;
  action:
    | "added"
    | "unchanged"
    | "updated"
    | "kept"
    | "replaced"
    | "removed"
    | "restored"
    | "left"
    | "absent";
  kind?: "link" | "copy";
  backup?: string;
}

/** The skill source of this program (see the module doc). */
export function skillSource(sys: Sys): SkillSource {
  const given = sys.env.get("PITROOM_SKILLS_DIR");
  if (given) return { kind: "dir", dir: given };
  // From source, the checkout's folder; a build (a compiled binary or a bundle, both stamped)
  // carries the embedded list, wherever its folder is.
  const url = new URL("../../skills", import.meta.url);
  if (!Deno.build.standalone && buildInfo().date === null && url.protocol === "file:") {
    const dir = fromFileUrl(url);
    if (statOrNullSync(dir)?.isDirectory) return { kind: "dir", dir };
  }
  return { kind: "bundle", files: SKILL_FILES };
}

/** The skills folders of the clients, whether or not they exist. */
export function skillRoots(env: Sys["env"]): SkillRoot[] {
  const home = env.get("HOME") ?? "";
  const claude = env.get("CLAUDE_CONFIG_DIR") || join(home, ".claude");
  const agents = join(home, ".agents");
  return [{ parent: agents, dir: join(agents, "skills") }, {
    parent: claude,
    dir: join(claude, "skills"),
  }];
}

async function walk(dir: string, prefix = ""): Promise<string[]> {
  const files: string[] = [];
  for await (const entry of Deno.readDir(dir)) {
    const rel = prefix === "" ? entry.name : `${prefix}/${entry.name}`;
    if (entry.isDirectory) files.push(...await walk(join(dir, entry.name), rel));
    else if (entry.isFile) files.push(rel);
  }
  return files.sort();
}

/** The skills of a source: name -> its files (paths relative to the skill folder). */
export async function loadSkills(source: SkillSource): Promise<Map<string, SkillFile[]>> {
  const skills = new Map<string, SkillFile[]>();
  if (source.kind === "bundle") {
    for (const file of source.files) {
      const [name, ...rest] = file.path.split("/");
      if (name === undefined || rest.length === 0) continue;
      const list = skills.get(name) ?? [];
      list.push({ path: rest.join("/"), text: file.text });
      skills.set(name, list);
    }
    for (const [name, files] of skills) {
      if (!files.some((f) => f.path === "SKILL.md")) skills.delete(name);
    }
    return skills;
  }
  let entries: Deno.DirEntry[];
  try {
    entries = await Array.fromAsync(Deno.readDir(source.dir));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return skills;
    throw error;
  }
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (!entry.isDirectory) continue;
    const dir = join(source.dir, entry.name);
    if (!(await lstatOrNull(join(dir, "SKILL.md")))?.isFile) continue;
    const files: SkillFile[] = [];
    for (const path of await walk(dir)) {
      files.push({ path, text: await Deno.readTextFile(join(dir, path)) });
    }
    skills.set(entry.name, files);
  }
  return skills;
}

/** A content hash of a skill's files (paths and texts). */
export async function filesHash(files: readonly SkillFile[]): Promise<string> {
  const sorted = [...files].sort((a, b) => a.path.localeCompare(b.path));
  const text = sorted.map((f) => `${f.path}\0${f.text}\0`).join("");
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

async function dirHash(dir: string): Promise<string | null> {
  try {
    const files: SkillFile[] = [];
    for (const path of await walk(dir)) {
      files.push({ path, text: await Deno.readTextFile(join(dir, path)) });
    }
    return await filesHash(files);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof TypeError) return null;
    throw error;
  }
}

async function writeFiles(dir: string, files: readonly SkillFile[]): Promise<void> {
  for (const file of files) {
    const path = join(dir, file.path);
    await Deno.mkdir(dirname(path), { recursive: true });
    await Deno.writeTextFile(path, file.text);
  }
}

/** True when the folder at `path` is still what the record says was installed there. */
async function isOurs(entry: SkillEntry): Promise<boolean> {
  const stat = await lstatOrNull(entry.path);
  if (stat === null) return false;
  if (entry.kind === "link") {
    return stat.isSymlink && (await Deno.readLink(entry.path)) === entry.target;
  }
  return stat.isDirectory && !stat.isSymlink && (await dirHash(entry.path)) === entry.hash;
}

async function removeOurs(entry: SkillEntry): Promise<void> {
  if (entry.kind === "link") await Deno.remove(entry.path);
  else await Deno.remove(entry.path, { recursive: true });
}

/** Options of a skills install. */
export interface SkillInstallOptions {
  source: SkillSource;
  roots: SkillRoot[];
  copy: boolean;
  force: boolean;
  dryRun: boolean;
  /** A stamp for backup folder names. */
  stamp: string;
}

/** The link targets: the source folder's skills, or the bundle written to the state dir. */
async function linkTargets(
  sys: Sys,
  options: SkillInstallOptions,
  skills: Map<string, SkillFile[]>,
): Promise<Map<string, string>> {
  const targets = new Map<string, string>();
  const base = options.source.kind === "dir"
    ? options.source.dir
    : installPaths(sys.stateDir).skills;
  for (const [name, files] of skills) {
    const target = join(base, name);
    targets.set(name, target);
    if (options.source.kind === "bundle" && !options.dryRun) {
      if ((await dirHash(target)) !== (await filesHash(files))) {
        await Deno.remove(target, { recursive: true }).catch((error) => {
          if (!(error instanceof Deno.errors.NotFound)) throw error;
        });
        await writeFiles(target, files);
      }
    }
  }
  return targets;
}

async function put(
  entry: SkillEntry,
  files: readonly SkillFile[],
  dryRun: boolean,
): Promise<void> {
  if (dryRun) return;
  await Deno.mkdir(dirname(entry.path), { recursive: true });
  if (entry.kind === "link") await Deno.symlink(entry.target!, entry.path);
  else await writeFiles(entry.path, files);
}

/** Links or copies every skill into every present root; updates `record.skills`. */
export async function installSkills(
  sys: Sys,
  record: InstallRecord,
  options: SkillInstallOptions,
): Promise<SkillChange[]> {
  const skills = await loadSkills(options.source);
  const targets = options.copy ? new Map() : await linkTargets(sys, options, skills);
  const changes: SkillChange[] = [];
  const roots: SkillRoot[] = [];
  for (const root of options.roots) {
    if ((await lstatOrNull(root.parent))?.isDirectory) roots.push(root);
  }
  for (const root of roots) {
    for (const [name, files] of skills) {
      const path = join(root.dir, name);
      const want: SkillEntry = options.copy
        ? { name, path, kind: "copy", hash: await filesHash(files) }
        : { name, path, kind: "link", target: targets.get(name) };
      const at = record.skills.findIndex((e) => e.path === path);
      const recorded = at >= 0 ? record.skills[at]! : null;
      const keep = (entry: SkillEntry) => {
        if (at >= 0) record.skills[at] = entry;
        else record.skills.push(entry);
      };
      const stat = await lstatOrNull(path);
      const backupOf = recorded?.backup ? { backup: recorded.backup } : {};
      if (stat === null) {
        await put(want, files, options.dryRun);
        keep({ ...want, ...backupOf });
        changes.push({ name, path, action: "added", kind: want.kind });
      } else if (await isOurs(want)) {
        keep({ ...want, ...backupOf });
        changes.push({ name, path, action: "unchanged", kind: want.kind });
      } else if (recorded !== null && await isOurs(recorded)) {
        if (!options.dryRun) await removeOurs(recorded);
        await put(want, files, options.dryRun);
        keep({ ...want, ...backupOf });
        changes.push({ name, path, action: "updated", kind: want.kind });
      } else if (!options.force) {
        changes.push({ name, path, action: "kept" });
      } else {
        const backup = join(
          installPaths(sys.stateDir).backups,
          "skills",
          `${name}-${options.stamp}-${changes.length}`,
        );
        if (!options.dryRun) {
          await Deno.mkdir(dirname(backup), { recursive: true });
          await Deno.rename(path, backup);
        }
        await put(want, files, options.dryRun);
        keep({ ...want, backup });
        changes.push({ name, path, action: "replaced", kind: want.kind, backup });
      }
    }
  }
  // Skills installed earlier that the program no longer ships go again.
  const stale = record.skills.filter((e) => !skills.has(e.name));
  for (const entry of stale) changes.push(await uninstallOne(entry, record, options.dryRun));
  return changes;
}

async function uninstallOne(
  entry: SkillEntry,
  record: InstallRecord,
  dryRun: boolean,
): Promise<SkillChange> {
  const base = { name: entry.name, path: entry.path, kind: entry.kind };
  let action: SkillChange["action"];
  if ((await lstatOrNull(entry.path)) === null) action = "absent";
  else if (await isOurs(entry)) {
    if (!dryRun) await removeOurs(entry);
    action = "removed";
  } else action = "left";
  if (action !== "left" && entry.backup && (await lstatOrNull(entry.backup)) !== null) {
    if (!dryRun) await Deno.rename(entry.backup, entry.path);
    action = "restored";
  }
  record.skills = record.skills.filter((e) => e !== entry);
  return { ...base, action, ...(action === "restored" ? { backup: entry.backup } : {}) };
}

/** Removes every skill folder of the record that is still as installed. */
export async function uninstallSkills(
  record: InstallRecord,
  dryRun: boolean,
): Promise<SkillChange[]> {
  const changes: SkillChange[] = [];
  for (const entry of [...record.skills]) {
    changes.push(await uninstallOne(entry, record, dryRun));
  }
  return changes;
}
