/**
 * What the sandbox's private `/tmp` must show again (read-only): the real `/tmp` is replaced by the
 * attempt's own temp folder, so whatever the launch reaches under it would be gone. Shown is the
 * whole folder right below `/tmp` that holds each of: the paths the caller names (the tree, its
 * repositories, `HOME`), absolute `/tmp` paths in the environment (PATH) and the argv, the real
 * folders of PATH entries that are links into `/tmp`, and the program itself and the interpreter
 * its `#!` line names (`node` of a script CLI) when the executable found on PATH, or a link on the
 * way to it, lies there (a PATH entry linked into `/tmp`, `~/bin/opencode` -> `/tmp/...`).
 */
import { dirname, isAbsolute, join } from "../../sys/path.ts";
import { lstatOrNullSync } from "../../sys/fs.ts";
import { findOnPath } from "../../workers/_detect.ts";
import { realOrNull } from "./paths.ts";

/** The folder the sandbox replaces with the private temp folder. */
export const HIDDEN_TMP = "/tmp";

const TMP_PATH = /(?:^|[\s'"=:,])(\/tmp\/[^\s'":,;)]+)/g;

/** Absolute paths under `/tmp` that a text names (pure). */
export function tmpPathsIn(text: string): string[] {
  return [...text.matchAll(TMP_PATH)].map((m) => m[1]!.replace(/\/+$/, ""));
}

/**
 * The folder right below `/tmp` that holds `path` (its nearest existing parent, real); null when
 * none. The whole top folder is shown, not just the path: a CLI installed under `/tmp` names its
 * `node_modules/.bin` on PATH, and the links there point into the packages beside it.
 */
async function topBelowTmp(path: string): Promise<string | null> {
  let at = path;
  while (at !== HIDDEN_TMP && at.startsWith(`${HIDDEN_TMP}/`)) {
    const real = await realOrNull(at);
    if (real !== null) return topOf(real);
    at = dirname(at);
  }
  return null;
}

/** The folder right below `/tmp` holding a real path, or null outside `/tmp` (pure). */
function topOf(real: string): string | null {
  if (!real.startsWith(`${HIDDEN_TMP}/`)) return null;
  return join(HIDDEN_TMP, real.slice(HIDDEN_TMP.length + 1).split("/")[0]!);
}

/**
 * The paths under `/tmp` that reaching `path` goes through: each link of its chain that lies
 * there (a link outside `/tmp` to a link inside it to a file outside), and its real path.
 */
async function tmpHops(path: string): Promise<string[]> {
  const out: string[] = [];
  let at = path;
  for (let hop = 0; hop < 40; hop++) {
    // The folder holding a link in /tmp (the link itself resolves to where it leads).
    if (topOf(at) !== null) out.push(dirname(at));
    const info = lstatOrNullSync(at);
    if (info === null || !info.isSymlink) break;
    const target = Deno.readLinkSync(at);
    at = isAbsolute(target) ? target : join(dirname(at), target);
  }
  const real = await realOrNull(path);
  if (real !== null && topOf(real) !== null) out.push(real);
  return out;
}

/** The interpreter a script's `#!` line names (`env X` looked up on PATH), or null. */
function interpreterOf(real: string, path: string): string | null {
  let head: string;
  try {
    using file = Deno.openSync(real);
    const buffer = new Uint8Array(256);
    const n = file.readSync(buffer);
    head = new TextDecoder().decode(buffer.subarray(0, n ?? 0));
  } catch (error) {
    if (
      error instanceof Deno.errors.NotFound || error instanceof Deno.errors.PermissionDenied ||
      error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.IsADirectory
    ) {
      return null;
    }
    throw error;
  }
  if (!head.startsWith("#!")) return null;
  const words = head.slice(2).split("\n")[0]!.trim().split(/\s+/);
  const first = words[0];
  if (first === undefined || first === "") return null;
  if (!first.endsWith("/env")) return first;
  const name = words.slice(1).find((w) => !w.startsWith("-") && !w.includes("="));
  return name === undefined ? null : findOnPath(name, { PATH: path });
}

/** Where a launch's program is: as given when it names a path, else found on PATH; or null. */
export function programOnPath(program: string, path: string): string | null {
  return program.includes("/") ? program : findOnPath(program, { PATH: path });
}

/**
 * Paths under `/tmp` that the launch reaches from outside it: PATH entries that are links into
 * `/tmp`, and the program itself and the interpreter its `#!` line names (`node` of a script
 * CLI), when the executable found on PATH, or a link on the way to it, lies there.
 */
async function linkedIntoTmp(
  env: Readonly<Record<string, string>>,
  argv: readonly string[],
): Promise<string[]> {
  const out: string[] = [];
  const path = env.PATH ?? "";
  const entries = path.split(":").filter((p) => isAbsolute(p) && !p.startsWith("/tmp"));
  for (const entry of entries) {
    const real = await realOrNull(entry);
    if (real !== null && topOf(real) !== null) out.push(real);
  }
  const program = argv[0];
  if (program !== undefined) {
    const found = programOnPath(program, path);
    if (found !== null) {
      out.push(...await tmpHops(found));
      const real = await realOrNull(found);
      const interpreter = real === null ? null : interpreterOf(real, path);
      if (interpreter !== null) out.push(...await tmpHops(interpreter));
    }
  }
  return out;
}

/**
 * The folders right below `/tmp` to show again for a launch: those holding `paths`, the `/tmp`
 * paths its environment and argv name, and where its program and interpreter lead; shortest
 * first.
 */
export async function shownInTmp(
  paths: readonly string[],
  launch: { env: Readonly<Record<string, string>>; argv: readonly string[] },
): Promise<string[]> {
  const named = [
    ...paths,
    ...[...Object.values(launch.env), ...launch.argv].flatMap(tmpPathsIn),
    ...await linkedIntoTmp(launch.env, launch.argv),
  ];
  const visible: string[] = [];
  for (const path of named) {
    const top = await topBelowTmp(path);
    if (top !== null && !visible.includes(top)) visible.push(top);
  }
  return visible.sort((a, b) => a.length - b.length);
}
