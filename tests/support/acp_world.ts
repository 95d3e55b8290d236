/**
 * An engine world around the fake ACP agent (fake_acp_agent.ts): a repository, a state dir, and
 * a config whose worker `fake` (and `more`, when given) is that agent playing a script, with the
 * sandbox off; the engine runs the real process shell and talk.
 */
import { join } from "node:path";
import { createEngine } from "../../src/engine/mod.ts";
import type { AgentScript } from "./fake_acp_agent.ts";
import { testSys } from "./sys.ts";
import { tempDir, tempRepo } from "./temp.ts";

const AGENT = new URL("./fake_acp_agent.ts", import.meta.url).pathname;

/** The fake agent's command for a script. */
export function fakeAgent(script: AgentScript): string[] {
  return [Deno.execPath(), "run", "-A", "--no-config", "--quiet", AGENT, JSON.stringify(script)];
}

/** A repo, a state dir and an engine whose config names the fake agent `fake` (and `more`). */
export async function acpWorld(
  script: AgentScript,
  options: { config?: Record<string, unknown>; more?: AgentScript } = {},
) {
  const repo = await tempRepo({ "src/app.ts": "export const answer = 41;\n" });
  const state = await tempDir("pitroom-acp-state-");
  const log = join(state.path, "agent.log");
  const configPath = join(state.path, "config.json");
  await Deno.writeTextFile(
    configPath,
    JSON.stringify({
      worker: "fake",
      sandbox: "off",
      workers: {
        // In a sandbox the state dir is hidden: a script without a log says so (`log: ""`).
        fake: { acp: fakeAgent({ log, ...script }) },
        ...(options.more ? { more: { acp: fakeAgent({ log, ...options.more }) } } : {}),
      },
      ...options.config,
    }),
  );
  const sys = testSys({
    stateDir: join(state.path, "state"),
    cwd: repo.path,
    env: { PITROOM_CONFIG: configPath },
  });
  const engine = createEngine(sys, { dir: repo.path });
  return {
    repo: repo.path,
    engine,
    /** What the client sent the agent, and what it answered the agent's requests. */
    async log(): Promise<Record<string, unknown>[]> {
      const text = await Deno.readTextFile(log).catch(() => "");
      return text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l));
    },
    async [Symbol.asyncDispose]() {
      await repo[Symbol.asyncDispose]();
      await state[Symbol.asyncDispose]();
    },
  };
}
