/**
 * The questions file of `pitroom eval` (one zod schema: the type, the check and the published
 * JSON Schema) and its truths: each given literally, or computed with `git grep` in the
 * questions' directory when the eval starts (a definition: the one matching line; a count: the
 * number of matching lines; a list: the files with a match). A bad file is one usage error line
 * (exit 2) naming the file and the first problem.
 */
import type { HeldSys } from "../../store/state.ts";
import { z } from "zod/v4";
import { git } from "../../vcs/git.ts";
import { UsageError } from "../../sys/errors.ts";
import { dirname, resolve } from "../../sys/path.ts";
import { type Issue, questionProblem } from "./question_problem.ts";

const grep = z.object({
  grep: z.string().min(1).describe("an extended regular expression for `git grep -E`"),
  path: z.union([z.string(), z.array(z.string())]).optional()
    .describe("only these paths (git pathspecs, relative to dir)"),
  fixed: z.boolean().optional().describe("the pattern is a fixed string (`git grep -F`)"),
}).strict();

const base = {
  id: z.string().regex(/^[\w.-]+$/, "letters, digits, `.`, `_` or `-`"),
  question: z.string().min(1),
};

const QuestionSchema = z.discriminatedUnion("kind", [
  z.object({
    ...base,
    kind: z.literal("definition"),
    truth: z.union([z.string().regex(/^.+:\d+$/, "a path:line"), grep]),
  }).strict(),
  z.object({
    ...base,
    kind: z.literal("count"),
    truth: z.union([z.number().int().min(0), grep]),
  }).strict(),
  z.object({
    ...base,
    kind: z.literal("files"),
    truth: z.union([z.array(z.string().min(1)), grep]),
  }).strict(),
]);

/** The schema of a questions file. */
/** A path as compared: no `./`, no backticks or quotes, forward slashes, relative to `dir`. */
export function normalizePath(path: string, dir?: string): string {
  let p = path.trim().replace(/^[`'"(<]+|[`'")>,.;]+$/g, "").replace(/\\/g, "/");
  if (dir !== undefined && p.startsWith(`${dir.replace(/\/$/, "")}/`)) {
    p = p.slice(dir.replace(/\/$/, "").length + 1);
  }
  while (p.startsWith("./")) p = p.slice(2);
  return p.replace(/\/{2,}/g, "/");
}

export const QuestionsFileSchema = z.object({
  schemaVersion: z.literal(1).optional(),
  dir: z.string().optional().describe(
    "the directory the questions are about, relative to the file (default: the current one)",
  ),
  questions: z.array(QuestionSchema).min(1),
}).strict();

/** A questions file as written. */
export type QuestionsFile = z.infer<typeof QuestionsFileSchema>;
/** One question as written. */
export type Question = z.infer<typeof QuestionSchema>;
/** A question's kind. */
export type QuestionKind = Question["kind"];
export { QUESTION_KINDS } from "./kinds.ts";

/** A truth made concrete. */
export type Truth =
  | { kind: "definition"; path: string; line: number }
  | { kind: "count"; count: number }
  | { kind: "files"; files: string[] };

/** A question with its truth. */
export interface BoundQuestion {
  id: string;
  kind: QuestionKind;
  question: string;
  truth: Truth;
}

/** The JSON Schema of a questions file. */
export function questionsJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(QuestionsFileSchema) as Record<string, unknown>;
}

/** Checks a questions file's text; a bad one is one usage error line. */
export function parseQuestions(text: string, path: string): QuestionsFile {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `Questions file "${path}" is not JSON: ${error instanceof Error ? error.message : error}`,
    );
  }
  const parsed = QuestionsFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0] as Issue | undefined;
    throw new UsageError(
      `Questions file "${path}" is not valid: ${
        issue === undefined ? "the file" : questionProblem(raw, issue)
      }`,
    );
  }
  const seen = new Set<string>();
  for (const q of parsed.data.questions) {
    if (seen.has(q.id)) {
      throw new UsageError(`Questions file "${path}" is not valid: question id "${q.id}" twice`);
    }
    seen.add(q.id);
  }
  return parsed.data;
}

async function gitGrep(
  sys: HeldSys,
  dir: string,
  spec: z.infer<typeof grep>,
  mode: "-n" | "-c" | "-l",
): Promise<string[]> {
  const paths = spec.path === undefined ? [] : [spec.path].flat();
  const out = await git(sys, [
    "grep",
    "--no-color",
    "-I",
    mode,
    spec.fixed ? "-F" : "-E",
    "-e",
    spec.grep,
    "--",
    ...paths,
  ], { cwd: dir, okCodes: [0, 1] });
  return out.stdout.split("\n").filter((l) => l !== "");
}

/** A question's truth: the literal one, or what `git grep` finds in `dir` now. */
async function truthOf(sys: HeldSys, dir: string, q: Question, file: string): Promise<Truth> {
  const bad = (why: string) =>
    new UsageError(`Questions file "${file}": the truth of question "${q.id}" ${why}`);
  if (q.kind === "definition") {
    let place: string;
    if (typeof q.truth === "string") place = q.truth;
    else {
      const lines = await gitGrep(sys, dir, q.truth, "-n");
      if (lines.length !== 1) {
        throw bad(`matches ${lines.length} lines with git grep, not one`);
      }
      place = lines[0]!.split(":").slice(0, 2).join(":");
    }
    const m = /^(.+):(\d+)$/.exec(place)!;
    return { kind: "definition", path: normalizePath(m[1]!), line: Number(m[2]) };
  }
  if (q.kind === "count") {
    if (typeof q.truth === "number") return { kind: "count", count: q.truth };
    const lines = await gitGrep(sys, dir, q.truth, "-c");
    const count = lines.reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(":") + 1)), 0);
    return { kind: "count", count };
  }
  const files = Array.isArray(q.truth) ? q.truth : await gitGrep(sys, dir, q.truth, "-l");
  return { kind: "files", files: [...new Set(files.map((f) => normalizePath(f)))].sort() };
}

/** Reads a questions file and computes its truths; resolves with the directory asked about. */
export async function loadQuestions(
  sys: HeldSys,
  path: string,
): Promise<{ file: string; dir: string; questions: BoundQuestion[] }> {
  const file = resolve(sys.cwd(), path);
  let text: string;
  try {
    text = await Deno.readTextFile(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new UsageError(`Questions file "${path}" does not exist`);
    }
    throw error;
  }
  const parsed = parseQuestions(text, path);
  const dir = parsed.dir === undefined ? sys.cwd() : resolve(dirname(file), parsed.dir);
  try {
    if (!(await Deno.stat(dir)).isDirectory) throw new Deno.errors.NotFound(dir);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
    throw new UsageError(`Questions file "${path}": dir "${dir}" is not a directory`);
  }
  const questions: BoundQuestion[] = [];
  for (const q of parsed.questions) {
    questions.push({
      id: q.id,
      kind: q.kind,
      question: q.question,
      truth: await truthOf(sys, dir, q, path),
    });
  }
  return { file, dir, questions };
}
