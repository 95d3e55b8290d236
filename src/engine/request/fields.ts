/**
 * The run request's fields, declared once as data: request.ts builds the zod schema MCP publishes
 * from this table, and check.ts checks a request against it without loading zod (a foreground
 * `pitroom run` then loads no npm package on its path). tests/engine/request_check_test.ts holds
 * the two to the same answers.
 */
import { MAX_DURATION } from "../../sys/duration.ts";
import { MODE_NAMES } from "../../workers/modes.ts";

/** What a field holds. */
export type FieldKind =
  | "string"
  | "strings"
  | "boolean"
  | "mode"
  | "caps"
  | "duration"
  | "count";

/** The caps' names (each a positive number). */
export const CAP_NAMES = ["maxTokens", "maxCost", "maxSteps"] as const;

/** The longest `timeoutMs`. */
export const MAX_TIMEOUT_MS: number = MAX_DURATION.ms;

/** The modes a request may name. */
export const REQUEST_MODES = MODE_NAMES;

/** Every field of a run request, in the order the schema lists them, with its description. */
export const REQUEST_FIELDS = {
  task: ["string", "the task; give this or `tasks`"],
  tasks: ["strings", "a crew: one background run per task"],
  mode: ["mode", "read (default), write in place, or isolate (a private copy)"],
  worker: ["string", "worker or chain: opencode, codex:gpt-5.5,claude"],
  model: ["string", "model of the first worker"],
  tier: ["string", "use the worker of a tier: cheap, standard, ..."],
  effort: ["string", "reasoning effort (low, medium, high, ...)"],
  dir: ["string", "directory to work in (default: the caller's)"],
  files: ["strings", "files attached to the task"],
  verify: ["string", "command run in the worker's tree after it succeeds"],
  link: ["strings", "isolate runs: ignored folders to link in"],
  host: [
    "string",
    "isolate runs: run the worker on this host of the config's `hosts` (SSH or a container)",
  ],
  allowLinks: [
    "boolean",
    "isolate runs without a sandbox: run although links in the tree lead out of the copy",
  ],
  allowSecrets: [
    "boolean",
    "write and isolate runs: let the worker read the tree's secret-looking files (.env, keys)",
  ],
  web: ["boolean", "allow the worker to fetch web pages"],
  group: ["string", "the group the run joins"],
  caps: ["caps", "stop the worker once it reaches one of these"],
  timeoutMs: ["duration", "kill the worker after this long"],
  noFallback: ["boolean", "do not move along the fallback chain"],
  park: [
    "boolean",
    "when every worker of the chain is out of quota, wait (within the timeout) for the first to come back instead of failing; default: the config's `park`",
  ],
  continue: ["string", "follow up on a finished run (or `last`)"],
  fresh: [
    "boolean",
    "ask a worker again instead of reusing the cached answer of the same question",
  ],
  background: ["boolean", "hand the run to the host and return at once"],
  plan: [
    "string",
    "a plan file: the worker gets task `step`'s implementer brief (`task` is the notes)",
  ],
  step: ["count", "with `plan`: the task's number"],
  audit: [
    "boolean",
    "read runs: have another worker audit the answer (true) or never (false); default: the config's sample rate",
  ],
} as const satisfies Record<string, readonly [FieldKind, string]>;
