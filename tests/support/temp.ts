/**
 * Temp dirs and git repos that clean themselves up (`await using`).
 */
import { join } from "node:path";

/** A temp dir removed on dispose. */
export interface TempDir extends AsyncDisposable {
  path: string;
}

/** Makes a temp dir. */
export async function tempDir(prefix = "pitroom-test-"): Promise<TempDir> {
  const path = await Deno.makeTempDir({ prefix });
  return {
    path,
    async [Symbol.asyncDispose]() {
      await Deno.remove(path, { recursive: true }).catch(() => undefined);
    },
  };
}

/** Runs git in `cwd` and returns stdout; throws on failure. */
export async function git(cwd: string, ...args: string[]): Promise<string> {
  const out = await new Deno.Command("git", {
    args,
    cwd,
    stdin: "null",
    env: {
      GIT_AUTHOR_NAME: "Test",
      GIT_AUTHOR_EMAIL: "test@example.invalid",
      GIT_COMMITTER_NAME: "Test",
      GIT_COMMITTER_EMAIL: "test@example.invalid",
      GIT_CONFIG_NOSYSTEM: "1",
      HOME: cwd,
    },
  }).output();
  const text = new TextDecoder().decode(out.stdout);
  if (out.code !== 0) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(out.stderr)}`);
  }
  return text;
}

/** A git repo with committed files, in a temp dir. */
export async function tempRepo(files: Record<string, string>): Promise<TempDir> {
  const dir = await tempDir("pitroom-repo-");
  await git(dir.path, "init", "-q", "-b", "main");
  for (const [name, content] of Object.entries(files)) {
    await Deno.mkdir(join(dir.path, name, ".."), { recursive: true });
    await Deno.writeTextFile(join(dir.path, name), content);
  }
  await git(dir.path, "add", "-A");
  await git(dir.path, "commit", "-q", "-m", "init");
  return dir;
}

/** Waits for `check()` to hold, re-checking every `everyMs`, failing after `timeoutMs`. */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  options: { timeoutMs: number; what: string; everyMs?: number },
): Promise<void> {
  const deadline = Date.now() + options.timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${options.timeoutMs}ms waiting for ${options.what}`);
    }
    await new Promise((r) => setTimeout(r, options.everyMs ?? 25));
  }
}
