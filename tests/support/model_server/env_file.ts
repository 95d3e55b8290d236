/**
 * Prepares a private worker home for the scripted model server: the HOME/XDG/TMPDIR layout, each
 * dialect's CLI config pointing at the server (through `Dialect.workerEnv`), and PATH with the
 * installed worker CLIs first. The resulting env map is what `--env-file` writes as
 * `export NAME='value'` lines and what the test fixture hands to spawned workers.
 */
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { DIALECTS } from "./dialects/mod.ts";
import { workerDirs } from "./worker_home.ts";

/** The repository root, computed from this file's place in it. */
export const REPO_ROOT: string = resolve(dirname(fileURLToPath(import.meta.url)), "../../..");

/** Where `deno task workers:install` puts the worker CLIs' executables. */
export const WORKER_BIN: string = resolve(REPO_ROOT, ".tools/workers/node_modules/.bin");

/** Options of `prepareWorkerEnv`. */
export interface PrepareOptions {
  /** Scenario names (a CLI that only accepts listed models lists them). */
  scenarios: string[];
  /**
   * The PATH the worker bin dir is put in front of.
   * @default the current process's PATH
   */
  path?: string;
}

/**
 * Creates the private worker home `home` (HOME, XDG dirs and TMPDIR inside it), lets every
 * dialect write its CLI's config pointing at `baseUrl`, and returns the worker env.
 */
export async function prepareWorkerEnv(
  home: string,
  baseUrl: string,
  options: PrepareOptions,
): Promise<Record<string, string>> {
  const dirs = workerDirs(home);
  for (const dir of Object.values(dirs)) await mkdir(dir, { recursive: true });
  const env: Record<string, string> = { ...dirs };
  for (const dialect of DIALECTS) {
    Object.assign(env, await dialect.workerEnv(home, baseUrl, { scenarios: options.scenarios }));
  }
  const rest = options.path ?? Deno.env.get("PATH") ?? "/usr/local/bin:/usr/bin:/bin";
  env.PATH = [WORKER_BIN, ...rest.split(":").filter((part) => part !== WORKER_BIN && part !== "")]
    .join(":");
  return env;
}

/** Quotes `value` for a POSIX shell (single quotes, embedded ones escaped). */
export function shellQuote(value: string): string {
  return `'${value.replaceAll("'", `'\\''`)}'`;
}

/** The `export NAME='value'` lines of an env map, sorted by name. */
export function envFileText(env: Record<string, string>): string {
  return Object.keys(env)
    .sort()
    .map((name) => `export ${name}=${shellQuote(env[name] ?? "")}\n`)
    .join("");
}

/** Writes `env` to `file` as `export` lines for `source FILE`. */
export async function writeEnvFile(file: string, env: Record<string, string>): Promise<void> {
  await writeFile(file, envFileText(env));
}
