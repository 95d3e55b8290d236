/**
 * Evidence checks: claims in an answer that the run's own record or the tree contradict, each a
 * flagged finding in the report rather than a silent pass. A read answer given without a single
 * tool call; a file or test the answer names that does not exist (or that it says it changed
 * and the run did not); a count the answer states ("3 files contain `foo`", "`foo` appears 5
 * times") that `git grep` over the cited scope contradicts. Conservative on purpose: a count is
 * only checked in those clear forms with a quoted or backticked string, and it stands when any
 * fair reading (matches or matching lines, case-sensitive or not) agrees.
 */
import type { ParsedAnswer } from "./format.ts";
import { normalizePath, onDisk, type RefTree, resolvePath } from "./refs.ts";
import { MODES } from "../../workers/modes.ts";
import type { Mode } from "../../workers/types.ts";

/** The kinds of flags. */
export const EVIDENCE_KINDS = [
  "no_tool_calls",
  "missing_file",
  "not_changed",
  "count_mismatch",
] as const;
/** A kind of flag. */
export type EvidenceKind = typeof EVIDENCE_KINDS[number];

/** One flagged finding. */
export interface EvidenceFlag {
  kind: EvidenceKind;
  message: string;
}

/** A count of a string as `git grep` gives it. */
export interface Counted {
  occurrences: number;
  lines: number;
  files: number;
}

/** What the checks read. */
export interface EvidenceInput {
  answer: string;
  parsed: ParsedAnswer;
  mode: Mode;
  /** Tool calls the worker made. */
  tools: number;
  /** Files were attached to the task (their contents were in the prompt). */
  attached: boolean;
  /** The files the run changed (repository-relative); empty for a read run. */
  changed: readonly string[];
  /** The tree; with `read`, ignored files on disk count as existing too. */
  tree: Pick<RefTree, "files" | "cwd" | "roots"> & { read?: RefTree["read"] };
  /** Counts a fixed string under a repository-relative scope ("" for the root). */
  count(text: string, scope: string, options: { ignoreCase: boolean }): Promise<Counted>;
}

const PATH_TOKEN = /^(?:\.{1,2}\/)?[\w@+~.\-]+(?:\/[\w@+~.\-]+)*\/?$/;
const EXT = /\.[A-Za-z][\w]{0,9}$/;

/** Tokens of a text that name a path: backticked words with a slash (or, in lists, a file). */
function pathTokens(text: string, loose: boolean): string[] {
  const out: string[] = [];
  const spans = [...text.matchAll(/`([^`\n]+)`/g)].map((m) => m[1]!);
  const words = loose ? [...spans, ...text.split(/[\s,;()]+/)] : spans;
  for (const span of words) {
    for (const raw of span.split(/\s+/)) {
      const token = raw.replace(/^[`'"(]+|[`'",;:).]+$/g, "");
      if (token === "" || token.startsWith("-") || /:\d|#L\d|:\/\//.test(raw)) continue;
      if (!PATH_TOKEN.test(token) || !/[A-Za-z]/.test(token)) continue;
      const base = token.replace(/\/$/, "").split("/").at(-1) ?? "";
      const fileLike = EXT.test(base);
      if (token.includes("/") ? (fileLike || token.endsWith("/")) : loose && fileLike) {
        out.push(token);
      }
    }
  }
  return [...new Set(out)];
}

async function exists(
  token: string,
  tree: EvidenceInput["tree"],
  fileSet: ReadonlySet<string>,
): Promise<boolean> {
  if (token.startsWith("/") && !tree.roots.some((r) => token.startsWith(`${r}/`))) return true;
  const file = resolvePath(token.replace(/\/$/, ""), tree, fileSet);
  if ("path" in file) return true;
  if (file.reason.startsWith("ambiguous")) return true;
  if ((await onDisk(token.replace(/\/$/, ""), tree)) !== null) return true;
  // A folder: some file lies under it (relative to the worker's folder or the root).
  const dir = token.replace(/\/+$/, "");
  const bases = [tree.cwd === "" ? dir : `${tree.cwd}/${dir}`, dir];
  return bases.some((b) => {
    const normal = normalizePath(b);
    return normal !== null && tree.files.some((f) => f.startsWith(`${normal}/`));
  });
}

/**
 * True when a path names a place in the tree: absolute in one of its roots, or relative with a
 * first folder the tree has (`docs/x.md` when there is a `docs/`), or a plain file name. An
 * import specifier (`@scope/pkg/x.js`) or a path elsewhere (`~/.config/x.json`) is not a claim
 * about the tree.
 */
function claimsTree(token: string, tree: EvidenceInput["tree"]): boolean {
  if (token.startsWith("/")) return tree.roots.some((r) => token.startsWith(`${r}/`));
  const clean = token.replace(/^(\.\/)+/, "");
  if (clean.startsWith("../") || !clean.includes("/")) return true;
  const first = clean.split("/")[0]!;
  const bases = [tree.cwd === "" ? first : `${tree.cwd}/${first}`, first];
  return bases.some((b) => tree.files.some((f) => f.startsWith(`${b}/`)));
}

async function missingFiles(input: EvidenceInput): Promise<EvidenceFlag[]> {
  const fileSet = new Set(input.tree.files);
  const flags: EvidenceFlag[] = [];
  const changed = new Set(input.changed);
  const claimed = input.parsed.filesChanged.flatMap((item) => pathTokens(item, true).slice(0, 1));
  for (const token of claimed) {
    const resolved = resolvePath(token, input.tree, fileSet);
    const path = "path" in resolved ? resolved.path : normalizePath(
      input.tree.cwd === "" ? token : `${input.tree.cwd}/${token}`,
    );
    if (path !== null && changed.has(path)) continue;
    if ([...changed].some((c) => c === token || c.endsWith(`/${token}`))) continue;
    flags.push({
      kind: "not_changed",
      message: `The answer says it changed \`${token}\`, but the run changed no such file`,
    });
  }
  const named = new Set([
    ...pathTokens(input.answer, false),
    ...input.parsed.verified.flatMap((item) => pathTokens(item, true)),
  ]);
  for (const token of named) {
    if (claimed.includes(token) || !claimsTree(token, input.tree)) continue;
    if (await exists(token, input.tree, fileSet)) continue;
    if ([...changed].some((c) => c === token || c.endsWith(`/${token}`))) continue;
    flags.push({
      kind: "missing_file",
      message: `The answer names \`${token}\`, which does not exist in the tree`,
    });
  }
  return flags;
}

/** A count an answer states: the number, what it counts, the string, and the scope it names. */
interface CountClaim {
  n: number;
  unit: "occurrences" | "files";
  text: string;
  scope?: string;
  said: string;
}

const Q = String.raw`[\`"'“]([^\`"'”\n]{1,200})[\`"'”]`;
const SCOPE = String
  .raw`(?:\s+(?:in|under|within|across)\s+[\`"']?((?:\.{1,2}/)?[\w@+~.\-]+(?:/[\w@+~.\-]*)*)[\`"']?)?`;
const COUNT_FORMS: ReadonlyArray<[RegExp, "occurrences" | "files", "nText" | "textN"]> = [
  [
    new RegExp(
      String
        .raw`\b(\d+)\s+(?:occurrences?|matches|match(?:es)?|uses|usages|calls|call sites|references|hits|instances)\s+(?:of|to)\s+${Q}${SCOPE}`,
      "gi",
    ),
    "occurrences",
    "nText",
  ],
  [
    new RegExp(
      String
        .raw`\b(\d+)\s+files?\s+(?:that\s+)?(?:contain|contains|containing|use|uses|using|reference|references|referencing|match|matching|mention|mentions|mentioning|import|imports|importing|call|calls|calling|with)\s+${Q}${SCOPE}`,
      "gi",
    ),
    "files",
    "nText",
  ],
  [
    new RegExp(
      String
        .raw`${Q}\s+(?:appears|occurs|is used|is called|is referenced|is found|is mentioned|shows up)\s+(\d+)\s+times${SCOPE}`,
      "gi",
    ),
    "occurrences",
    "textN",
  ],
  [
    new RegExp(
      String
        .raw`${Q}\s+(?:appears|occurs|is used|is called|is referenced|is found|is mentioned|is imported)\s+in\s+(\d+)\s+files?${SCOPE}`,
      "gi",
    ),
    "files",
    "textN",
  ],
];

/** The counts an answer states in one of the clear forms (pure). */
export function countClaims(answer: string): CountClaim[] {
  const claims: CountClaim[] = [];
  for (const [pattern, unit, order] of COUNT_FORMS) {
    for (const m of answer.matchAll(pattern)) {
      const [n, text] = order === "nText" ? [m[1]!, m[2]!] : [m[2]!, m[1]!];
      // A pattern with regex syntax was searched as a pattern: not comparable to a fixed string.
      if (/[\\|*+?[\]{}^$]/.test(text) || /\.\*/.test(text)) continue;
      claims.push({
        n: Number(n),
        unit,
        text,
        // The sentence's full stop is not part of the scope ("in src/." is `src`).
        ...(m[3] === undefined ? {} : { scope: m[3].replace(/[./]+$/, "") }),
        said: m[0].trim().replace(/[.,;:]+$/, ""),
      });
    }
  }
  return claims;
}

async function countFlags(input: EvidenceInput): Promise<EvidenceFlag[]> {
  const flags: EvidenceFlag[] = [];
  const fileSet = new Set(input.tree.files);
  for (const claim of countClaims(input.answer)) {
    let scope = input.tree.cwd;
    if (claim.scope !== undefined) {
      const inCwd = normalizePath(
        input.tree.cwd === "" ? claim.scope : `${input.tree.cwd}/${claim.scope}`,
      );
      const asRoot = normalizePath(claim.scope);
      const under = (p: string | null) =>
        p !== null && (fileSet.has(p) || input.tree.files.some((f) => f.startsWith(`${p}/`)));
      // A scope that is not a path of the tree ("in the codebase") leaves the worker's folder.
      if (under(inCwd)) scope = inCwd!;
      else if (under(asRoot)) scope = asRoot!;
    }
    const exact = await input.count(claim.text, scope, { ignoreCase: false });
    const loose = await input.count(claim.text, scope, { ignoreCase: true });
    const fair = claim.unit === "files"
      ? [exact.files, loose.files]
      : [exact.occurrences, exact.lines, loose.occurrences, loose.lines];
    if (fair.includes(claim.n)) continue;
    const where = scope === "" ? "the tree" : `\`${scope}\``;
    const found = claim.unit === "files"
      ? `${exact.files} file(s)`
      : `${exact.occurrences} occurrence(s) in ${exact.files} file(s)`;
    flags.push({
      kind: "count_mismatch",
      message: `The answer says "${claim.said}"; git grep finds ${found} in ${where}`,
    });
  }
  return flags;
}

/** True when an answer names files or states counts: checking it needs the tree's files. */
export function mentionsFiles(answer: string, parsed: ParsedAnswer): boolean {
  return parsed.filesChanged.length > 0 || pathTokens(answer, false).length > 0 ||
    parsed.verified.some((item) => pathTokens(item, true).length > 0) ||
    countClaims(answer).length > 0;
}

/** Runs every evidence check on an answer. */
export async function checkEvidence(input: EvidenceInput): Promise<EvidenceFlag[]> {
  const flags: EvidenceFlag[] = [];
  if (
    MODES[input.mode].answerOnly && input.tools === 0 && !input.attached &&
    input.answer.trim() !== ""
  ) {
    flags.push({
      kind: "no_tool_calls",
      message: "The worker answered without a single tool call: it read nothing in the tree",
    });
  }
  flags.push(...await missingFiles(input));
  flags.push(...await countFlags(input));
  return flags;
}
