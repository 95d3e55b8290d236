/**
 * Where each worker CLI keeps its login, and the cloud credentials its provider settings point
 * it to (checked in the pinned versions: opencode 1.18.33, codex 0.169.0, claude 2.1.328, gemini
 * 0.61.0, qwen 0.24.4, kilo 7.7.7, copilot 1.0.102; crush from its source, as its binary cannot be had here). In the sandbox a worker sees its own and none of the others' (confine/sandboxing.ts).
 * Pure: paths worked out from the environment the worker starts from.
 */
import { join } from "../sys/path.ts";
import type { WorkerName } from "./types.ts";

type Env = Readonly<Record<string, string | undefined>>;

function under(dir: string | undefined, names: readonly string[]): string[] {
  return dir === undefined ? [] : names.map((name) => join(dir, name));
}

/** `$XDG_<name>` or its default under HOME. */
function xdg(env: Env, name: string, fallback: string): string | undefined {
  return env[name] ?? (env.HOME === undefined ? undefined : join(env.HOME, fallback));
}

/** gcloud's folder (application default credentials), for Vertex AI. */
function gcloud(env: Env): string[] {
  const dir = env.CLOUDSDK_CONFIG ?? xdg(env, "XDG_CONFIG_HOME", ".config");
  const folder = env.CLOUDSDK_CONFIG ?? (dir === undefined ? undefined : join(dir, "gcloud"));
  return [
    ...(folder === undefined ? [] : [folder]),
    ...(env.GOOGLE_APPLICATION_CREDENTIALS ? [env.GOOGLE_APPLICATION_CREDENTIALS] : []),
  ];
}

/** The AWS CLI's folder, for Bedrock. */
function aws(env: Env): string[] {
  return [
    ...(env.HOME === undefined ? [] : [join(env.HOME, ".aws")]),
    ...(env.AWS_SHARED_CREDENTIALS_FILE ? [env.AWS_SHARED_CREDENTIALS_FILE] : []),
    ...(env.AWS_CONFIG_FILE ? [env.AWS_CONFIG_FILE] : []),
  ];
}

/** The login files (and provider credential folders in use) of each CLI. */
const LOGINS: Record<WorkerName, (env: Env) => string[]> = {
  // `auth.json` (API key or ChatGPT tokens), the MCP OAuth fallback store, a gateway's OAuth.
  codex: (env) =>
    under(env.CODEX_HOME ?? (env.HOME ? join(env.HOME, ".codex") : undefined), [
      "auth.json",
      ".credentials.json",
      "gateway_oauth.json",
    ]),
  // `.credentials.json` (OAuth tokens on Linux), the device keys beside it, and `.claude.json`,
  // which holds an API key given at `/login` (`primaryApiKey`) and the account.
  claude: (env) => {
    const dir = env.CLAUDE_CONFIG_DIR ?? (env.HOME ? join(env.HOME, ".claude") : undefined);
    const json = env.CLAUDE_CONFIG_DIR
      ? join(env.CLAUDE_CONFIG_DIR, ".claude.json")
      : env.HOME
      ? join(env.HOME, ".claude.json")
      : undefined;
    return [
      ...under(dir, [".credentials.json", ".device-keys.json"]),
      ...(json === undefined ? [] : [json]),
      ...(env.CLAUDE_CODE_USE_BEDROCK ? aws(env) : []),
      ...(env.CLAUDE_CODE_USE_VERTEX ? gcloud(env) : []),
    ];
  },
  // The files gemini's own macOS profiles name as its credentials, its `.env` (the key), and the
  // `.env` of the home folder it also reads.
  gemini: (env) => {
    const home = env.GEMINI_CLI_HOME ?? env.HOME;
    return [
      ...under(home === undefined ? undefined : join(home, ".gemini"), [
        "oauth_creds.json",
        "gemini-credentials.json",
        "mcp-oauth-tokens.json",
        "a2a-oauth-tokens.json",
        "google_accounts.json",
        ".env",
      ]),
      ...(env.HOME === undefined ? [] : [join(env.HOME, ".env")]),
      ...(env.GOOGLE_GENAI_USE_VERTEXAI || env.GOOGLE_APPLICATION_CREDENTIALS ? gcloud(env) : []),
    ];
  },
  // Qwen OAuth tokens, MCP servers' OAuth tokens, its `.env` (keys) and the home folder's `.env`
  // it also reads (qwen 0.24.4; `QWEN_HOME` replaces `~/.qwen`).
  qwen: (env) => [
    ...under(env.QWEN_HOME ?? (env.HOME ? join(env.HOME, ".qwen") : undefined), [
      "oauth_creds.json",
      "mcp-oauth-tokens.json",
      ".env",
    ]),
    ...(env.HOME === undefined ? [] : [join(env.HOME, ".env")]),
  ],
  // Provider keys and OAuth tokens, and MCP servers' OAuth tokens.
  opencode: (env) =>
    under(
      (() => {
        const data = xdg(env, "XDG_DATA_HOME", ".local/share");
        return data === undefined ? undefined : join(data, "opencode");
      })(),
      ["auth.json", "mcp-auth.json"],
    ),
  // OpenCode's files under Kilo's name.
  kilo: (env) =>
    under(xdgDir(env, "XDG_DATA_HOME", ".local/share", "kilo"), [
      "auth.json",
      "mcp-auth.json",
    ]),
  // The GitHub login where no system keychain holds it (`config.json`, tokens in plain text).
  copilot: (env) => under(copilotHome(env), ["config.json"]),
  // The providers' keys its first-start set-up stores in its global data config.
  crush: (env) => under(xdgDir(env, "XDG_DATA_HOME", ".local/share", "crush"), ["crush.json"]),
};

/** `$XDG_<name>/<folder>` or its default under HOME. */
function xdgDir(env: Env, name: string, fallback: string, folder: string): string | undefined {
  const dir = xdg(env, name, fallback);
  return dir === undefined ? undefined : join(dir, folder);
}

/** Copilot CLI's folder: `COPILOT_HOME`, else `~/.copilot`. */
function copilotHome(env: Env): string | undefined {
  return env.COPILOT_HOME ?? (env.HOME === undefined ? undefined : join(env.HOME, ".copilot"));
}

/** The files (and folders) that hold `worker`'s login, for the environment it starts from. */
export function loginPaths(worker: WorkerName, env: Env): string[] {
  return LOGINS[worker](env);
}

/**
 * Every other CLI's login files: what `worker` must not see (all of them for none). Both where
 * the environment points each CLI (`CODEX_HOME`, `CLAUDE_CONFIG_DIR`, `GEMINI_CLI_HOME`,
 * `XDG_DATA_HOME`) and the default places in the home folder: a login the user made with the
 * defaults stays there when a variable points the CLI elsewhere.
 */
export function otherLogins(worker: WorkerName | null, env: Env): string[] {
  const defaults: Env = { HOME: env.HOME };
  const out = new Set<string>();
  for (const w of (Object.keys(LOGINS) as WorkerName[]).filter((w) => w !== worker)) {
    for (const path of [...LOGINS[w](env), ...LOGINS[w](defaults)]) out.add(path);
  }
  return [...out];
}

/** The config files each CLI reads its provider's address from (user-wide, then the project's). */
const CONFIGS: Record<WorkerName, (env: Env, cwd: string) => string[]> = {
  opencode: (env, cwd) => {
    const config = xdg(env, "XDG_CONFIG_HOME", ".config");
    return [
      ...under(config === undefined ? undefined : join(config, "opencode"), [
        "opencode.json",
        "opencode.jsonc",
        "config.json",
      ]),
      ...(env.OPENCODE_CONFIG ? [env.OPENCODE_CONFIG] : []),
      ...under(cwd, ["opencode.json", "opencode.jsonc"]),
    ];
  },
  codex: (env) =>
    under(env.CODEX_HOME ?? (env.HOME ? join(env.HOME, ".codex") : undefined), [
      "config.toml",
    ]),
  claude: (env, cwd) => [
    ...under(env.CLAUDE_CONFIG_DIR ?? (env.HOME ? join(env.HOME, ".claude") : undefined), [
      "settings.json",
    ]),
    ...under(join(cwd, ".claude"), ["settings.json", "settings.local.json"]),
  ],
  gemini: (env, cwd) => {
    const home = env.GEMINI_CLI_HOME ?? env.HOME;
    return [
      ...under(home === undefined ? undefined : join(home, ".gemini"), ["settings.json", ".env"]),
      ...(env.HOME === undefined ? [] : [join(env.HOME, ".env")]),
      ...under(join(cwd, ".gemini"), ["settings.json", ".env"]),
      join(cwd, ".env"),
    ];
  },
  qwen: (env, cwd) => [
    ...under(env.QWEN_HOME ?? (env.HOME ? join(env.HOME, ".qwen") : undefined), [
      "settings.json",
      ".env",
    ]),
    ...(env.HOME === undefined ? [] : [join(env.HOME, ".env")]),
    ...under(join(cwd, ".qwen"), ["settings.json", ".env"]),
    join(cwd, ".env"),
  ],
  kilo: (env, cwd) => [
    ...under(xdgDir(env, "XDG_CONFIG_HOME", ".config", "kilo"), [
      "kilo.json",
      "kilo.jsonc",
      "opencode.json",
      "opencode.jsonc",
      "config.json",
    ]),
    ...(env.KILO_CONFIG ? [env.KILO_CONFIG] : []),
    ...under(cwd, ["kilo.json", "kilo.jsonc", "opencode.json", "opencode.jsonc"]),
  ],
  // Its custom provider's address is an environment variable (`COPILOT_PROVIDER_BASE_URL`).
  copilot: () => [],
  crush: (env, cwd) => [
    ...under(xdgDir(env, "XDG_CONFIG_HOME", ".config", "crush"), ["crush.json"]),
    ...under(xdgDir(env, "XDG_DATA_HOME", ".local/share", "crush"), ["crush.json"]),
    ...under(cwd, ["crush.json", ".crush.json"]),
  ],
};

/** The config files that may name where `worker`'s provider listens (a local model server). */
export function configPaths(worker: WorkerName, env: Env, cwd: string): string[] {
  return CONFIGS[worker](env, cwd);
}
