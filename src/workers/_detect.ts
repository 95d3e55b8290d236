/**
 * Finding a worker CLI on PATH and reading its version, the same way for every backend.
 */
import { delimiter, isAbsolute, join } from "../sys/path.ts";
import type { Runner } from "../sys/mod.ts";
import type { Installed } from "./types.ts";
import { statOrNullSync } from "../sys/fs.ts";

/** The full path of `binary` on the env's PATH (or the path itself when absolute), else null. */
export function findOnPath(binary: string, env: Record<string, string>): string | null {
  if (isAbsolute(binary)) return statOrNullSync(binary) !== null ? binary : null;
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, binary);
    if (statOrNullSync(candidate) !== null) return candidate;
  }
  return null;
}

/** The first `x.y.z` version in a CLI's `--version` output, else null. */
export function parseVersion(text: string): string | null {
  return /(\d+\.\d+\.\d+\S*)/.exec(text)?.[1] ?? null;
}

/** Finds `binary` and runs `binary --version` (stdin closed, with `extraEnv`). */
export async function detectCli(
  runner: Runner,
  binary: string,
  options: { env: Record<string, string>; extraEnv?: Record<string, string> },
): Promise<Installed | null> {
  const path = findOnPath(binary, options.env);
  if (path === null) return null;
  const out = await runner.run([path, "--version"], {
    env: { ...options.env, ...options.extraEnv },
    stdin: { kind: "null" },
  });
  const version = out.code === 0 ? parseVersion(out.stdout) : null;
  return version === null ? null : { binary: path, version };
}
