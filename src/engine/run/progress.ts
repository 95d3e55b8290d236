/**
 * Folds worker events into a run's progress and answer (pure).
 */
import type { WorkerEvent } from "../../events/mod.ts";
import type { Progress } from "../../store/record.ts";

/** What an attempt has gathered so far. */
export interface Gathered {
  progress: Progress;
  answer?: string;
  sessionId?: string;
  /** Texts in order, for an answer when the CLI marks none. */
  texts: string[];
}

/** Applies one event to the gathered state; returns true when progress changed. */
export function gather(state: Gathered, ev: WorkerEvent): boolean {
  const p = state.progress;
  switch (ev.type) {
    case "worker.step":
      p.steps++;
      return true;
    case "worker.tool_call":
      p.tools++;
      // Every backend reports a refusal as one tool call with status "denied" (and one
      // `worker.denied` with the message), so refusals are counted here, once.
      if (ev.status === "denied") p.denied = (p.denied ?? 0) + 1;
      p.last = `${ev.kind} ${ev.target}`.trim();
      return true;
    case "worker.tokens":
      p.tokens.input += ev.input;
      p.tokens.output += ev.output;
      p.tokens.cached += ev.cached;
      p.tokens.reasoning += ev.reasoning;
      if (ev.cost !== undefined) p.cost = (p.cost ?? 0) + ev.cost;
      return true;
    case "worker.answer":
      state.answer = ev.text;
      return false;
    case "worker.text":
      state.texts.push(ev.text);
      return false;
    case "worker.session":
      state.sessionId = ev.sessionId;
      return false;
    default:
      return false;
  }
}
