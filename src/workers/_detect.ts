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

/**
 * The first `x.y.z` version in a CLI's `--version` output (with its pre-release or build part),
 * else null. Punctuation after it is not part of it: copilot prints "GitHub Copilot CLI 1.0.102.".
 */
export function parseVersion(text: string): string | null {
  return /(\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]*[0-9A-Za-z])?)/.exec(text)?.[1] ?? null;
}

/**
 * Finds `binary` and runs `binary --version` (stdin closed, with `extraEnv`): null when it is not
 * on PATH or the command fails; a version that cannot be read is kept as printed, for `doctor`
 * to warn about (the CLI is there and may work).
 */
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
  if (out.code !== 0) return null;
  return { binary: path, version: parseVersion(out.stdout) ?? printedVersion(out.stdout) };
}

/** The first line a `--version` printed, as it may be shown: no control characters, short. */
function printedVersion(text: string): string {
  const line = text.split("\n").map((l) => l.trim()).find((l) => l !== "") ?? "";
  // deno-lint-ignore no-control-regex
  return line.replace(/[\u0000-\u001f\u007f-\u009f]/g, "?").slice(0, 80);
}
