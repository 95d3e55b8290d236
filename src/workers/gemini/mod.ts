/**
 * The Gemini CLI backend (gemini 0.61.0): describes a headless `gemini --output-format
 * stream-json` launch with the prompt on stdin and a generated policy file for the mode
 * (argv.ts; an effort adds a private gemini home with a thinking-level model alias, effort.ts),
 * turns its JSON lines into worker events (parse.ts), classifies how it ended from its
 * exit code and error text (classify.ts), and lists the Gemini models it offers (models.ts).
 */
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import type { WorkerEvent } from "../../events/mod.ts";
import type { Backend, Installed, ParseState } from "../types.ts";
import type { Runner } from "../../sys/mod.ts";
import { geminiLaunch } from "./argv.ts";
import { classifyGemini } from "./classify.ts";
import { geminiModels } from "./models.ts";
import { parseGeminiLine } from "./parse.ts";

function onPath(binary: string, env: Record<string, string>): string | null {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, binary);
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

/** Finds `gemini` on the env's PATH and reads its version. */
export async function detectGemini(
  runner: Runner,
  env: Record<string, string>,
): Promise<Installed | null> {
  const binary = onPath("gemini", env);
  if (binary === null) return null;
  const out = await runner.run([binary, "--version"], {
    env: { ...env, GEMINI_CLI_NO_RELAUNCH: "true" },
    stdin: { kind: "null" },
  });
  const version = /\d+\.\d+\.\d+\S*/.exec(out.stdout)?.[0];
  return out.code === 0 && version !== undefined ? { binary, version } : null;
}

/** The gemini backend. */
export const geminiBackend: Backend = {
  name: "gemini",
  detect: detectGemini,
  launch: geminiLaunch,
  newState: (): ParseState => ({ steps: 0, scratch: {} }),
  parse: parseGeminiLine,
  // Gemini's stderr holds stack traces and "Error executing tool" lines that repeat what the
  // stream already says; the classifier reads its tail from ProcessEnd.stderr.
  parseStderr: (): WorkerEvent[] => [],
  classify: classifyGemini,
  models: () => Promise.resolve(geminiModels()),
};
