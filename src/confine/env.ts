/**
 * The environment a worker starts from: the caller's, without Pitroom's own settings, git
 * variables that would point git elsewhere, and credentials the worker's own provider does not
 * need; then the guard's git settings (confine/guard/hooks.ts) and the recursion marker.
 */
import type { HeldSys } from "../store/state.ts";
import { join } from "../sys/path.ts";
import { guardGitEnv, writeGuard } from "./guard/mod.ts";
import { RECURSION_MARKER } from "./floor.ts";
import type { WorkerName } from "../workers/types.ts";

const DROP_PREFIXES = ["PITROOM_"];
const DROP_NAMES = new Set([
  "GITHUB_TOKEN",
  "GH_TOKEN",
  "NPM_TOKEN",
  "NODE_AUTH_TOKEN",
  "AWS_SECRET_ACCESS_KEY",
  "AWS_SESSION_TOKEN",
  "DOCKER_PASSWORD",
  "DOCKER_AUTH_CONFIG",
  "TWINE_PASSWORD",
  "CARGO_REGISTRY_TOKEN",
  "SSH_AUTH_SOCK",
  "SSH_ASKPASS",
  "GPG_AGENT_INFO",
  "KRB5CCNAME",
  "GIT_ASKPASS",
  "GIT_INDEX_FILE",
  "GIT_DIR",
  "GIT_WORK_TREE",
  "GIT_COMMON_DIR",
  "GIT_NAMESPACE",
  "GIT_OBJECT_DIRECTORY",
  "GIT_ALTERNATE_OBJECT_DIRECTORIES",
  // git's carrier of `-c` options: it would override the guard's hooks path.
  "GIT_CONFIG_PARAMETERS",
]);

/** Names that look like credentials (matched on the upper-cased name). */
const SECRET_NAME =
  /TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|PRIVATE_KEY|API_KEY|APIKEY|ACCESS_KEY|_KEY$|_KEYS$|_AUTH$|_PAT$|COOKIE/;

/**
 * Credential variables each worker's own provider reads, kept despite `SECRET_NAME`: name
 * prefixes, and for opencode (which talks to whichever provider its model names) every
 * `*_API_KEY`. Claude on Bedrock or Vertex also keeps the cloud's variables.
 */
const PROVIDER_PREFIXES: Record<WorkerName, readonly string[]> = {
  codex: ["OPENAI_", "CODEX_", "AZURE_OPENAI_"],
  claude: ["ANTHROPIC_", "CLAUDE_"],
  gemini: ["GEMINI_", "GOOGLE_"],
  opencode: ["OPENCODE_"],
  // Qwen Code's providers: OpenAI-compatible (any `modelProviders[].envKey`), Model Studio,
  // Anthropic and Gemini.
  qwen: ["QWEN_", "DASHSCOPE_", "OPENAI_", "ANTHROPIC_", "GEMINI_", "GOOGLE_"],
  kilo: ["KILO_"],
  copilot: ["COPILOT_", "GH_TOKEN", "GITHUB_TOKEN"],
  // Crush reads each provider's own variable (`$OPENAI_API_KEY` in its config): like opencode.
  crush: ["CRUSH_"],
};

/** Options of `scrubEnv`. */
export interface ScrubOptions {
  /** The worker the env is for: its provider's credentials are kept (none for null: verify). */
  worker: WorkerName | null;
  /**
   * More credential names the worker's provider reads (codex's `env_key` settings).
   * @default none
   */
  keep?: readonly string[];
}

/** Workers that talk to whichever provider their model names, so keep every `*_API_KEY`. */
const ANY_PROVIDER: ReadonlySet<WorkerName | null> = new Set(["opencode", "qwen", "kilo", "crush"]);

function providerKeeps(
  env: Record<string, string>,
  options: ScrubOptions,
): (name: string) => boolean {
  const prefixes = options.worker === null ? [] : [...PROVIDER_PREFIXES[options.worker]];
  if (options.worker === "claude") {
    if (env.CLAUDE_CODE_USE_BEDROCK) prefixes.push("AWS_");
    if (env.CLAUDE_CODE_USE_VERTEX) prefixes.push("GOOGLE_", "CLOUD_ML_", "VERTEX_");
  }
  const keep = new Set(options.keep ?? []);
  return (name) =>
    keep.has(name) || prefixes.some((p) => name.startsWith(p)) ||
    (ANY_PROVIDER.has(options.worker) && name.endsWith("_API_KEY"));
}

/**
 * A copy of `env` without Pitroom's variables, git variables that point git elsewhere, and
 * credentials (by name) other than the worker's own provider's (pure).
 */
export function scrubEnv(
  env: Record<string, string>,
  options: ScrubOptions,
): Record<string, string> {
  const keeps = providerKeeps(env, options);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (DROP_NAMES.has(name)) continue;
    if (DROP_PREFIXES.some((p) => name.startsWith(p))) continue;
    if (SECRET_NAME.test(name.toUpperCase()) && !keeps(name)) continue;
    out[name] = value;
  }
  return out;
}

/** The `env_key` names of codex's model providers in `config.toml` (pure). */
export function codexEnvKeys(configToml: string): string[] {
  return [...configToml.matchAll(/^\s*env_key\s*=\s*["']([A-Za-z_][A-Za-z0-9_]*)["']/gm)]
    .map((m) => m[1]!);
}

async function providerKeys(
  worker: WorkerName | null,
  env: Record<string, string>,
): Promise<string[]> {
  if (worker !== "codex") return [];
  const home = env.CODEX_HOME ?? (env.HOME ? join(env.HOME, ".codex") : null);
  if (home === null) return [];
  try {
    return codexEnvKeys(await Deno.readTextFile(join(home, "config.toml")));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.PermissionDenied) {
      return [];
    }
    throw error;
  }
}

/** What a worker's launch starts from. */
export interface WorkerEnv {
  /** The scrubbed environment with the guard's git settings and the recursion marker. */
  baseEnv: Record<string, string>;
  /** Folders put first on the worker's PATH (the guard's shims). */
  pathPrefix: string[];
}

/**
 * The environment of one worker attempt: scrubbed, guarded (the guard written or repaired first)
 * and marked with the run id so Pitroom refuses to run inside it. Pitroom's own git calls never
 * get it: they run with Pitroom's environment. A run's verify command gets the same with no
 * worker (`worker: null`): no provider's credentials at all.
 */
export async function workerEnv(
  sys: HeldSys,
  options: {
    worker: WorkerName | null;
    runId: string;
    /** More credential-looking variables the worker keeps (an ACP worker's `env`). */
    keep?: readonly string[];
  },
): Promise<WorkerEnv> {
  const caller = sys.env.toObject();
  const [guard, keep] = await Promise.all([
    writeGuard(sys.state.paths.guard),
    providerKeys(options.worker, caller),
  ]);
  const baseEnv = {
    ...scrubEnv(caller, { worker: options.worker, keep: [...keep, ...(options.keep ?? [])] }),
    ...guardGitEnv(caller, guard.hooks),
    [RECURSION_MARKER]: options.runId,
  };
  return { baseEnv, pathPrefix: [guard.bin] };
}
