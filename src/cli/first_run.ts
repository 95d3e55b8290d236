/**
 * `pitroom` with no command and no config yet: which worker CLIs are installed, and the exact
 * commands to start with. With a config, plain `pitroom` prints the overview help instead.
 */
import { createEngine, type WorkerStatus } from "../engine/mod.ts";
import type { Sys } from "../sys/mod.ts";
import { exists } from "../sys/fs.ts";

/** The welcome text for these workers (pure). */
export function welcome(version: string, statuses: readonly WorkerStatus[]): string {
  const found = statuses.filter((s) => s.installed);
  const lines = [`Pitroom ${version}: hands coding tasks to cheaper worker agents.`, ""];
  if (found.length === 0) {
    lines.push(
      "No worker CLI is installed yet. Install one (OpenCode has free models), then run `pitroom init`:",
      "  npm i -g opencode-ai",
    );
  } else {
    lines.push(
      `Workers found: ${found.map((s) => `${s.worker} ${s.installed!.version}`).join(", ")}.`,
      "There is no config yet. Next:",
      "  pitroom init --yes         # a worker chain, free workers first, and tiers",
      "  pitroom doctor             # checks the workers, the sandbox and the setup",
      "  pitroom install --mcp      # registers the MCP server in your agents",
      '  pitroom run "Where is the entry point of this project?"',
    );
  }
  lines.push("", "All commands: pitroom help", "");
  return lines.join("\n");
}

/** True when this is a first run: no config file. */
export async function isFirstRun(sys: Sys): Promise<boolean> {
  return !(await exists(sys.configPath));
}

/** Prints the welcome. */
export async function printWelcome(sys: Sys, version: string): Promise<void> {
  sys.out.stdout(welcome(version, await createEngine(sys).installed()));
}
