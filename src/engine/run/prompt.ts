/**
 * The prompt a worker gets (the worker contract): what the mode lets it do, the rules every
 * worker keeps, an optional brief, the answer format, then the task. The texts are templates in
 * `prompts/` shipped inside the binary (text imports); this module only puts them together.
 *
 * The hook for plan tasks: a caller with a brief of its own (a plan step's implementer brief)
 * passes it as `brief`; it goes after the rules and before the answer format, so the contract
 * around it stays the same. `promptFor(record)` is where the engine picks the options for a run.
 */
import type { Mode } from "../../workers/types.ts";
import type { RunRecord } from "../../store/record.ts";
import readText from "./prompts/read.md" with { type: "text" };
import writeText from "./prompts/write.md" with { type: "text" };
import isolateText from "./prompts/isolate.md" with { type: "text" };
import webText from "./prompts/web.md" with { type: "text" };
import rulesText from "./prompts/rules.md" with { type: "text" };
import answerText from "./prompts/answer.md" with { type: "text" };
import followUpText from "./prompts/follow_up.md" with { type: "text" };

/** The templates, by name (the files of `prompts/`). */
export const PROMPT_TEMPLATES = {
  read: readText,
  write: writeText,
  isolate: isolateText,
  web: webText,
  rules: rulesText,
  answer: answerText,
  followUp: followUpText,
} as const;

/** Options of `buildPrompt`. */
export interface PromptOptions {
  /** The worker may fetch web pages (`--web`). @default false */
  web?: boolean;
  /** Text the worker should know before the task (a handover from an interrupted worker). */
  context?: string;
  /** A brief for a special kind of task (a plan step): after the rules, before the format. */
  brief?: string;
}

/** Builds the full prompt for a task. */
export function buildPrompt(task: string, mode: Mode, options: PromptOptions = {}): string {
  const parts = [PROMPT_TEMPLATES[mode]];
  if (options.web === true) parts.push(PROMPT_TEMPLATES.web);
  parts.push(PROMPT_TEMPLATES.rules);
  if (options.brief) parts.push(options.brief);
  parts.push(PROMPT_TEMPLATES.answer);
  if (options.context) parts.push(options.context);
  parts.push(`Task:\n${task}`);
  return parts.map((p) => p.trim()).join("\n\n");
}

/** The prompt of a follow-up in the worker's own session: a reminder, then the new task. */
export function buildFollowUp(task: string): string {
  return `${PROMPT_TEMPLATES.followUp.trim()}\n\nTask:\n${task}`;
}

/**
 * The prompt of a run (a follow-up gets its own wording; `context` and `brief` as in
 * `buildPrompt`). A kind of run with a brief of its own (a plan step) picks it here.
 */
export function promptFor(
  record: RunRecord,
  options: { context?: string; brief?: string } = {},
): string {
  if (record.continues !== undefined) return buildFollowUp(record.task);
  return buildPrompt(record.task, record.mode, {
    web: record.web,
    ...(options.context ? { context: options.context } : {}),
    ...(options.brief ? { brief: options.brief } : {}),
  });
}
