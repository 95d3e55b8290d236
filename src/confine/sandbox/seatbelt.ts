/**
 * The macOS sandbox-exec profile of a plan (pure): everything allowed but file writes, which
 * are allowed only in the plan's writable folders (and the terminal devices), and never in its
 * read-only ones; hidden folders and files may not be read either, and what the plan shows inside
 * a hidden folder may be read again. Rules come in the plan's mount order, parents first, and
 * later rules win in the profile language. Generated, not tested on a Mac here.
 */
import { planMounts, type SandboxPlan } from "./plan.ts";

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
  const hiding = plan.hidden.length + plan.masked.length > 0;
  for (const mount of planMounts(plan, { visible: false })) {
    const at = quote(mount.path);
    if (mount.kind === "rw") {
      if (hiding) lines.push(`(allow file-read* (subpath ${at}))`);
      lines.push(`(allow file-write* (subpath ${at}))`);
    } else if (mount.kind === "ro" || mount.kind === "visible") {
      if (hiding) lines.push(`(allow file-read* (subpath ${at}))`);
      lines.push(`(deny file-write* (subpath ${at}))`);
    } else if (mount.kind === "hide") {
      lines.push(`(deny file-read* file-write* (subpath ${at}))`);
    } else {
      lines.push(`(deny file-read* file-write* (literal ${at}))`);
    }
  }
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
