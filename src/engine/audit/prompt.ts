/**
 * The audit's prompts, templates shipped in the binary: `audit.md` (the auditor gets the
 * question and the answer to check) and `fix.md` (the answering worker gets the disputed claims
 * in its own session). `{{name}}` is filled in one pass, so a value holding `{{...}}` stays as is.
 * The verdict's shape stands in a ```text block: `deno fmt` reflows Markdown prose and would join
 * its lines (tests/engine/templates_test.ts parses the shape and fails on a template fmt changes).
 */
import auditTemplate from "./audit.md" with { type: "text" };
import fixTemplate from "./fix.md" with { type: "text" };

function fill(template: string, values: Record<string, string>): string {
  return template.replace(
    /\{\{(\w+)\}\}/g,
    (whole, name: string) => Object.hasOwn(values, name) ? values[name]! : whole,
  ).trimEnd();
}

/** The auditor's task for a question and its answer. */
export function auditPrompt(question: string, answer: string): string {
  return fill(auditTemplate, { question: question.trim(), answer: answer.trim() });
}

/** The correction round's task for the disputed claims. */
export function fixPrompt(disputed: readonly string[]): string {
  return fill(fixTemplate, { disputed: disputed.map((c) => `- ${c}`).join("\n") });
}
