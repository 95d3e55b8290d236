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

/**
 * Applies one event to the gathered state. Every event changes progress: its time is the
 * worker's latest sign of life (`at`, which a stall is counted from, engine/core/stall.ts).
 */
export function gather(state: Gathered, ev: WorkerEvent): void {
  const p = state.progress;
  p.at = Math.max(p.at ?? 0, ev.time);
  switch (ev.type) {
    case "worker.step":
      p.steps++;
      return;
    case "worker.tool_call":
      p.tools++;
      // Every backend reports a refusal as one tool call with status "denied" (and one
      // `worker.denied` with the message), so refusals are counted here, once.
      if (ev.status === "denied") p.denied = (p.denied ?? 0) + 1;
      p.last = `${ev.kind} ${ev.target}`.trim();
      return;
    case "worker.tokens":
      p.tokens.input += ev.input;
      p.tokens.output += ev.output;
      p.tokens.cached += ev.cached;
      p.tokens.reasoning += ev.reasoning;
      if (ev.cost !== undefined) p.cost = (p.cost ?? 0) + ev.cost;
      return;
    case "worker.answer":
      state.answer = ev.text;
      return;
    case "worker.text":
      state.texts.push(ev.text);
      return;
    case "worker.session":
      state.sessionId = ev.sessionId;
      return;
    default:
      return;
  }
}
