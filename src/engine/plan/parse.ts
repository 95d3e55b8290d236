/**
 * A Markdown plan, parsed (pure): its title (the first `#` heading), the header (the text from the
 * title to the next heading), the Spec and Global Constraints sections, and the tasks (headings
 * `Task N: title` at any level; a task's body runs to the next heading of the same level or
 * higher). Headings inside fenced code are text. A task's tier comes from a `**Worker:** cheap`
 * line of its body.
 */

/** The tiers a plan task may name. */
export const PLAN_TIERS = ["cheap", "standard", "capable"] as const;
/** A tier a plan task names. */
export type PlanTier = typeof PLAN_TIERS[number];

/** One task of a plan. */
export interface PlanTask {
  /** The number in its heading. */
  step: number;
  title: string;
  /** The task's text, its heading included. */
  body: string;
  /** The tier of its `**Worker:**` line, when it has one. */
  tier?: PlanTier;
  /** The line of its heading (1-based). */
  line: number;
}

/** A parsed plan. */
export interface Plan {
  title: string;
  /** The text between the title and the next heading. */
  header: string;
  /** The Spec section's text (without its heading), or "". */
  spec: string;
  /** The Global Constraints section's text (without its heading), or "". */
  constraints: string;
  tasks: PlanTask[];
}

interface Heading {
  level: number;
  text: string;
  /** Index of its line. */
  at: number;
}

const HEADING = /^(#{1,6})\s+(.*?)\s*#*\s*$/;
const FENCE = /^\s{0,3}(`{3,}|~{3,})/;
const TASK = /^task\s+(\d+)\s*(?::|\.|—|–|-)\s*(.*)$/i;
const WORKER = /^\s*(?:[-*]\s*)?\*\*Worker:?\*\*:?\s*\**\s*([a-z]+)/im;

/** The headings of a Markdown text, skipping fenced code. */
function headingsOf(lines: readonly string[]): Heading[] {
  const out: Heading[] = [];
  let fence: string | null = null;
  for (const [at, line] of lines.entries()) {
    const opened = FENCE.exec(line);
    if (fence !== null) {
      if (opened && opened[1]![0] === fence[0] && opened[1]!.length >= fence.length) fence = null;
      continue;
    }
    if (opened) {
      fence = opened[1]!;
      continue;
    }
    const h = HEADING.exec(line);
    if (h) out.push({ level: h[1]!.length, text: h[2]!.replace(/\*\*/g, "").trim(), at });
  }
  return out;
}

/** The lines of a section: after its heading up to the next heading of its level or higher. */
function sectionOf(lines: readonly string[], headings: readonly Heading[], i: number): string[] {
  const h = headings[i]!;
  const next = headings.slice(i + 1).find((n) => n.level <= h.level);
  return lines.slice(h.at, next?.at ?? lines.length);
}

function findSection(lines: readonly string[], headings: readonly Heading[], name: RegExp): string {
  const i = headings.findIndex((h) => name.test(h.text));
  if (i < 0) return "";
  return sectionOf(lines, headings, i).slice(1).join("\n").trim();
}

/** The tier a task's body names, when it names one of the plan tiers. */
export function tierOf(body: string): PlanTier | undefined {
  const m = WORKER.exec(body);
  const name = m?.[1]?.toLowerCase();
  return (PLAN_TIERS as readonly string[]).includes(name ?? "") ? name as PlanTier : undefined;
}

/** Parses a plan's Markdown text. */
export function parsePlan(text: string): Plan {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  const headings = headingsOf(lines);
  const titleHeading = headings.find((h) => h.level === 1) ?? headings[0];
  const title = titleHeading?.text ?? "";
  const afterTitle = titleHeading === undefined ? 0 : titleHeading.at + 1;
  const nextHeading = headings.find((h) => h.at >= afterTitle);
  const header = lines.slice(afterTitle, nextHeading?.at ?? lines.length).join("\n").trim();
  const tasks: PlanTask[] = [];
  for (const [i, h] of headings.entries()) {
    const m = TASK.exec(h.text);
    if (!m) continue;
    const body = sectionOf(lines, headings, i).join("\n").trim();
    const tier = tierOf(body);
    tasks.push({
      step: Number(m[1]),
      title: m[2]!.trim(),
      body,
      line: h.at + 1,
      ...(tier === undefined ? {} : { tier }),
    });
  }
  return {
    title,
    header,
    spec: findSection(lines, headings, /^spec(ification)?\b/i),
    constraints: findSection(lines, headings, /^global constraints\b/i),
    tasks,
  };
}
