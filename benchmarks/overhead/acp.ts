/**
 * Run overhead of the generic ACP worker: a bare ACP client against `pitroom run -W NAME` on the
 * same trivial scenario, interleaved in one process with the scripted model server, per agent
 * (`gemini --acp`, `opencode acp`).
 *
 * The bare side is the launch the ACP backend describes (`acpBackend(...).launch(spec)`: the
 * configured command, Pitroom's read-mode prompt, the environment `workerEnv()` makes), spawned
 * directly and spoken to in this process by the same talk Pitroom uses (initialize, session/new,
 * session/prompt; stdin closed once the prompt is answered), timed from spawn to the agent's exit.
 * So the difference is what Pitroom adds around the agent: deno start-up, the record, the
 * snapshots, the sandbox, the events files, the report. Target as for the built-in workers:
 * pitroom - bare <= 150 ms, or pitroom / bare <= 1.05.
 *
 *   deno run -P=pitroom --quiet benchmarks/overhead/acp.ts [--agents gem,oc] [--runs N] [--json]
 *
 * Writes every sample to results/acp.json (or `--out`); exits 1 when a target is missed.
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { workerEnv } from "../../src/confine/env.ts";
import { buildPrompt } from "../../src/engine/run/prompt.ts";
import { holdState } from "../../src/store/state.ts";
import { realSys } from "../../src/sys/real.ts";
import { acpBackend } from "../../src/workers/acp/mod.ts";
import { startModelServer } from "../../tests/support/model_server/fixture.ts";
import { moduleCacheEnv, pitroomArgv } from "../../tests/support/pitroom.ts";
import { tempDir, tempRepo } from "../../tests/support/temp.ts";
import { checked, interleave, round1, type Series, series, timeProcess } from "./_measure.ts";
import { RUN_TARGET } from "./_workers.ts";
import { checkFigures } from "../_figures.ts";

const SCENARIO = { turns: [{ answer: "The answer is 42.", usage: { input: 1200, output: 8 } }] };
const ANSWER = "The answer is 42.";
const TASK = "[[scenario:trivial]] What is the answer?";

/** The agents measured, by worker name. */
const AGENTS: Record<string, string[]> = {
  gem: ["gemini", "--acp", "-m", "trivial"],
  oc: ["opencode", "acp"],
};

interface AgentResult {
  worker: string;
  command: string[];
  bare: Series;
  pitroom: Series;
  ratio: number;
  diffMs: number;
  meetsTarget: boolean;
}

/** One bare ACP conversation: spawn, talk until answered, close stdin, wait for the exit. */
async function bareRun(
  launch: ReturnType<ReturnType<typeof acpBackend>["launch"]>,
): Promise<{ ms: number; answer: string }> {
  const talk = launch.talk!;
  const [cmd, ...args] = launch.argv;
  const start = performance.now();
  const child = new Deno.Command(cmd!, {
    args,
    cwd: launch.cwd,
    env: launch.env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "null",
  }).spawn();
  const writer = child.stdin.getWriter();
  const encoder = new TextEncoder();
  const say = (lines: string[]) =>
    lines.length === 0
      ? undefined
      : writer.write(encoder.encode(lines.map((l) => l + "\n").join("")));
  await say(talk.open());
  let answer = "";
  let buffer = "";
  const decoder = new TextDecoder();
  for await (const chunk of child.stdout) {
    buffer += decoder.decode(chunk, { stream: true });
    let newline = buffer.indexOf("\n");
    while (newline >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      newline = buffer.indexOf("\n");
      const now = Date.now();
      const heard = talk.hear(line, { time: now, since: now, start: now });
      for (const ev of heard.events) if (ev.type === "worker.answer") answer = ev.text;
      await say(heard.say);
      if (heard.over) await writer.close();
    }
  }
  await child.status;
  return { ms: performance.now() - start, answer };
}

async function benchAgent(
  worker: string,
  command: string[],
  rounds: number,
  log: (l: string) => void,
) {
  await using server = await startModelServer({ scenarios: { trivial: SCENARIO } });
  await using repo = await tempRepo({ "src/app.ts": "export const answer = 42;\n" });
  await using scratch = await tempDir("pitroom-bench-acp-");
  const callerEnv = { NO_COLOR: "1", ...server.env };
  const env = {
    ...callerEnv,
    PITROOM_STATE_DIR: join(scratch.path, "state"),
    PITROOM_CONFIG: join(scratch.path, "config.json"),
  };
  await Deno.writeTextFile(
    env.PITROOM_CONFIG,
    JSON.stringify({ workers: { [worker]: { acp: command } } }),
  );
  const sys = holdState({
    ...realSys(),
    env: { get: (name) => env[name as keyof typeof env], toObject: () => ({ ...env }) },
    stateDir: env.PITROOM_STATE_DIR,
    configPath: env.PITROOM_CONFIG,
  });
  const backend = acpBackend(worker, { acp: command });
  let n = 0;
  const bare = async () => {
    const { baseEnv, pathPrefix } = await workerEnv(sys, {
      worker: backend.cli ?? null,
      runId: `bench-${n}`,
    });
    const launch = backend.launch({
      mode: "read",
      prompt: buildPrompt(TASK, "read"),
      cwd: repo.path,
      privateDir: join(scratch.path, "bare", String(n++)),
      web: false,
      baseEnv,
      pathPrefix,
    });
    const { ms, answer } = await bareRun(launch);
    if (!answer.includes(ANSWER)) {
      throw new Error(`bare ${worker} answered ${JSON.stringify(answer)}`);
    }
    return ms;
  };
  const pitroom = async () =>
    checked(
      `pitroom run -W ${worker}`,
      await timeProcess({
        argv: [...pitroomArgv(), "run", "-W", worker, TASK],
        env: { ...env, ...moduleCacheEnv() },
        cwd: repo.path,
      }),
      ANSWER,
    );
  const samples = await interleave({ bare, pitroom }, {
    rounds,
    warmup: 1,
    onRound: (r) => log(`  ${worker}: round ${r}/${rounds}`),
  });
  const b = series(samples.bare), p = series(samples.pitroom);
  const ratio = Math.round((p.medianMs / b.medianMs) * 1000) / 1000;
  const diffMs = round1(p.medianMs - b.medianMs);
  return {
    worker,
    command,
    bare: b,
    pitroom: p,
    ratio,
    diffMs,
    meetsTarget: ratio <= RUN_TARGET.ratio || diffMs <= RUN_TARGET.diffMs,
  } satisfies AgentResult;
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      agents: { type: "string", default: Object.keys(AGENTS).join(",") },
      runs: { type: "string", default: "5" },
      json: { type: "boolean", default: false },
      out: { type: "string", default: join(import.meta.dirname!, "results", "acp.json") },
    },
  });
  const log = (line: string) => console.error(line);
  const results: AgentResult[] = [];
  for (const worker of values.agents.split(",").filter(Boolean)) {
    const command = AGENTS[worker];
    if (command === undefined) {
      console.error(`Unknown agent "${worker}": expected ${Object.keys(AGENTS).join(", ")}`);
      Deno.exit(2);
    }
    results.push(await benchAgent(worker, command, Number(values.runs), log));
  }
  // A NaN or infinite figure fails the benchmark (exit 2) before anything is printed or kept.
  let doc;
  try {
    doc = checkFigures({
      schemaVersion: 1,
      date: new Date().toISOString(),
      load: Deno.loadavg(),
      results,
    });
  } catch (error) {
    console.error(`bench acp: ${error instanceof Error ? error.message : String(error)}`);
    Deno.exit(2);
  }
  await Deno.writeTextFile(values.out, JSON.stringify(doc, null, 2) + "\n");
  if (values.json) console.log(JSON.stringify(doc, null, 2));
  else {
    for (const r of results) {
      console.log(
        `${r.worker} (${
          r.command.join(" ")
        }): bare ${r.bare.medianMs} ms, pitroom ${r.pitroom.medianMs} ms, ` +
          `${r.ratio}x, ${r.diffMs >= 0 ? "+" : ""}${r.diffMs} ms: ${
            r.meetsTarget ? "met" : "missed"
          }`,
      );
    }
  }
  Deno.exit(results.every((r) => r.meetsTarget) ? 0 : 1);
}
