/**
 * `pitroom completions bash|zsh|fish` prints a completion script generated from the command
 * table; the script asks `pitroom __complete runs|groups` for the run ids and groups of the
 * state dir at completion time.
 */
import { UsageError } from "../sys/errors.ts";
import type { CommandRun, NoFlags } from "./command.ts";
import { COMMANDS } from "./commands.ts";
import { completionModel, DYNAMIC_KINDS } from "./completion_model.ts";
import { bashScript } from "./completions_bash.ts";
import { fishScript } from "./completions_fish.ts";
import { zshScript } from "./completions_zsh.ts";
import { createEngine } from "../engine/mod.ts";
import { WORKER_NAMES } from "../engine/present.ts";

/** The shells there is a script for. */
export const SHELLS = ["bash", "zsh", "fish"] as const;

/** The script for one shell (pure). */
export function completionScript(shell: typeof SHELLS[number]): string {
  const model = completionModel(COMMANDS);
  switch (shell) {
    case "bash":
      return bashScript(model);
    case "zsh":
      return zshScript(model);
    case "fish":
      return fishScript(model);
  }
}

/** Prints the completion script of a shell. */
export const completionsCommand: CommandRun<NoFlags> = ({ sys, args }) => {
  const shell = SHELLS.find((s) => s === args[0]);
  if (shell === undefined) {
    throw new UsageError(
      args[0] === undefined ? "Which shell? Give bash, zsh or fish" : `Unknown shell "${args[0]}"`,
      { hint: "pitroom completions bash|zsh|fish" },
    );
  }
  sys.out.stdout(completionScript(shell));
  return Promise.resolve(0);
};

/** How many recent runs the completions offer. */
const RECENT_RUNS = 50;

/**
 * `pitroom __complete runs|groups|workers`: one word a line for the scripts (runs and groups
 * newest first; workers: the built-in ones, then the config's own).
 */
export const completeCommand: CommandRun<NoFlags> = async ({ sys, args }) => {
  const kind = DYNAMIC_KINDS.find((k) => k === args[0]);
  if (kind === undefined) {
    throw new UsageError(`Unknown completion kind "${args[0] ?? ""}"`, {
      hint: `pitroom __complete ${DYNAMIC_KINDS.join("|")}`,
    });
  }
  if (kind === "workers") {
    const { settings } = await createEngine(sys).settings();
    sys.out.stdout([...WORKER_NAMES, ...Object.keys(settings.workers.value)].join("\n") + "\n");
    return 0;
  }
  const runs = (await createEngine(sys).list({ recent: RECENT_RUNS })).reverse();
  const words = kind === "runs"
    ? [...runs.map((r) => r.id), ...(runs.length > 0 ? ["last"] : [])]
    : [...new Set(runs.flatMap((r) => (r.group === undefined ? [] : [r.group])))];
  if (words.length > 0) sys.out.stdout(words.join("\n") + "\n");
  return 0;
};
