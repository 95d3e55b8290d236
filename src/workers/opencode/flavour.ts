/**
 * The CLIs that speak OpenCode's `run --format json`: OpenCode itself and Kilo CLI 7.x, which is
 * derived from it. Their streams, permission blocks and agents are the same; what differs is the
 * binary, the prefix of the environment variables that carry the per-run config, the name of
 * their state folders and database, their quiet settings and the name people know them by. The
 * OpenCode backend's argv, classifier and models take a flavour; the parser needs none.
 */

/** What tells one OpenCode-derived CLI from another. */
export interface Flavour {
  /** The name people know the CLI by ("OpenCode", "Kilo"). */
  label: string;
  /** The executable on PATH. */
  binary: string;
  /** Prefix of `<P>_CONFIG_CONTENT` and `<P>_PERMISSION`. */
  envPrefix: string;
  /** The folder name under the XDG data, cache, config and state homes. */
  stateName: string;
  /** The database file in its data folder, made on the first start. */
  database: string;
  /** Environment settings that keep it quiet and off the network. */
  quietEnv: Readonly<Record<string, string>>;
  /** Settings laid over the per-run config besides the agent and permissions. */
  runConfig: Readonly<Record<string, unknown>>;
  /** Folders it keeps beside its own in the XDG state home (made writable in the sandbox). */
  stateSiblings: readonly string[];
}

/** OpenCode (opencode-ai). */
export const OPENCODE: Flavour = {
  label: "OpenCode",
  binary: "opencode",
  envPrefix: "OPENCODE",
  stateName: "opencode",
  database: "opencode.db",
  quietEnv: {
    OPENCODE_DISABLE_MODELS_FETCH: "1",
    OPENCODE_DISABLE_AUTOUPDATE: "1",
    OPENCODE_DISABLE_SHARE: "1",
    OPENCODE_DISABLE_LSP_DOWNLOAD: "1",
    OPENCODE_DISABLE_TERMINAL_TITLE: "1",
    NO_COLOR: "1",
  },
  runConfig: {},
  stateSiblings: [],
};

/**
 * Kilo CLI (@kilocode/cli 7.x). Besides OpenCode's settings under its own prefix: telemetry off
 * (`KILO_TELEMETRY_LEVEL` other than "all"), no default plugins (the codebase indexer walks the
 * whole project at every start), no session upload, no file watcher, no Claude Code imports. And
 * a bound on retries: without `KILO_SESSION_RETRY_LIMIT` Kilo retries a 429 (and a quota or
 * overloaded answer) for ever, so a rate-limited model would never fall back; 5 is OpenCode's
 * own number.
 */
export const KILO: Flavour = {
  label: "Kilo",
  binary: "kilo",
  envPrefix: "KILO",
  stateName: "kilo",
  database: "kilo.db",
  quietEnv: {
    KILO_DISABLE_MODELS_FETCH: "1",
    KILO_DISABLE_AUTOUPDATE: "1",
    KILO_DISABLE_SHARE: "1",
    KILO_DISABLE_LSP_DOWNLOAD: "1",
    KILO_DISABLE_TERMINAL_TITLE: "1",
    KILO_TELEMETRY_LEVEL: "off",
    KILO_DISABLE_DEFAULT_PLUGINS: "1",
    KILO_DISABLE_SESSION_INGEST: "1",
    KILO_EXPERIMENTAL_DISABLE_FILEWATCHER: "1",
    KILO_DISABLE_CLAUDE_CODE: "1",
    KILO_SESSION_RETRY_LIMIT: "5",
    NO_COLOR: "1",
  },
  runConfig: {},
  // Its own sandbox's remembered choices, which it keeps next to `kilo/` and reads at every start.
  stateSiblings: ["kilo-sandbox-policy", "kilo-sandbox-preference"],
};
