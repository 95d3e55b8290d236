/**
 * A scriptable fake ACP agent for engine tests: a real process that speaks the Agent Client
 * Protocol on stdin and stdout the way an agent would, or misbehaves on purpose (garbage lines,
 * truncated JSON, unknown methods, a flood of permission requests, dying in the middle of a
 * call, hanging). `deno run -A fake_acp_agent.ts SCRIPT_JSON`; the script is an `AgentScript`.
 * Everything the client sends is appended to `log` (one JSON line each) when given.
 */

/** One thing the agent does while it works on the prompt. */
export type AgentStep =
  /** A `session/update` with this `update`. */
  | { update: Record<string, unknown> }
  /** A permission request for this tool call (the answer is waited for). */
  | { permission: Record<string, unknown>; options?: Record<string, unknown>[] }
  /** A request the client does not offer (`fs/read_text_file`, ...), answer waited for. */
  | { ask: string }
  /** This text as a line, as it is (garbage, truncated JSON). */
  | { raw: string }
  /** This many permission requests at once, no answer waited for. */
  | { flood: number }
  /** Writes a file (relative to the cwd), as an agent's edit tool would. */
  | { write: string; content: string }
  /** Exits with this code at once. */
  | { exit: number }
  /** Never goes on (until killed or cancelled). */
  | { hang: true };

/** What the fake agent does. */
export interface AgentScript {
  /** Where to log what the client sent. */
  log?: string;
  /** The `initialize` result (default: protocol 1, no session load). */
  initialize?: Record<string, unknown>;
  /** Instead of answering `initialize`: these steps (a broken agent). */
  beforeInit?: AgentStep[];
  /** The `session/new` result's extra fields (`models`, `configOptions`). */
  session?: Record<string, unknown>;
  /** An error answer to `session/set_model` or `session/set_config_option`. */
  modelError?: string;
  /** What the agent does on the prompt, in order. */
  steps: AgentStep[];
  /** The prompt's result (default `{stopReason: "end_turn"}`); `error` answers an error. */
  result?: Record<string, unknown>;
  /** An error answer to the prompt instead of a result. */
  error?: { code: number; message: string };
  /** Exit when stdin closes (default true). */
  exitOnEof?: boolean;
  /** Answers the client's requests with their ids as strings (`"4"` for 4). */
  stringIds?: boolean;
}

const script = JSON.parse(Deno.args[0] ?? "{}") as AgentScript;
const encoder = new TextEncoder();
let nextId = 100;
const waiting = new Map<number, (value: unknown) => void>();
let sessionId = "ses_fake_1";
let cancelled: (() => void) | null = null;

function send(value: unknown): void {
  const message = value as Record<string, unknown>;
  const answer = script.stringIds && typeof message.id === "number" && !("method" in message);
  const line = answer ? { ...message, id: String(message.id) } : message;
  Deno.stdout.writeSync(encoder.encode(JSON.stringify(line) + "\n"));
}

function raw(text: string): void {
  Deno.stdout.writeSync(encoder.encode(text + "\n"));
}

async function log(value: unknown): Promise<void> {
  if (script.log) {
    await Deno.writeTextFile(script.log, JSON.stringify(value) + "\n", { append: true });
  }
}

function ask(method: string, params: unknown): Promise<unknown> {
  const id = nextId++;
  const answered = new Promise((resolve) => waiting.set(id, resolve));
  send({ jsonrpc: "2.0", id, method, params });
  return answered;
}

const DEFAULT_OPTIONS = [
  { optionId: "yes-always", name: "Always", kind: "allow_always" },
  { optionId: "yes", name: "Allow", kind: "allow_once" },
  { optionId: "no", name: "Reject", kind: "reject_once" },
];

async function play(steps: AgentStep[]): Promise<"done" | "hang"> {
  for (const step of steps) {
    if ("update" in step) {
      send({
        jsonrpc: "2.0",
        method: "session/update",
        params: { sessionId, update: step.update },
      });
    } else if ("permission" in step) {
      const answer = await ask("session/request_permission", {
        sessionId,
        toolCall: step.permission,
        options: step.options ?? DEFAULT_OPTIONS,
      });
      await log({ permission: step.permission.toolCallId, answer });
    } else if ("ask" in step) {
      const answer = await ask(step.ask, { sessionId, path: "/etc/passwd" });
      await log({ asked: step.ask, answer });
    } else if ("raw" in step) raw(step.raw);
    else if ("flood" in step) {
      for (let i = 0; i < step.flood; i++) {
        send({
          jsonrpc: "2.0",
          id: nextId++,
          method: "session/request_permission",
          params: {
            sessionId,
            toolCall: { toolCallId: `f${i}`, kind: "edit" },
            options: DEFAULT_OPTIONS,
          },
        });
      }
    } else if ("write" in step) await Deno.writeTextFile(step.write, step.content);
    else if ("exit" in step) Deno.exit(step.exit);
    else if ("hang" in step) return "hang";
  }
  return "done";
}

async function prompt(id: unknown): Promise<void> {
  const stop = new Promise<"cancelled">((resolve) => (cancelled = () => resolve("cancelled")));
  const how = await Promise.race([play(script.steps), stop]);
  if (how === "hang") await stop;
  if (how === "cancelled" || (how === "hang")) {
    send({ jsonrpc: "2.0", id, result: { stopReason: "cancelled" } });
    return;
  }
  if (script.error) send({ jsonrpc: "2.0", id, error: script.error });
  else send({ jsonrpc: "2.0", id, result: script.result ?? { stopReason: "end_turn" } });
}

async function handle(message: Record<string, unknown>): Promise<void> {
  await log(message);
  const { id, method } = message;
  if (method === undefined) {
    waiting.get(id as number)?.(message.result ?? message.error);
    waiting.delete(id as number);
    return;
  }
  switch (method) {
    case "initialize":
      if (script.beforeInit) {
        await play(script.beforeInit);
        return;
      }
      send({
        jsonrpc: "2.0",
        id,
        result: script.initialize ?? { protocolVersion: 1, agentCapabilities: {}, authMethods: [] },
      });
      return;
    case "session/new":
      send({ jsonrpc: "2.0", id, result: { sessionId, ...script.session } });
      return;
    case "session/load":
    case "session/resume":
      sessionId = String((message.params as Record<string, unknown>).sessionId);
      if (method === "session/load") {
        send({
          jsonrpc: "2.0",
          method: "session/update",
          params: {
            sessionId,
            update: {
              sessionUpdate: "agent_message_chunk",
              content: { type: "text", text: "replayed history" },
            },
          },
        });
      }
      send({ jsonrpc: "2.0", id, result: {} });
      return;
    case "session/set_model":
    case "session/set_config_option":
      send(
        script.modelError
          ? { jsonrpc: "2.0", id, error: { code: -32602, message: script.modelError } }
          : { jsonrpc: "2.0", id, result: {} },
      );
      return;
    case "session/prompt":
      await prompt(id);
      return;
    case "session/cancel":
      cancelled?.();
      return;
  }
  send({ jsonrpc: "2.0", id, error: { code: -32601, message: "Method not found" } });
}

const decoder = new TextDecoder();
let buffer = "";
for await (const chunk of Deno.stdin.readable) {
  buffer += decoder.decode(chunk, { stream: true });
  let newline = buffer.indexOf("\n");
  while (newline >= 0) {
    const line = buffer.slice(0, newline);
    buffer = buffer.slice(newline + 1);
    newline = buffer.indexOf("\n");
    if (line.trim() === "") continue;
    handle(JSON.parse(line));
  }
}
await log({ eof: true });
// An agent that stays after its stdin closed must be ended by the client.
if (script.exitOnEof === false) await new Promise(() => {});
Deno.exit(0);
