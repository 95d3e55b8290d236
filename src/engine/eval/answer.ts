/**
 * What an eval asks a worker to end with, and reading it back (pure): the last `ANSWER:` line
 * holds a `path:line` (a definition), a number (a count), or starts a list of files (given on
 * the line, comma-separated, or as `- path` lines under it). A reply without one is a failure,
 * scored 0.
 */
import { normalizePath, type QuestionKind } from "./questions.ts";

/** What a reply answered. */
export type Answered =
  | { kind: "definition"; path: string; line: number }
  | { kind: "count"; count: number }
  | { kind: "files"; files: string[] };

const FORMAT: Record<QuestionKind, string> = {
  definition:
    "End your reply with one line `ANSWER: path:line` naming the line where it is defined (the path relative to the current directory).",
  count:
    "Count exactly, searching the whole scope, and say how you counted. End your reply with one line `ANSWER: N`, the number.",
  files:
    "Search the whole tree. End your reply with a line `ANSWER:` followed by every file, one per line as `- path` (relative to the current directory); list no file you did not see.",
};

/** The task an eval gives a worker: the question and the answer format its kind needs. */
export function evalTask(question: string, kind: QuestionKind): string {
  return `${question.trim()}\n\n${FORMAT[kind]}`;
}

const ANSWER_LINE = /^[\s*_>`-]*ANSWER[*_`]*\s*:\s*(.*)$/i;
const ITEM = /^\s*(?:[-*•]|\d+[.)])\s+(.+)$/;

/** Reads the reply's last `ANSWER:` line for a question of `kind`; null when there is none. */
export function parseAnswered(text: string, kind: QuestionKind, dir?: string): Answered | null {
  const lines = text.split(/\r?\n/);
  const at = lines.findLastIndex((l) => ANSWER_LINE.test(l));
  if (at < 0) return null;
  const rest = ANSWER_LINE.exec(lines[at]!)![1]!.replace(/[*_`]+$/, "").trim();
  if (kind === "definition") {
    const m = /([^\s`'"()<>,]+):(\d+)/.exec(rest);
    return m ? { kind, path: normalizePath(m[1]!, dir), line: Number(m[2]) } : null;
  }
  if (kind === "count") {
    const m = /-?\d[\d,]*/.exec(rest.replace(/`/g, ""));
    return m ? { kind, count: Number(m[0].replace(/,/g, "")) } : null;
  }
  const files: string[] = [];
  if (rest !== "") files.push(...rest.split(/[,\s]+/));
  for (const line of lines.slice(at + 1)) {
    if (line.trim() === "") {
      if (files.length > 0) break;
      continue;
    }
    const item = ITEM.exec(line);
    if (!item) break;
    files.push(item[1]!.split(/\s+/)[0]!);
  }
  const clean = files.map((f) => normalizePath(f, dir).replace(/:\d+(-\d+)?$/, "")).filter(Boolean);
  return { kind, files: [...new Set(clean)].sort() };
}
