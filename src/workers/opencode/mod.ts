/**
 * The OpenCode backend (opencode 1.18.33): describes an `opencode run --format json` launch with
 * the prompt on stdin and a per-run agent whose permission profile travels in
 * `OPENCODE_CONFIG_CONTENT` (argv.ts), turns its JSON lines and its logged stderr errors into
 * worker events (parse.ts), classifies how it ended (classify.ts), and lists the models it can
 * use with their variants as efforts (models.ts).
 */
import { existsSync } from "node:fs";
import { delimiter, join } from "node:path";
import type { Runner } from "../../sys/mod.ts";
import type { Backend, Installed, ParseState } from "../types.ts";
import { launchOpencode, QUIET_ENV } from "./argv.ts";
import { classifyOpencode } from "./classify.ts";
import { opencodeModels } from "./models.ts";
import { parseOpencodeLine, parseOpencodeStderr } from "./parse.ts";

function onPath(binary: string, env: Record<string, string>): string | null {
  for (const dir of (env.PATH ?? "").split(delimiter)) {
    if (dir === "") continue;
    const candidate = join(dir, binary);
    if (existsSync(candidate)) return candidate;
  }
  return null;
}

/** Finds `opencode` on the env's PATH and reads its version. */
export async function detectOpencode(
  runner: Runner,
  env: Record<string, string>,
): Promise<Installed | null> {
  const binary = onPath("opencode", env);
  if (binary === null) return null;
  const out = await runner.run([binary, "--version"], {
    env: { ...env, ...QUIET_ENV },
    stdin: { kind: "null" },
  });
  const version = /\d+\.\d+\.\d+\S*/.exec(out.stdout)?.[0];
  return out.code === 0 && version !== undefined ? { binary, version } : null;
}

/** The opencode backend. */
export const opencodeBackend: Backend = {
  name: "opencode",
  detect: detectOpencode,
  launch: launchOpencode,
  newState: (): ParseState => ({ steps: 0, scratch: {} }),
  parse: parseOpencodeLine,
  parseStderr: parseOpencodeStderr,
  classify: classifyOpencode,
  models: opencodeModels,
};
