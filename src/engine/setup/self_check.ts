/**
 * The program's checks of itself (`pitroom self-check`): the state dir can be written, and git
 * is there and new enough. The CLI adds its embedded assets and its permission set.
 */
import type { HeldSys } from "../../store/state.ts";
import { join } from "../../sys/path.ts";

/** The oldest git Pitroom works with (`add --pathspec-from-file`, `sparse-checkout`). */
export const MIN_GIT = [2, 25] as const;

/** One self-check. */
export interface SelfCheck {
  check: string;
  ok: boolean;
  message: string;
  hint?: string;
}

/** `git version 2.39.5` -> [2, 39, 5]; null when it is not a version line. */
export function parseGitVersion(text: string): number[] | null {
  const m = /git version (\d+)\.(\d+)(?:\.(\d+))?/.exec(text);
  return m ? [Number(m[1]), Number(m[2]), Number(m[3] ?? 0)] : null;
}

async function stateDirCheck(sys: HeldSys): Promise<SelfCheck> {
  const dir = sys.stateDir;
  const probe = join(dir, `.self-check-${crypto.randomUUID()}`);
  try {
    await Deno.mkdir(dir, { recursive: true });
    await Deno.writeTextFile(probe, "ok\n", { createNew: true });
    await Deno.remove(probe);
    return { check: "state dir", ok: true, message: `${dir} is writable` };
  } catch (error) {
    return {
      check: "state dir",
      ok: false,
      message: `cannot write to ${dir}: ${error instanceof Error ? error.message : String(error)}`,
      hint: "set PITROOM_STATE_DIR to a folder you can write",
    };
  }
}

async function gitCheck(sys: HeldSys): Promise<SelfCheck> {
  const want = MIN_GIT.join(".");
  let text: string;
  try {
    text = (await sys.runner.run(["git", "--version"])).stdout;
  } catch {
    return { check: "git", ok: false, message: "git is not installed", hint: "install git" };
  }
  const version = parseGitVersion(text);
  if (version === null) {
    return { check: "git", ok: false, message: `cannot read the version of git: ${text.trim()}` };
  }
  const [major, minor] = version as [number, number];
  const ok = major > MIN_GIT[0] || (major === MIN_GIT[0] && minor >= MIN_GIT[1]);
  return {
    check: "git",
    ok,
    message: ok
      ? `git ${version.join(".")} (${want} or newer needed)`
      : `git ${version.join(".")} is older than ${want}`,
    ...(ok ? {} : { hint: `install git ${want} or newer` }),
  };
}

/** The engine's part of the self-check. */
export async function selfCheck(sys: HeldSys): Promise<SelfCheck[]> {
  return [await stateDirCheck(sys), await gitCheck(sys)];
}
