/**
 * The seam between the scripted model server's core (scenario choice, turn choice, logging,
 * errors, hang, delay) and one model API dialect. A dialect reads a request into a
 * `Conversation` and writes a `Reply` or an `ErrorReply` in its API's own shapes.
 */

/** What the core needs to know about one request, read by the dialect. */
export interface Conversation {
  /** The model id as the request names it (`fake/read-answer`, or the model in a gemini URL). */
  model: string;
  /** Names of the tools the request offers (empty for title/summary calls). */
  toolsOffered: string[];
  /** Text of the latest user message (tool results are not user messages). */
  latestUser: string;
  /** Number of user messages so far: more than one means a follow-up in the same session. */
  userTurns: number;
  /** Tool-result rounds after the latest user message: 0 for the first call of a turn. */
  toolRounds: number;
  /** The working directory the CLI states in its request (system prompt / env block), if any. */
  cwd: string | null;
  /** The client asked for a stream (SSE). */
  stream: boolean;
  /**
   * The text of the tool results sent after the latest user message, oldest first (each as the
   * client sent it: text, or JSON for structured content); absent when the dialect does not say.
   */
  toolResults?: string[];
}

/** An abstract tool call from a scenario turn, before the dialect maps it to its CLI's tool. */
export type Action =
  | { read: string }
  | { grep: string | { pattern: string; path?: string } }
  | { list: string }
  | { write: { path: string; content: string } }
  | { edit: { path: string; old: string; new: string } }
  | { shell: string }
  | { web: string }
  /** A tool called by its exact name with this input, in any dialect (format version 2). */
  | { tool: { name: string; input: Record<string, unknown> } };

/**
 * Token usage reported for one call. `input` is the uncached input; the prompt as a whole is
 * `input + cached` (dialects whose API counts cached tokens inside the input add them up).
 * `output` excludes `reasoning` in the same way.
 */
export interface Usage {
  input: number;
  output: number;
  cached: number;
  reasoning: number;
}

/** What the core asks a dialect to send. */
export interface Reply {
  /** Text before the tool calls, or the final answer when there are no calls. */
  text: string;
  /** Tool calls of this model turn (empty: the turn ends with `text` as the answer). */
  calls: Action[];
  usage: Usage;
  /** The conversation the reply answers (for cwd, tools offered and stream/JSON choice). */
  conversation: Conversation;
}

/** Error kinds a scenario can ask for. */
export type ErrorKind =
  | "model_not_found"
  | "rate_limit"
  | "quota"
  | "quota_daily"
  | "auth"
  | "overloaded"
  | "server";

/** An HTTP error in the dialect's own shape. */
export interface ErrorReply {
  status: number;
  kind: ErrorKind;
  /**
   * The scenario's message, or `""` when the scenario gives none: the dialect then sends its API's
   * usual text for the kind (the text the CLI's own failure classification recognises).
   */
  message: string;
  retryAfterS?: number;
  model: string;
}

/** What the core knows when it prepares a worker home. */
export interface WorkerEnvOptions {
  /** Scenario names in the scenarios dir (a CLI that only accepts listed models lists these). */
  scenarios: string[];
}

/** One model API. */
export interface Dialect {
  readonly name: "opencode" | "codex" | "claude" | "gemini";
  /** True when this dialect serves the request's method and path. */
  matches(method: string, url: URL): boolean;
  /** Reads the request body (already JSON-parsed) into a conversation. */
  read(body: unknown, url: URL): Conversation;
  /** Builds the response for a reply (SSE or JSON, as the request asked). */
  reply(reply: Reply): Response;
  /** Builds an error response in this API's own shape. */
  error(error: ErrorReply): Response;
  /**
   * Prepares this CLI's part of a private worker home (config files pointing at `baseUrl`, quiet
   * and fast-failure settings) and returns the environment variables the CLI needs.
   */
  workerEnv(
    home: string,
    baseUrl: string,
    options?: WorkerEnvOptions,
  ): Promise<Record<string, string>>;
}
