/**
 * The Claude Code backend. Data flow: `launch` describes `claude -p --output-format stream-json
 * --verbose` with the mode's permission profile (argv.ts) and the prompt on stdin; the process
 * shell runs it; every stdout line goes through `parse` (parse.ts) into `worker.*` events; the
 * end and the events go through `classify` (classify.ts); `models` is a maintained table
 * (models.ts). claude writes nothing useful to stderr, so `parseStderr` only keeps lines as
 * `worker.unknown` for the record.
 */
import { delimiter, join } from "node:path";
import { existsSync } from "node:fs";
import { event } from "../../events/mod.ts";
import type { Backend, Installed } from "../types.ts";
import { claudeLaunch } from "./argv.ts";
import { classifyClaude } from "./classify.ts";
import { claudeModels } from "./models.ts";
import { newClaudeState, parseClaudeLine } from "./parse.ts";

/** Finds `name` on a PATH string; null when it is not there. */
export function findOnPath(name: string, path: string | undefined): string | null {
  for (const dir of (path ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, name);
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

/** Reads the version out of `claude --version` ("2.1.328 (Claude Code)"). */
export function parseClaudeVersion(text: string): string | null {
  return /(\d+\.\d+\.\d+\S*)/.exec(text)?.[1] ?? null;
}

/** The claude backend. */
export const claudeBackend: Backend = {
  name: "claude",
  async detect(runner, env): Promise<Installed | null> {
    const binary = findOnPath("claude", env.PATH);
    if (binary === null) return null;
    const out = await runner.run([binary, "--version"], { env, stdin: { kind: "null" } });
    const version = out.code === 0 ? parseClaudeVersion(out.stdout) : null;
    return version === null ? null : { binary, version };
  },
  launch: claudeLaunch,
  newState: newClaudeState,
  parse: parseClaudeLine,
  parseStderr: (line, _state, time) => [event("worker.unknown", time, { raw: line })],
  classify: classifyClaude,
  models: () => Promise.resolve(claudeModels()),
};
