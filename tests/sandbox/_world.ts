/**
 * The sandbox's test world: a repository with the user's work, a state dir whose config lets the
 * fake worker write its marks folder, a private HOME, and a run of the fake worker through the
 * real engine; plus the process table, read with `ps`, for processes named by a marker.
 */
import { join } from "node:path";
import { createEngine } from "../../src/engine/mod.ts";
import type { RunRecord } from "../../src/store/record.ts";
import type { Mode } from "../../src/workers/types.ts";
import { fakeBackend, type FakeStep } from "../support/fake_backend.ts";
import { testSys } from "../support/sys.ts";
import { tempDir, tempRepo } from "../support/temp.ts";

/** Processes whose command line contains `marker`, alive (zombies count as dead). */
export async function processesWith(marker: string): Promise<string[]> {
  const ps = await new Deno.Command("ps", { args: ["-eo", "pid=,stat=,args="] }).output();
  return new TextDecoder().decode(ps.stdout).split("\n").map((l) => l.trim())
    .filter((l) => l.includes(marker) && !/^\d+\s+Z/.test(l) && !l.includes("ps -eo"));
}

/** The `sleep <tag>` processes themselves (not the shells whose scripts name them). */
export async function sleepers(tag: string): Promise<string[]> {
  return (await processesWith(tag)).filter((l) => /^\d+\s+\S+\s+sleep /.test(l));
}

/** A marker no other process carries: a sleep length like `4000.1234`. */
export function marker(): string {
  return `4000.${Math.floor(Math.random() * 1e8)}`;
}

/** Options of a sandbox world. */
export interface WorldOptions {
  /** The config's `sandbox` value. */
  sandbox?: unknown;
  files?: Record<string, string>;
}

/** Builds the world. */
export async function sandboxWorld(options: WorldOptions = {}) {
  const state = await tempDir("pitroom-sbx-state-");
  const marks = await tempDir("pitroom-sbx-marks-");
  const home = await tempDir("pitroom-sbx-home-");
  const other = await tempRepo({ "theirs.txt": "another repository\n" });
  const repo = await tempRepo(options.files ?? { "a.txt": "one\n" });
  await Deno.writeTextFile(join(home.path, ".bashrc"), "# mine\n");
  const sys = testSys({ stateDir: state.path, cwd: repo.path, env: { HOME: home.path } });
  await Deno.writeTextFile(
    sys.configPath,
    JSON.stringify({ sandbox: options.sandbox ?? { mode: "auto", writable: [marks.path] } }),
  );
  let script: FakeStep[] = [];
  const backend = fakeBackend(() => script);
  const engine = createEngine(sys, { backends: () => backend });
  return {
    sys,
    engine,
    repo: repo.path,
    state: state.path,
    marks: marks.path,
    home: home.path,
    other: other.path,
    async run(
      mode: Mode,
      steps: FakeStep[],
      more: {
        timeoutMs?: number;
        stop?: AbortSignal;
        allowLinks?: boolean;
        verify?: string;
        allowSecrets?: boolean;
      } = {},
    ): Promise<RunRecord> {
      script = steps;
      return await engine.run({
        task: "try",
        mode,
        worker: "opencode",
        timeoutMs: more.timeoutMs ?? 30_000,
        ...(more.allowLinks ? { allowLinks: true } : {}),
        ...(more.allowSecrets ? { allowSecrets: true } : {}),
        ...(more.verify === undefined ? {} : { verify: more.verify }),
      }, more.stop ? { signal: more.stop } : {});
    },
    async [Symbol.asyncDispose]() {
      await new Deno.Command("chmod", { args: ["-R", "u+w", state.path] }).output();
      for (const dir of [repo, other, home, marks, state]) await dir[Symbol.asyncDispose]();
    },
  };
}
