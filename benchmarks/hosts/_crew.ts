/**
 * Part (b) of the hosts benchmarks (SSH: run.ts, containers: container.ts): a crew of isolate
 * runs of the real codex CLI on a host, followed by one Pitroom host process, in a small
 * repository: how many ended done, the events per second over the crew's wall time, and the
 * host process's peak RSS (`ps` every 200 ms; its pid file read each time).
 */
import { join } from "node:path";
import { pitroom } from "../../tests/support/pitroom.ts";
import { tempRepo } from "../../tests/support/temp.ts";

/** What the crew did. */
export interface CrewFigures {
  runs: number;
  done: number;
  listed: number;
  waitCode: number;
  wallMs: number;
  events: number;
  eventsPerSecond: number;
  hostPeakRssMb: number;
}

/**
 * Runs a crew of `count` on `host` (model `fake/busy`) with `env`, and `alongside` (a sampler of
 * the caller's, given a function telling whether the crew is still followed) while it runs.
 */
export async function hostCrew(options: {
  host: string;
  count: number;
  env: Record<string, string>;
  alongside?: (following: () => boolean) => Promise<void>;
}): Promise<CrewFigures> {
  const { env, count } = options;
  await using small = await tempRepo({ "README.md": "# app\n", "src/a.ts": "export {};\n" });
  const cwd = small.path;
  const started = performance.now();
  const tasks = Array.from({ length: count }, (_, i) => `task ${i}`);
  const crew = await pitroom(
    ["crew", "-i", "-H", options.host, "-W", "codex", "-m", "fake/busy", "-g", "bench", ...tasks],
    { env, cwd },
  );
  if (crew.code !== 0) throw new Error(`crew failed: ${crew.stderr}`);
  let peakKb = 0;
  const pidFile = join(env.PITROOM_STATE_DIR!, "host", "pid");
  let following = true;
  const memory = (async () => {
    while (following) {
      const pid = (await Deno.readTextFile(pidFile).catch(() => "")).trim();
      if (pid !== "") {
        const ps = await new Deno.Command("ps", { args: ["-o", "rss=", "-p", pid] }).output();
        peakKb = Math.max(peakKb, Number(new TextDecoder().decode(ps.stdout).trim()) || 0);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  })();
  const beside = options.alongside?.(() => following);
  const waited = await pitroom(["wait", "-g", "bench", "--json"], { env, cwd });
  following = false;
  await memory;
  await beside;
  const wallMs = performance.now() - started;
  const ls = await pitroom(["ls", "-g", "bench", "--json"], { env, cwd });
  const runs = JSON.parse(ls.stdout) as { id: string; state: string }[];
  let events = 0;
  for (const r of runs) {
    const out = await pitroom(["show", r.id, "--events"], { env, cwd });
    events += out.stdout.split("\n").filter((l) => l.trim() !== "").length;
  }
  if (peakKb === 0) throw new Error("the host process's memory was never read");
  return {
    runs: count,
    done: runs.filter((r) => r.state === "done").length,
    listed: runs.length,
    waitCode: waited.code,
    wallMs,
    events,
    eventsPerSecond: events / (wallMs / 1000),
    hostPeakRssMb: peakKb / 1024,
  };
}
