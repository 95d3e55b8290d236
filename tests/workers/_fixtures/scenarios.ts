/**
 * The scenarios `scripts/record_fixtures.ts` records each backend's real CLI on: one entry per
 * recorded stream in `tests/workers/<backend>/testdata/`, named as the parser tests load it. Each
 * says the mode, the scripted model server scenario (the model-server contract) and the files of
 * the repo the worker runs in; the recorder does the rest the same way for every backend.
 */
import type { Mode, WorkerName } from "../../../src/workers/types.ts";

/** One recording. */
export interface Fixture {
  /** File name in testdata/ (`NAME.jsonl` and `NAME.txt`). */
  name: string;
  mode: Mode;
  /** The scenario name on the model server (the model id asks for it). */
  scenario: string;
  /** The scenario; absent for a model the server does not know. */
  turns?: Record<string, unknown>[];
  /** The model to ask for, when not the backend's usual spelling of `scenario`. */
  model?: string;
  /** Stop the worker (SIGTERM to its group) once it printed its first line. */
  stopAfterFirstLine?: boolean;
  /** Also keep stderr in `NAME.stderr` (codex reports denials only there). */
  stderrFile?: boolean;
  /** Resume this recording's session with a second prompt and record that run as `name`. */
  followup?: { name: string; turns: Record<string, unknown>[] };
  /** How this recording's environment differs from the one the model server prepared. */
  environment?: Environment;
  /** Run in a plain folder, not a git repo. */
  noGit?: boolean;
  /**
   * Arguments of the backend's launch left out (each with the values that follow it, listed
   * together), to record what the CLI prints without them.
   */
  withoutArgs?: string[];
}

/** A change to the prepared worker environment, for endings it cannot reach. */
export interface Environment {
  /** What the change is for (said in the note). */
  why: string;
  /** Variables left out. */
  unset?: string[];
  /**
   * A fresh home (inside the private dir) holding these files, instead of the prepared one: every
   * variable that named the prepared home (HOME, GEMINI_CLI_HOME) names the fresh one.
   */
  home?: Record<string, string>;
  /**
   * Variables that name a fresh folder (inside the private dir) holding these files, replacing
   * what the prepared environment set (`CODEX_HOME` with a broken `config.toml`, say).
   */
  dirs?: Record<string, Record<string, string>>;
}

/** A backend's recordings and the repo they run in. */
export interface BackendFixtures {
  /** Files of the git repo each recording runs in. */
  files: Record<string, string>;
  /** The model id for a scenario name. */
  model(scenario: string): string;
  /** How paths, ids and times are written after normalising. */
  placeholders: { repo: string; home: string; private: string; uuid: (n: number) => string };
  fixtures: Fixture[];
  /** Files in testdata/ the recorder leaves alone, and why (each file's note says so too). */
  keptByHand: Record<string, string>;
}

const pad = (n: number) => String(n).padStart(12, "0");
const LOWER = {
  repo: "/repo",
  home: "/home",
  private: "/private",
  uuid: (n: number) => `00000000-0000-0000-0000-${pad(n)}`,
};

const ERRORS_GEMINI: Fixture[] = [
  { name: "error_model_not_found", mode: "read", scenario: "nosuch" },
  {
    name: "error_auth",
    mode: "read",
    scenario: "auth",
    turns: [{ error: { status: 400, kind: "auth" } }],
  },
  {
    name: "error_overloaded",
    mode: "read",
    scenario: "overloaded",
    turns: [{ error: { status: 503, kind: "overloaded" } }],
  },
  {
    name: "error_quota",
    mode: "read",
    scenario: "quota",
    turns: [{ error: { status: 429, kind: "quota" } }],
  },
  {
    name: "error_quota_daily",
    mode: "read",
    scenario: "daily",
    turns: [{ error: { status: 429, kind: "quota_daily" } }],
  },
  {
    name: "error_rate_limit",
    mode: "read",
    scenario: "rate",
    turns: [{ error: { status: 429, kind: "rate_limit", retry_after_s: 2 } }],
  },
  {
    name: "error_server",
    mode: "read",
    scenario: "server",
    turns: [{ error: { status: 500, kind: "server" } }],
  },
];

/** A provider's quota message that says when the quota resets (qwen fails at once on it). */
export const QUOTA_RESET =
  "You exceeded your current quota for requests per day; the quota will reset at 00:00 UTC.";

/**
 * Copilot's environment as the engine hands it over: no other provider's key (the engine scrubs
 * them). Copilot masks the value of every secret-looking variable in all it prints, and the
 * prepared home's short ones ("x") would garble its stream.
 */
export const COPILOT_ENV: Environment = {
  why: "the engine hands Copilot no other provider's key; Copilot masks their values in its output",
  unset: ["ANTHROPIC_API_KEY", "GEMINI_API_KEY", "FAKE_API_KEY"],
};

/** The runs every OpenCode-derived CLI (opencode, kilo) is recorded on. */
const OPENCODE_RUNS: Fixture[] = [
  {
    name: "read_answer",
    mode: "read",
    scenario: "read_answer",
    turns: [
      { say: "Looking.", read: "notes.txt" },
      { grep: "hello" },
      { answer: "notes.txt says hello world.", usage: { input: 100, output: 20, cached: 40 } },
    ],
  },
  {
    name: "edit",
    mode: "write",
    scenario: "edit",
    turns: [
      { edit: { path: "notes.txt", old: "world", new: "there" } },
      { answer: "Changed notes.txt:1." },
    ],
  },
  {
    name: "denied_edit",
    mode: "read",
    scenario: "denied_edit",
    turns: [
      { edit: { path: "notes.txt", old: "world", new: "there" } },
      { shell: "echo pwned > pwned.txt" },
      { web: "http://127.0.0.1:9/page" },
      { answer: "I could not change anything." },
    ],
  },
  {
    name: "write_denied_commit",
    mode: "write",
    scenario: "write_denied_commit",
    turns: [
      { shell: "git commit -am sneaky" },
      { web: "http://127.0.0.1:9/page" },
      { answer: "Not committed." },
    ],
  },
  {
    name: "error_404",
    mode: "read",
    scenario: "error_404",
    turns: [{ error: { status: 404, kind: "model_not_found" } }],
  },
  {
    name: "error_429",
    mode: "read",
    scenario: "error_429",
    turns: [{ error: { status: 429, kind: "rate_limit", retry_after_s: 1 } }],
  },
  {
    name: "error_quota",
    mode: "read",
    scenario: "error_quota",
    turns: [{ error: { status: 429, kind: "quota_daily", retry_after_s: 1 } }],
  },
  {
    name: "error_unconfigured_model",
    mode: "read",
    scenario: "error_unconfigured_model",
    turns: [{ answer: "unused" }],
    model: "fake/not-in-config",
  },
  {
    // What the stream alone says of an unknown model (no `--print-logs` stderr log line).
    name: "error_unconfigured_model_no_logs",
    mode: "read",
    scenario: "error_unconfigured_model_no_logs",
    turns: [{ answer: "unused" }],
    model: "fake/not-in-config",
    withoutArgs: ["--print-logs", "--log-level", "WARN"],
  },
  {
    name: "error_401",
    mode: "read",
    scenario: "error_401",
    turns: [{ error: { status: 401, kind: "auth" } }],
  },
];

/** Every backend's recordings. */
export const FIXTURES: Record<WorkerName, BackendFixtures> = {
  opencode: {
    files: { "notes.txt": "hello world\n" },
    model: (scenario) => `fake/${scenario}`,
    placeholders: { ...LOWER, repo: "/REPO", home: "/HOME", private: "/PRIVATE" },
    fixtures: [...OPENCODE_RUNS],
    keptByHand: {
      "ask_rejected": "an `ask` rule on the default agent, which Pitroom's profiles never set, " +
        "so the backend's launch cannot make it",
      "ms_*.jsonl": "raw streams of the model server's first runs, not normalised (ms_streams.md)",
      "models_verbose.txt": "`opencode models --verbose`, a model list rather than a run",
    },
  },
  codex: {
    files: { "notes.txt": "hello world\n" },
    model: (scenario) => `fake/${scenario}`,
    placeholders: LOWER,
    fixtures: [
      {
        name: "read-answer",
        mode: "read",
        scenario: "read-answer",
        turns: [
          { say: "Looking.", calls: [{ read: "notes.txt" }, { grep: "hello" }] },
          { list: "." },
          {
            answer: "notes.txt says hello world.",
            usage: { input: 11631, output: 41, cached: 40, reasoning: 5 },
          },
        ],
      },
      {
        name: "edit",
        mode: "write",
        scenario: "edit",
        turns: [
          { edit: { path: "notes.txt", old: "world", new: "there" } },
          { write: { path: "new.txt", content: "new\n" } },
          { answer: "Edited." },
        ],
      },
      {
        name: "read-trespass",
        mode: "read",
        scenario: "read-trespass",
        stderrFile: true,
        turns: [
          { edit: { path: "notes.txt", old: "world", new: "there" } },
          { shell: "curl -sS http://127.0.0.1:9/page" },
          { answer: "Tried." },
        ],
      },
      {
        // Codex refuses the write before running it: no event, nothing on stderr.
        name: "read-shell-refused",
        mode: "read",
        scenario: "read-shell-refused",
        turns: [{ shell: "echo pwned > b.txt" }, { answer: "Tried." }],
      },
      {
        name: "resume-first",
        mode: "read",
        scenario: "resume",
        turns: [
          { read: "notes.txt" },
          { answer: "Hello.", usage: { input: 11631, output: 41, cached: 40, reasoning: 5 } },
        ],
        followup: {
          name: "resume",
          turns: [{ answer: "Still hello.", usage: { input: 100, output: 2, cached: 90 } }],
        },
      },
      { name: "missing-model", mode: "read", scenario: "missing-model" },
      {
        name: "quota",
        mode: "read",
        scenario: "quota",
        turns: [{ error: { status: 429, kind: "quota" } }],
      },
      {
        name: "rate",
        mode: "read",
        scenario: "rate",
        turns: [{ error: { status: 429, kind: "rate_limit", retry_after_s: 1 } }],
      },
      {
        name: "auth",
        mode: "read",
        scenario: "auth",
        turns: [{ error: { status: 401, kind: "auth" } }],
      },
      {
        // Codex refuses a folder that is not a git repo (Pitroom always passes a repo, but a
        // user's own --skip-git-repo-check-less setup says the same); stderr leads with warnings.
        name: "not-git",
        mode: "read",
        scenario: "not-git",
        noGit: true,
        withoutArgs: ["--skip-git-repo-check"],
        turns: [{ answer: "unused" }],
      },
      {
        name: "bad-config",
        mode: "read",
        scenario: "bad-config",
        turns: [{ answer: "unused" }],
        environment: {
          why: "a CODEX_HOME whose config.toml is not valid TOML: codex stops before any request",
          dirs: {
            CODEX_HOME: { "config.toml": 'model_provider = "fake"\n[model_providers.fake\n' },
          },
        },
      },
    ],
    keptByHand: {
      "debug-models.json": "`codex debug models` prints ~745 KB; two entries kept, trimmed by hand",
      "read-shell-write":
        "a shell write failing inside the read-only sandbox, from a `shell` tool " +
        "that 0.169.0 no longer offers (every model gets exec_command, which refuses the write " +
        "with no event: read-shell-refused)",
    },
  },
  claude: {
    files: { "a.txt": "hello world\n" },
    model: (scenario) => scenario,
    placeholders: LOWER,
    fixtures: [
      {
        name: "read_answer",
        mode: "read",
        scenario: "read-answer",
        turns: [
          { say: "Looking at the file.", read: "a.txt" },
          { grep: "hello" },
          { shell: "ls -la" },
          { answer: "a.txt says hello world.", usage: { input: 100, output: 20, cached: 40 } },
        ],
      },
      {
        name: "edit_in_place",
        mode: "write",
        scenario: "edit-in-place",
        // The server reads a file before editing it for claude: no read of our own.
        turns: [
          { edit: { path: "a.txt", old: "hello", new: "goodbye" } },
          { write: { path: "notes/new.txt", content: "new file\n" } },
          { answer: "Changed a.txt and added notes/new.txt." },
        ],
      },
      {
        name: "read_refusals",
        mode: "read",
        scenario: "read-refusals",
        turns: [
          { edit: { path: "a.txt", old: "hello", new: "goodbye" } },
          { shell: "echo sneaky > b.txt" },
          { web: "http://127.0.0.1:9/page" },
          { shell: "git log --oneline" },
          { answer: "Nothing could be changed." },
        ],
      },
      {
        name: "write_denials",
        mode: "write",
        scenario: "write-denials",
        turns: [
          { shell: "echo made > made.txt" },
          { shell: "git commit -am sneaky" },
          { shell: "rm -rf sub" },
          { answer: "Made a file; the commit was refused." },
        ],
      },
      {
        name: "auth",
        mode: "read",
        scenario: "bad-key",
        turns: [{ error: { status: 401, kind: "auth" } }],
      },
      { name: "model_not_found", mode: "read", scenario: "no-such-scenario" },
      {
        name: "overloaded",
        mode: "read",
        scenario: "overloaded",
        turns: [{ error: { status: 529, kind: "overloaded" } }],
      },
      {
        name: "quota",
        mode: "read",
        scenario: "out-of-credit",
        turns: [{ error: { status: 400, kind: "quota" } }],
      },
      {
        name: "rate_limited",
        mode: "read",
        scenario: "rate-limited",
        turns: [{ error: { status: 429, kind: "rate_limit", retry_after_s: 1 } }],
      },
      {
        name: "server_error",
        mode: "read",
        scenario: "server-error",
        turns: [{ error: { status: 500, kind: "server" } }],
      },
      {
        name: "resume_first",
        mode: "read",
        scenario: "resume",
        turns: [{ answer: "Hello.", usage: { input: 1000, output: 10 } }],
        followup: {
          name: "resume",
          turns: [{ answer: "Still hello.", usage: { input: 200, output: 5 } }],
        },
      },
      {
        name: "thinking",
        mode: "read",
        scenario: "thinking",
        turns: [
          { read: "a.txt", usage: { input: 100, output: 10, reasoning: 30 } },
          { answer: "Thought it over.", usage: { input: 120, output: 8, reasoning: 40 } },
        ],
      },
    ],
    keptByHand: {},
  },
  gemini: {
    files: { "a.txt": "hello\n" },
    model: (scenario) => scenario,
    placeholders: { ...LOWER, uuid: (n) => `00000000-0000-4000-8000-${pad(n - 1)}` },
    fixtures: [
      {
        name: "read_answer",
        mode: "read",
        scenario: "read-answer",
        turns: [
          { say: "Looking.", grep: "hello" },
          { read: "a.txt" },
          { list: "." },
          { answer: "a.txt says hello.", usage: { input: 8000, output: 12, cached: 800 } },
        ],
      },
      {
        name: "edit_write",
        mode: "write",
        scenario: "edit",
        turns: [
          { edit: { path: "a.txt", old: "hello", new: "hi there" } },
          { answer: "Changed a.txt." },
        ],
      },
      {
        name: "read_denied",
        mode: "read",
        scenario: "denied",
        turns: [
          { edit: { path: "a.txt", old: "hello", new: "bye" } },
          { shell: "echo x > b.txt" },
          { web: "http://127.0.0.1:9/" },
          { write: { path: "c.txt", content: "c" } },
          { answer: "Could not." },
        ],
      },
      {
        name: "shell_policy",
        mode: "write",
        scenario: "shell",
        turns: [
          { shell: "git commit --allow-empty -m x" },
          { shell: "echo hi > d.txt" },
          { answer: "Ran." },
        ],
      },
      {
        // Paths outside the workspace: gemini refuses them itself (invalid_tool_params).
        name: "read_outside",
        mode: "read",
        scenario: "outside",
        turns: [
          { read: "/etc/hostname" },
          { list: "/etc" },
          { answer: "Could not look outside." },
        ],
      },
      {
        // A shell command gemini's own heuristics would ask about (a symlink): headless, the
        // ask is refused at once as an `unhandled_exception` tool error.
        name: "shell_ask",
        mode: "write",
        scenario: "ask",
        turns: [{ shell: "ln -s a.txt link.txt" }, { answer: "Could not link." }],
      },
      {
        name: "parallel_calls",
        mode: "read",
        scenario: "multi",
        turns: [
          { say: "Two at once.", calls: [{ read: "a.txt" }, { grep: "hello" }] },
          { answer: "Both done." },
        ],
      },
      ...ERRORS_GEMINI,
      {
        name: "error_no_auth_method",
        mode: "read",
        scenario: "never-asked",
        environment: {
          why:
            "a home with an empty .gemini/settings.json (no security.auth.selectedType) and no " +
            "GEMINI_API_KEY: gemini stops before any request",
          unset: ["GEMINI_API_KEY"],
          home: { ".gemini/settings.json": "{}\n" },
        },
      },
      {
        name: "error_no_key",
        mode: "read",
        scenario: "never-asked",
        environment: {
          why: "a home with a .gemini/settings.json selecting gemini-api-key auth, and no " +
            "GEMINI_API_KEY: gemini stops before any request",
          unset: ["GEMINI_API_KEY"],
          home: {
            ".gemini/settings.json": JSON.stringify({
              security: { auth: { selectedType: "gemini-api-key" } },
            }) + "\n",
          },
        },
      },
      {
        name: "error_bad_settings",
        mode: "read",
        scenario: "never-asked",
        environment: {
          why: "a home whose .gemini/settings.json is not valid JSON: gemini stops before any " +
            "request, after its start-up warnings",
          home: { ".gemini/settings.json": '{"security": {"auth": ' },
        },
      },
      {
        name: "stopped",
        mode: "read",
        scenario: "hang",
        turns: [{ hang: true }],
        stopAfterFirstLine: true,
      },
    ],
    keptByHand: {},
  },
  qwen: {
    files: { "a.txt": "hello\n" },
    model: (scenario) => scenario,
    placeholders: LOWER,
    fixtures: [
      {
        name: "read_answer",
        mode: "read",
        scenario: "read-answer",
        turns: [
          { say: "Looking.", grep: "hello" },
          { read: "a.txt", usage: { input: 100, output: 10, cached: 50 } },
          { list: "." },
          { answer: "a.txt says hello.", usage: { input: 8000, output: 12, cached: 800 } },
        ],
      },
      {
        name: "edit_write",
        mode: "write",
        scenario: "edit",
        turns: [
          { read: "a.txt" },
          { edit: { path: "a.txt", old: "hello", new: "hi there" } },
          { write: { path: "b.txt", content: "b\n" } },
          { answer: "Changed a.txt." },
        ],
      },
      {
        name: "read_denied",
        mode: "read",
        scenario: "denied",
        turns: [
          { edit: { path: "a.txt", old: "hello", new: "bye" } },
          { shell: "echo x > b.txt" },
          { web: "http://127.0.0.1:9/" },
          { write: { path: "c.txt", content: "c" } },
          { answer: "Could not." },
        ],
      },
      {
        name: "shell_floor",
        mode: "write",
        scenario: "shell",
        turns: [
          { shell: "git commit --allow-empty -m x" },
          { shell: "echo hi > d.txt" },
          { answer: "Ran." },
        ],
      },
      {
        // A path outside the workspace (the recording's temp folder, beside the repo), in write
        // mode: qwen 0.24.4's auto-edit writes it without asking. Pitroom's sandbox is what keeps
        // a worker's writes inside the tree.
        name: "write_outside",
        mode: "write",
        scenario: "outside",
        turns: [
          { write: { path: "../outside.txt", content: "x\n" } },
          { answer: "Could not write outside." },
        ],
      },
      {
        name: "parallel_calls",
        mode: "read",
        scenario: "multi",
        turns: [
          { say: "Two at once.", calls: [{ read: "a.txt" }, { grep: "hello" }] },
          { answer: "Both done." },
        ],
        followup: { name: "resumed", turns: [{ answer: "Resumed." }] },
      },
      { name: "error_model_not_found", mode: "read", scenario: "nosuch" },
      {
        name: "error_auth",
        mode: "read",
        scenario: "auth",
        turns: [{ error: { status: 401, kind: "auth" } }],
      },
      {
        name: "error_rate_limit",
        mode: "read",
        scenario: "rate",
        turns: [{ error: { status: 429, kind: "rate_limit", retry_after_s: 1 } }],
      },
      {
        name: "error_quota",
        mode: "read",
        scenario: "quota",
        turns: [{ error: { status: 429, kind: "quota", retry_after_s: 1 } }],
      },
      {
        // Quota wording that says when it resets: qwen fails at once ("Quota exhausted: ...").
        name: "error_quota_reset",
        mode: "read",
        scenario: "quota-reset",
        turns: [{ error: { status: 429, kind: "quota", message: QUOTA_RESET } }],
      },
      {
        name: "error_quota_daily",
        mode: "read",
        scenario: "daily",
        turns: [{ error: { status: 429, kind: "quota_daily", retry_after_s: 1 } }],
      },
      {
        name: "error_overloaded",
        mode: "read",
        scenario: "overloaded",
        turns: [{ error: { status: 503, kind: "overloaded", retry_after_s: 1 } }],
      },
      {
        name: "stopped",
        mode: "read",
        scenario: "hang",
        turns: [{ hang: true }],
        stopAfterFirstLine: true,
      },
    ],
    keptByHand: {},
  },
  kilo: {
    files: { "notes.txt": "hello world\n" },
    model: (scenario) => `fake/${scenario}`,
    placeholders: { ...LOWER, repo: "/REPO", home: "/HOME", private: "/PRIVATE" },
    // OpenCode's runs, but for the one without logs and the unconfigured model (the same code).
    fixtures: [
      ...OPENCODE_RUNS.filter((f) => !f.name.startsWith("error_unconfigured")),
      {
        // A follow-up in the same session (the e2e suite leaves it out for CI's budget).
        name: "chat",
        mode: "read",
        scenario: "chat",
        turns: [{ answer: "First answer." }],
        followup: { name: "resume", turns: [{ answer: "Second answer." }] },
      },
    ],
    keptByHand: {},
  },
  copilot: {
    files: { "notes.txt": "hello world\n" },
    model: (scenario) => scenario,
    placeholders: LOWER,
    fixtures: [
      {
        name: "read_answer",
        mode: "read",
        environment: COPILOT_ENV,
        scenario: "read_answer",
        turns: [
          { say: "Looking.", read: "notes.txt" },
          { grep: "hello" },
          { answer: "notes.txt says hello world." },
        ],
        followup: { name: "resume", turns: [{ answer: "Still hello world." }] },
      },
      {
        name: "edit",
        mode: "write",
        environment: COPILOT_ENV,
        scenario: "edit",
        turns: [
          { edit: { path: "notes.txt", old: "world", new: "there" } },
          { shell: "git commit -am sneaky" },
          { answer: "Changed notes.txt:1." },
        ],
      },
      {
        name: "denied_edit",
        mode: "read",
        environment: COPILOT_ENV,
        scenario: "denied_edit",
        turns: [
          { edit: { path: "notes.txt", old: "world", new: "there" } },
          { shell: "echo pwned > pwned.txt" },
          { answer: "I could not change anything." },
        ],
      },
      { name: "error_404", mode: "read", scenario: "nosuch", environment: COPILOT_ENV },
      {
        name: "error_429",
        mode: "read",
        environment: COPILOT_ENV,
        scenario: "error_429",
        turns: [{ error: { status: 429, kind: "rate_limit", retry_after_s: 1 } }],
      },
      {
        name: "error_quota",
        mode: "read",
        environment: COPILOT_ENV,
        scenario: "error_quota",
        turns: [{ error: { status: 429, kind: "quota", retry_after_s: 1 } }],
      },
      {
        name: "error_401",
        mode: "read",
        environment: COPILOT_ENV,
        scenario: "error_401",
        turns: [{ error: { status: 401, kind: "auth" } }],
      },
    ],
    keptByHand: {},
  },
  crush: {
    files: {},
    model: (scenario) => `fake/${scenario}`,
    placeholders: LOWER,
    // Crush's binary cannot be fetched here: its streams are written by hand.
    fixtures: [],
    keptByHand: {
      "*": "written from Crush's source (`crush run` output), as its binary cannot be fetched here",
    },
  },
};
