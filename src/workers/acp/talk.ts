/**
 * One ACP conversation (a `Talk`): Pitroom as the client of an agent for one attempt.
 *
 * `initialize` first (protocol version 1, no client file system or terminal). Then a session:
 * `session/new` in the worker's tree, or for a follow-up the earlier session again, by
 * `session/resume` where the agent offers it (`sessionCapabilities.resume`), else by
 * `session/load` (`loadSession`; the history it replays is not this run's work and is skipped),
 * else the attempt fails saying the agent cannot continue a session. The history `session/load`
 * replays is skipped: before the load's answer, as the protocol has it, and after it while the
 * agent goes on replaying (a `user_message_chunk` after the answer: Gemini CLI 0.61.0 answers the
 * load at its first replayed message), until something only a live turn sends (a command list
 * update, a permission request, a call not born finished, the prompt's result). A model asked for is set
 * with `session/set_model` where the session offers `models`, else `session/set_config_option`
 * on its model option; an agent offering neither fails the attempt (put the model in its command).
 * Then one `session/prompt` with the task; its result ends the conversation.
 *
 * Every request of the agent is answered at once: a permission request by the run's policy
 * (policy.ts), anything else "method not found". More than `MAX_REQUESTS` requests in one attempt
 * end it (a flood), as does anything that leaves Pitroom nothing to wait for (an error answer to
 * one of its requests, a protocol version it does not speak). A cancel (a stop, a timeout, a cap)
 * is `session/cancel`; permission requests after it are answered `cancelled`.
 */
import { event, type WorkerEvent } from "../../events/mod.ts";
import type { Heard, LineTime, Mode, Talk } from "../types.ts";
import { isObject, type Json, rawOf, str } from "../_json.ts";
import {
  errorResponse,
  IDS,
  initialize,
  METHOD_NOT_FOUND,
  notification,
  PROTOCOL_VERSION,
  readMessage,
  request,
  response,
} from "./protocol.ts";
import { decide, outcomeFor } from "./policy.ts";
import { newScratch, parseEnd, parseUpdate, refused } from "./parse.ts";

/** The agent's requests one attempt answers before it is ended as a flood. */
export const MAX_REQUESTS = 500;

/** What one conversation needs. */
export interface TalkSpec {
  /** The worker's name (for messages). */
  name: string;
  mode: Mode;
  web: boolean;
  /** The worker's tree. */
  cwd: string;
  prompt: string;
  model?: string;
  /** The session to continue (a follow-up). */
  sessionId?: string;
}

type Phase = "init" | "session" | "model" | "prompt" | "over";

/** The names of error events the classifier reads (classify.ts). */
export const ERROR_NAMES = {
  protocol: "acp_protocol",
  model: "acp_model",
  flood: "acp_flood",
  session: "acp_session",
  prompt: "acp_prompt",
  stop: "acp_stop",
} as const;

/** An ACP conversation. */
export class AcpTalk implements Talk {
  #spec: TalkSpec;
  #phase: Phase = "init";
  #sessionId: string | undefined;
  #replaying = false;
  /** The session was loaded (its history may still be replayed after the load's answer). */
  #loaded = false;
  #cancelled = false;
  #requests = 0;
  #scratch = newScratch();

  constructor(spec: TalkSpec) {
    this.#spec = spec;
  }

  open(): string[] {
    return [initialize()];
  }

  cancel(): string[] {
    if (this.#cancelled || this.#phase === "over") return [];
    this.#cancelled = true;
    const id = this.#sessionId;
    return this.#phase === "prompt" && id !== undefined
      ? [notification("session/cancel", { sessionId: id })]
      : [];
  }

  hear(line: string, at: LineTime): Heard {
    const message = readMessage(line);
    const time = at.time;
    switch (message.kind) {
      case "invalid":
        return heard([event("worker.unknown", time, { raw: rawOf(line) })]);
      case "notification":
        if (message.method !== "session/update" || this.#phase === "over") {
          return heard([event("worker.unknown", time, { raw: rawOf(line) })]);
        }
        return heard(this.#update(message.params.update, at, line));
      case "request":
        return this.#answer(message.id, message.method, message.params, line, at);
      case "failure":
        return this.#failed(message.id, message.message, message.code, line, time);
      case "response":
        return this.#responded(message.id, message.result, line, time);
    }
  }

  /** One `session/update`: skipped while it is replayed history, else parsed. */
  #update(update: unknown, at: LineTime, line: string): WorkerEvent[] {
    const kind = isObject(update) ? str(update.sessionUpdate) : undefined;
    if (this.#loaded && kind === "user_message_chunk") {
      // Only history has the user's words: the agent is replaying after answering the load.
      this.#replaying = true;
      return [];
    }
    if (this.#replaying && this.#loaded && isLive(update)) this.#replaying = false;
    if (this.#replaying) return [];
    return parseUpdate(this.#scratch, update, at, line);
  }

  #answer(id: string | number, method: string, params: Json, line: string, at: LineTime): Heard {
    const time = at.time;
    this.#requests++;
    this.#replaying = false;
    if (this.#requests > MAX_REQUESTS) {
      return this.#end(
        `The agent sent more than ${MAX_REQUESTS} requests in one run (a flood): ended`,
        ERROR_NAMES.flood,
        time,
      );
    }
    if (method !== "session/request_permission") {
      return heard([event("worker.unknown", time, { raw: rawOf(line) })], [
        errorResponse(id, METHOD_NOT_FOUND, `Pitroom offers no "${method}"`),
      ]);
    }
    const call = isObject(params.toolCall) ? params.toolCall : {};
    if (this.#cancelled || this.#phase !== "prompt") {
      return heard([], [response(id, { outcome: { outcome: "cancelled" } })]);
    }
    const decision = decide(call, this.#spec);
    const events = decision.allow ? [] : refused(this.#scratch, call, decision.why, at);
    return heard(events, [response(id, { outcome: outcomeFor(decision, params.options) })]);
  }

  #failed(raw: unknown, text: string, code: number | undefined, line: string, time: number): Heard {
    const id = ours(raw);
    const name = this.#spec.name;
    const codeText = code === undefined ? "" : ` (ACP error ${code})`;
    switch (id) {
      case IDS.initialize:
        return this.#end(
          `${name} refused to start: ${text}${codeText}`,
          ERROR_NAMES.protocol,
          time,
        );
      case IDS.session:
        return this.#end(
          this.#spec.sessionId === undefined
            ? `${name} could not open a session: ${text}${codeText}`
            : `${name} could not continue session ${this.#spec.sessionId}: ${text}${codeText}`,
          ERROR_NAMES.session,
          time,
        );
      case IDS.model:
        return this.#end(
          `${name} did not take model "${this.#spec.model}": ${text}${codeText}`,
          ERROR_NAMES.model,
          time,
        );
      case IDS.prompt:
        return this.#end(`${text}${codeText}`, ERROR_NAMES.prompt, time);
    }
    return heard([event("worker.unknown", time, { raw: rawOf(line) })]);
  }

  #responded(raw: unknown, result: unknown, line: string, time: number): Heard {
    const body = isObject(result) ? result : {};
    const id = ours(raw);
    if (id === IDS.initialize && this.#phase === "init") return this.#initialized(body, time);
    if (id === IDS.session && this.#phase === "session") return this.#sessionOpened(body, time);
    if (id === IDS.model && this.#phase === "model") return this.#prompt([]);
    if (id === IDS.prompt && this.#phase === "prompt") return this.#promptEnded(body, time);
    return heard([event("worker.unknown", time, { raw: rawOf(line) })]);
  }

  #initialized(body: Json, time: number): Heard {
    const name = this.#spec.name;
    if (body.protocolVersion !== PROTOCOL_VERSION) {
      return this.#end(
        `${name} speaks ACP version ${
          JSON.stringify(body.protocolVersion) ?? "(none)"
        }; Pitroom speaks version ${PROTOCOL_VERSION}`,
        ERROR_NAMES.protocol,
        time,
      );
    }
    if (this.#cancelled) {
      return this.#end("Stopped before the session began", ERROR_NAMES.stop, time);
    }
    const caps = isObject(body.agentCapabilities) ? body.agentCapabilities : {};
    const place = { cwd: this.#spec.cwd, mcpServers: [] };
    this.#phase = "session";
    const sessionId = this.#spec.sessionId;
    if (sessionId === undefined) return heard([], [request(IDS.session, "session/new", place)]);
    const sessions = isObject(caps.sessionCapabilities) ? caps.sessionCapabilities : {};
    if (isObject(sessions.resume)) {
      return heard([], [request(IDS.session, "session/resume", { sessionId, ...place })]);
    }
    if (caps.loadSession === true) {
      this.#replaying = true;
      return heard([], [request(IDS.session, "session/load", { sessionId, ...place })]);
    }
    return this.#end(
      `${name} cannot continue a session: its agent offers neither session/resume nor session/load`,
      ERROR_NAMES.session,
      time,
    );
  }

  #sessionOpened(body: Json, time: number): Heard {
    this.#loaded = this.#replaying;
    this.#replaying = false;
    const sessionId = this.#spec.sessionId ?? str(body.sessionId);
    if (sessionId === undefined || sessionId === "") {
      return this.#end(
        `${this.#spec.name} opened a session without an id`,
        ERROR_NAMES.protocol,
        time,
      );
    }
    this.#sessionId = sessionId;
    const events: WorkerEvent[] = [event("worker.session", time, { sessionId })];
    if (this.#cancelled) {
      return this.#end("Stopped before the prompt was sent", ERROR_NAMES.stop, time, events);
    }
    const model = this.#spec.model;
    if (model === undefined) return this.#prompt(events);
    const setting = modelSetting(body, sessionId, model);
    if (setting !== null) {
      this.#phase = "model";
      return heard(events, [setting]);
    }
    // A continued session keeps the model it had where the agent offers no choice now.
    if (this.#spec.sessionId !== undefined) return this.#prompt(events);
    return this.#end(
      `${this.#spec.name} offers no choice of model over ACP: name the model in its command ("acp" in the config) instead of -m`,
      ERROR_NAMES.model,
      time,
      events,
    );
  }

  #prompt(events: WorkerEvent[]): Heard {
    this.#phase = "prompt";
    return heard(events, [
      request(IDS.prompt, "session/prompt", {
        sessionId: this.#sessionId,
        prompt: [{ type: "text", text: this.#spec.prompt }],
      }),
    ]);
  }

  #promptEnded(body: Json, time: number): Heard {
    this.#replaying = false;
    const stop = str(body.stopReason) ?? "";
    const events = parseEnd(this.#scratch, body, time);
    this.#phase = "over";
    if (stop === "end_turn") return heard(events, [], true);
    const answerless = events.filter((e) => e.type !== "worker.answer");
    const why = STOP_REASONS[stop] ??
      `the agent ended its turn with an unknown stop reason ${JSON.stringify(stop)}`;
    return heard(
      [
        ...answerless,
        event("worker.error", time, {
          message: `${this.#spec.name} stopped: ${why}`,
          name: stop === "cancelled" ? ERROR_NAMES.stop : ERROR_NAMES.prompt,
        }),
      ],
      [],
      true,
    );
  }

  #end(message: string, name: string, time: number, before: WorkerEvent[] = []): Heard {
    // Ended before the prompt was sent: no model call was made, so none of its tokens were used.
    const none = this.#phase === "prompt" || this.#phase === "over"
      ? []
      : [event("worker.tokens", time, { input: 0, output: 0, cached: 0, reasoning: 0 })];
    this.#phase = "over";
    return heard([...before, ...none, event("worker.error", time, { message, name })], [], true);
  }
}

/** One of Pitroom's request ids, also when an agent echoes it as a string ("4"). */
function ours(id: unknown): number | undefined {
  const n = typeof id === "string" && /^\d$/.test(id) ? Number(id) : id;
  return Object.values(IDS).find((known) => known === n);
}

/** True for an update only a live turn sends (never a replay of history). */
function isLive(update: unknown): boolean {
  if (!isObject(update)) return false;
  const kind = str(update.sessionUpdate);
  if (kind === "available_commands_update") return true;
  if (kind !== "tool_call" && kind !== "tool_call_update") return false;
  const status = str(update.status);
  return status !== "completed" && status !== "failed";
}

/** What each stop reason but `end_turn` means, for the error it becomes. */
const STOP_REASONS: Readonly<Record<string, string>> = {
  cancelled: "the turn was cancelled",
  max_tokens: "the model reached its token limit",
  max_turn_requests: "the turn reached the agent's limit of model requests",
  refusal: "the agent refused to go on",
};

/** The request that sets `model` in a new session, or null when the session offers no choice. */
function modelSetting(body: Json, sessionId: string, model: string): string | null {
  if (isObject(body.models)) {
    return request(IDS.model, "session/set_model", { sessionId, modelId: model });
  }
  const options = Array.isArray(body.configOptions) ? body.configOptions.filter(isObject) : [];
  const option = options.find((o) => o.category === "model") ??
    options.find((o) => o.id === "model");
  const configId = option === undefined ? undefined : str(option.id);
  if (configId === undefined) return null;
  return request(IDS.model, "session/set_config_option", { sessionId, configId, value: model });
}

function heard(events: WorkerEvent[], say: string[] = [], over = false): Heard {
  return { events, say, over };
}
