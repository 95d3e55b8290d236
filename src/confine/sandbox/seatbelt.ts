/**
 * The macOS sandbox-exec profile of a plan (pure): everything allowed but file writes, which
 * are allowed only in the plan's writable folders (and the terminal devices), and never in its
 * read-only ones; later rules win in the profile language. Generated, not tested on a Mac here.
 */
import type { SandboxPlan } from "./plan.ts";

function quote(path: string): string {
  return `"${path.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
}

/** The profile text. */
export function seatbeltProfile(plan: SandboxPlan): string {
  const lines = [
    "(version 1)",
    "(allow default)",
    "(deny file-write*)",
    '(allow file-write* (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (subpath "/dev/fd"))',
  ];
  for (const path of plan.writable) lines.push(`(allow file-write* (subpath ${quote(path)}))`);
  for (const path of plan.readOnly) lines.push(`(deny file-write* (subpath ${quote(path)}))`);
  return lines.join("\n") + "\n";
}

/** The argv that runs `argv` under the plan's profile. */
export function sandboxExecArgv(
  plan: SandboxPlan,
  argv: readonly string[],
  binary = "/usr/bin/sandbox-exec",
): string[] {
  return [binary, "-p", seatbeltProfile(plan), ...argv];
}
