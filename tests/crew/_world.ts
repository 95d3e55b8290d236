/**
 * A crew test world: a private state dir and config, a plain work dir (no git, so read runs
 * skip snapshots) unless another is given, and `pitroom(...)` running the real CLI with the fake worker
 * (`_fake_pitroom.ts`) under the compile permission set.
 */
import { join } from "node:path";
import { moduleCacheEnv, REPO_ROOT } from "../support/pitroom.ts";
import { tempDir } from "../support/temp.ts";
import { V8_FLAGS_ARG } from "../../src/sys/real.ts";
import type { RunRecord } from "../../src/store/record.ts";

/** What a pitroom process did. */
export interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** The argv that starts the fake-worker pitroom. */
export function fakePitroomArgv(): string[] {
  return [
    Deno.execPath(),
    "run",
    "--quiet",
    "--no-prompt",
    `--config=${join(REPO_ROOT, "deno.json")}`,
    "-P=pitroom",
    V8_FLAGS_ARG,
    join(REPO_ROOT, "tests", "crew", "_fake_pitroom.ts"),
  ];
}

/** A crew world. */
export interface CrewWorld extends AsyncDisposable {
  dir: string;
  stateDir: string;
  env: Record<string, string>;
  run(args: string[]): Promise<Result>;
  /** Starts pitroom and hands back the child (stdout piped). */
  spawn(args: string[]): Deno.ChildProcess;
  record(id: string): Promise<RunRecord>;
}

/** A fake worker's script as the last line of a task. */
export function task(text: string, steps: unknown[]): string {
  return `${text}\nfake:${JSON.stringify(steps)}`;
}

/**
 * Starts a world with this config; its runs work in `options.work` (a git repository, say)
 * instead of a plain folder of its own.
 */
export async function crewWorld(
  config: Record<string, unknown> = {},
  options: { work?: string } = {},
): Promise<CrewWorld> {
  const root = await tempDir("pitroom-crew-");
  const dir = options.work ?? join(root.path, "work");
  if (options.work === undefined) await Deno.mkdir(dir);
  const configPath = join(root.path, "config.json");
  await Deno.writeTextFile(configPath, JSON.stringify(config));
  const env = {
    PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
    HOME: root.path,
    NO_COLOR: "1",
    PITROOM_STATE_DIR: join(root.path, "state"),
    PITROOM_CONFIG: configPath,
  };
  const spawn = (args: string[]) => {
    const [cmd, ...rest] = fakePitroomArgv();
    return new Deno.Command(cmd!, {
      args: [...rest, ...args],
      cwd: dir,
      env: { ...moduleCacheEnv(), ...env },
      clearEnv: true,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
  };
  return {
    dir,
    stateDir: env.PITROOM_STATE_DIR,
    env,
    spawn,
    async run(args) {
      const out = await spawn(args).output();
      const dec = new TextDecoder();
      return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
    },
    async record(id) {
      return JSON.parse(
        await Deno.readTextFile(join(env.PITROOM_STATE_DIR, "runs", id, "run.json")),
      );
    },
    async [Symbol.asyncDispose]() {
      await root[Symbol.asyncDispose]();
    },
  };
}

/** Pids of live processes whose command line mentions `text` (zombies excluded). */
export async function processesWith(text: string): Promise<string[]> {
  const ps = await new Deno.Command("ps", { args: ["-eo", "pid=,stat=,args="] }).output();
  return new TextDecoder().decode(ps.stdout).split("\n").filter((l) =>
    l.includes(text) && !/^\s*\d+\s+Z/.test(l)
  );
}
