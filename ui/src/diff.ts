/**
 * Unified diffs for the page (pure): a patch split into files, hunks and lines, each line with its
 * old and new line numbers and its tokens, highlighted as the file it belongs to (each side keeps
 * its own state, so a comment opened in a removed line does not colour the added ones).
 */
import {
  highlightLine,
  type Language,
  languageOf,
  type LineState,
  type Token,
} from "./highlight/mod.ts";

/** One line of a hunk. */
export interface DiffLine {
  kind: "add" | "del" | "ctx" | "note";
  old: number | null;
  new: number | null;
  tokens: Token[];
}

/** One hunk: its header and lines. */
export interface DiffHunk {
  header: string;
  lines: DiffLine[];
}

/** One file of a patch. */
export interface DiffFile {
  path: string;
  oldPath: string | null;
  status: "added" | "deleted" | "modified" | "renamed";
  binary: boolean;
  language: Language | null;
  added: number;
  removed: number;
  hunks: DiffHunk[];
}

const HUNK = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@(.*)$/;

function unquote(path: string): string {
  return path.replace(/^"(.*)"$/, "$1").replace(/^[ab]\//, "");
}

/** Parses a unified diff (as `git diff` writes it). */
export function parseDiff(patch: string): DiffFile[] {
  const files: DiffFile[] = [];
  let file: DiffFile | null = null;
  let hunk: DiffHunk | null = null;
  let oldNo = 0;
  let newNo = 0;
  let oldState: LineState = null;
  let newState: LineState = null;
  const lines = patch.split("\n");
  if (lines.at(-1) === "") lines.pop();
  for (const line of lines) {
    if (line.startsWith("diff --git ")) {
      const m = /^diff --git (\S+|"[^"]*") (\S+|"[^"]*")$/.exec(line);
      const path = m ? unquote(m[2]!) : line.slice(11);
      file = {
        path,
        oldPath: null,
        status: "modified",
        binary: false,
        language: languageOf(path),
        added: 0,
        removed: 0,
        hunks: [],
      };
      files.push(file);
      hunk = null;
      continue;
    }
    if (file === null) continue;
    if (hunk === null || !/^[ +\-\\]/.test(line)) {
      const h = HUNK.exec(line);
      if (h) {
        hunk = { header: line, lines: [] };
        file.hunks.push(hunk);
        oldNo = Number(h[1]);
        newNo = Number(h[2]);
        oldState = null;
        newState = null;
      } else if (line.startsWith("new file")) file.status = "added";
      else if (line.startsWith("deleted file")) file.status = "deleted";
      else if (line.startsWith("rename from ")) {
        file.status = "renamed";
        file.oldPath = line.slice(12);
      } else if (line.startsWith("Binary files") || line.startsWith("GIT binary patch")) {
        file.binary = true;
      } else if (line.startsWith("+++ ") && line !== "+++ /dev/null") {
        file.path = unquote(line.slice(4));
        file.language = languageOf(file.path);
      }
      continue;
    }
    const mark = line[0];
    const text = line.slice(1);
    if (mark === "\\") {
      hunk.lines.push({ kind: "note", old: null, new: null, tokens: [{ cls: "c", text: line }] });
    } else if (mark === "+") {
      const r = highlightLine(file.language, text, newState);
      newState = r.state;
      hunk.lines.push({ kind: "add", old: null, new: newNo++, tokens: r.tokens });
      file.added++;
    } else if (mark === "-") {
      const r = highlightLine(file.language, text, oldState);
      oldState = r.state;
      hunk.lines.push({ kind: "del", old: oldNo++, new: null, tokens: r.tokens });
      file.removed++;
    } else {
      const r = highlightLine(file.language, text, newState);
      newState = r.state;
      oldState = highlightLine(file.language, text, oldState).state;
      hunk.lines.push({ kind: "ctx", old: oldNo++, new: newNo++, tokens: r.tokens });
    }
  }
  return files;
}
