/**
 * Scoring an eval answer exactly (pure): a definition scores 1 at the right `path:line` and 0.5
 * in the right file; a count scores 1 when exact; a list of files scores its F1 against the
 * truth, so every missed file lowers the recall and every invented one the precision.
 */
import type { Answered } from "./answer.ts";
import type { Truth } from "./questions.ts";

/** The F1 of a list against the truth (1 when both are empty). */
export function f1(answered: readonly string[], truth: readonly string[]): number {
  if (answered.length === 0 && truth.length === 0) return 1;
  const want = new Set(truth);
  const hits = new Set(answered.filter((f) => want.has(f))).size;
  if (hits === 0) return 0;
  const precision = hits / new Set(answered).size;
  const recall = hits / want.size;
  return (2 * precision * recall) / (precision + recall);
}

/** The score of an answer (0 without one or of another kind), from 0 to 1. */
export function scoreAnswer(answered: Answered | null, truth: Truth): number {
  if (answered === null || answered.kind !== truth.kind) return 0;
  if (answered.kind === "definition" && truth.kind === "definition") {
    if (answered.path !== truth.path) return 0;
    return answered.line === truth.line ? 1 : 0.5;
  }
  if (answered.kind === "count" && truth.kind === "count") {
    return answered.count === truth.count ? 1 : 0;
  }
  if (answered.kind === "files" && truth.kind === "files") return f1(answered.files, truth.files);
  return 0;
}
