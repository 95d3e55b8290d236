/**
 * The prompt a worker gets: Pitroom's rules for the mode, then the task.
 */
import type { Mode } from "../workers/types.ts";

const RULES: Record<Mode, string> = {
  read: [
    "You are a worker answering a question about the code in the current directory.",
    "Read and search as much as you need. Do not change, create or delete any file:",
    "this run is read-only and any change is detected and undone.",
    "Cite the places you rely on as path:line. End with a concise, complete answer.",
  ].join(" "),
  write: [
    "You are a worker making a change in the current directory.",
    "Edit only what the task needs. Do not commit, push, switch branches, stash or",
    "rewrite git history. End with a short summary of what you changed and why.",
  ].join(" "),
  isolate: [
    "You are a worker making a change in a private copy of the project.",
    "Edit only what the task needs. Do not commit, push, switch branches, stash or",
    "rewrite git history. End with a short summary of what you changed and why.",
  ].join(" "),
};

/** Builds the full prompt for a task. */
export function buildPrompt(task: string, mode: Mode, options: { context?: string } = {}): string {
  const parts = [RULES[mode]];
  if (options.context) parts.push(options.context);
  parts.push(`Task:\n${task}`);
  return parts.join("\n\n");
}
