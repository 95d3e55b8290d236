/**
 * One end-to-end world: the scripted model server, a git repo with some uncommitted work of the
 * user's, a private state dir and config, and `pitroom(...)` running the real program there.
 */
import { join } from "node:path";
import { startModelServer } from "../support/model_server/fixture.ts";
import { pitroom, type PitroomResult } from "../support/pitroom.ts";
import { tempDir, tempRepo, waitFor } from "../support/temp.ts";
import { isLocked } from "../../src/store/locks.ts";
import { statePaths } from "../../src/store/paths.ts";
import type { RunRecord } from "../../src/store/record.ts";

/** A running world. */
export interface World extends AsyncDisposable {
  repo: string;
  stateDir: string;
  env: Record<string, string>;
  /** Runs pitroom in the repo; `env` is laid over the world's. */
  run(
    args: string[],
    options?: { stdin?: string; env?: Record<string, string> },
  ): Promise<PitroomResult>;
  record(id: string): Promise<RunRecord>;
  read(path: string): Promise<string>;
}

/** Starts a world with these scenarios (opencode model ids are `fake/<name>`). */
export async function world(
  scenarios: Record<string, unknown>,
  options: { files?: Record<string, string>; config?: Record<string, unknown> } = {},
): Promise<World> {
  const server = await startModelServer({ scenarios });
  const repo = await tempRepo(
    options.files ?? { "src/app.ts": "export const answer = 41;\n", "README.md": "# app\n" },
  );
  const state = await tempDir("pitroom-e2e-state-");
  const configPath = join(state.path, "config.json");
  await Deno.writeTextFile(configPath, JSON.stringify(options.config ?? {}));
  const env = {
    ...server.env,
    PITROOM_STATE_DIR: join(state.path, "state"),
    PITROOM_CONFIG: configPath,
  };
  return {
    repo: repo.path,
    stateDir: env.PITROOM_STATE_DIR,
    env,
    run: (args, { env: more, ...o } = {}) =>
      pitroom(args, { env: { ...env, ...more }, cwd: repo.path, ...o }),
    async record(id) {
      return JSON.parse(
        await Deno.readTextFile(join(env.PITROOM_STATE_DIR, "runs", id, "run.json")),
      );
    },
    read: (path) => Deno.readTextFile(join(repo.path, path)),
    async [Symbol.asyncDispose]() {
      // The background host may still be finishing a stopped run (writing into its TMPDIR and
      // HOME, which live in the server's folder): end it before anything is removed.
      await endHost(env.PITROOM_STATE_DIR);
      await server[Symbol.asyncDispose]();
      await repo[Symbol.asyncDispose]();
      await state[Symbol.asyncDispose]();
    },
  };
}

/** Members of a process group that are alive (zombies count as dead). */
export async function liveInGroup(pgid: number): Promise<string[]> {
  const ps = await new Deno.Command("ps", { args: ["-o", "pid=,stat=", "-g", String(pgid)] })
    .output();
  return new TextDecoder().decode(ps.stdout).split("\n").map((l) => l.trim()).filter((l) =>
    l && !/\sZ/.test(l)
  );
}

/** True when a process is alive (not a zombie). */
export async function alive(pid: number): Promise<boolean> {
  const ps = await new Deno.Command("ps", { args: ["-o", "stat=", "-p", String(pid)] }).output();
  const stat = new TextDecoder().decode(ps.stdout).trim();
  return stat.length > 0 && !stat.startsWith("Z");
}

/**
 * Stops the state dir's background host, if one runs, and waits until it is gone. A host lets go
 * of its lock a moment before it exits (also when it leaves by itself, idle). One this test
 * process started is its child, whose exit Deno must have seen before the test ends (its
 * sanitizer counts the child as leaked otherwise), so the wait is for the process itself, not
 * even a zombie left.
 */
async function endHost(stateDir: string): Promise<void> {
  const paths = statePaths(stateDir);
  const pid = Number((await Deno.readTextFile(paths.host.pid).catch(() => "")).trim());
  if (await isLocked(paths.host.lock)) {
    if (pid > 0) {
      try {
        Deno.kill(pid, "SIGTERM");
      } catch (error) {
        if (!(error instanceof Deno.errors.NotFound)) throw error;
      }
    }
    await waitFor(async () => !(await isLocked(paths.host.lock)), {
      timeoutMs: 20_000,
      what: "the background host to let go of its lock",
    });
  }
  if (pid > 0) {
    await waitFor(async () => !(await hostProcess(pid)), {
      timeoutMs: 20_000,
      what: `the background host (pid ${pid}) to be gone`,
    });
  }
}

/** True while `ps` lists `pid` as a host (`__supervise`), a zombie included. */
async function hostProcess(pid: number): Promise<boolean> {
  const ps = await new Deno.Command("ps", { args: ["-o", "stat=,args=", "-p", String(pid)] })
    .output();
  const line = new TextDecoder().decode(ps.stdout).trim();
  // A zombie's args are gone ("[deno] <defunct>"): it is still ours to reap.
  return line.includes("__supervise") || /^Z/.test(line);
}
