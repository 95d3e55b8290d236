/**
 * Every prompt template that shows a model an output format round-trips: the example it shows,
 * rendered as the model gets it, with one of its alternatives picked (`PASS | FAIL`), is read by
 * the parser that reads the model's reply, to the verdict picked; the shape copied without a pick
 * is never read as a verdict. And no template is one the formatter would change: `deno fmt`
 * (which reflows Markdown) once joined `AUDIT:` and `DISPUTED:` into one line of audit.md, and a
 * real model that copied it failed to parse.
 */
import assert from "node:assert/strict";
import { basename, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { buildFollowUp, buildPrompt, PROMPT_TEMPLATES } from "../../src/engine/run/prompt.ts";
import { parseAnswer } from "../../src/engine/answer/format.ts";
import { parseImplementerReport } from "../../src/engine/plan/status_line.ts";
import { parseVerdict } from "../../src/engine/review/verdict.ts";
import { auditPrompt, fixPrompt } from "../../src/engine/audit/prompt.ts";
import { parseAudit } from "../../src/engine/audit/verdict.ts";
import { fill, TEMPLATE_DIR, TEMPLATES } from "../../src/engine/plan/templates.ts";
import { tempDir } from "../support/temp.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** The lines of the one ` ```text ` block of a rendered prompt: the shape it shows. */
function shapeOf(prompt: string, what: string): string[] {
  const blocks = [...prompt.matchAll(/^```text\n([\s\S]*?)\n```$/gm)];
  assert.equal(blocks.length, 1, `${what} shows its format in one \`\`\`text block`);
  return blocks[0]![1]!.split("\n");
}

/** The alternatives of a shape line (`SPEC: PASS | FAIL`, `[Critical|Important|Minor]`). */
const CHOICE = /\[(\w+(?:\|\w+)+)\]|\b([A-Z][A-Z_-]+(?: \| [A-Z][A-Z_-]+)+)/;

function choicesOf(line: string): string[] | null {
  const m = CHOICE.exec(line);
  return m === null ? null : (m[1] ?? m[2]!).split(/ ?\| ?/);
}

/** The shape with the alternative `pick(choices)` taken on every line that offers some. */
function picked(shape: readonly string[], pick: (choices: string[]) => string): string {
  return shape.map((line) => {
    const choices = choicesOf(line);
    if (choices === null) return line;
    return line.replace(
      CHOICE,
      (_whole, bracket) => bracket ? `[${pick(choices)}]` : pick(choices),
    );
  }).join("\n");
}

/** The choices a shape offers on the line that starts with `label`. */
function offered(shape: readonly string[], label: string): string[] {
  const line = shape.find((l) => l.startsWith(label));
  assert.ok(line, `the shape has a ${label} line`);
  return choicesOf(line) ?? [];
}

Deno.test("audit.md: each verdict of the shape it shows, one per line, is read by parseAudit()", () => {
  const prompt = auditPrompt("Where is the retry limit set?", "In src/net.ts:12, as 3.");
  const shape = shapeOf(prompt, "audit.md");
  assert.deepEqual(shape.slice(0, 2).map((l) => l.replace(/:.*/, ":")), ["AUDIT:", "DISPUTED:"]);
  assert.deepEqual(offered(shape, "AUDIT:"), ["AGREE", "PARTLY", "DISAGREE"]);
  const claims = shape.slice(2).map((l) => l.replace(/^- /, ""));
  assert.equal(claims.length, 1);
  for (const verdict of ["PARTLY", "DISAGREE"]) {
    const reply = picked(shape, () => verdict);
    assert.deepEqual(parseAudit(reply), { ok: true, verdict, disputed: claims }, reply);
    // A model that keeps the fence, or writes something before it, is read the same.
    const fenced = `I checked src/net.ts.\n\n\`\`\`text\n${reply}\n\`\`\``;
    assert.deepEqual(parseAudit(fenced), { ok: true, verdict, disputed: claims }, fenced);
  }
  // AGREE: the prompt says to write `DISPUTED: none` then.
  assert.match(prompt, /AGREE means every claim holds: write\s+`DISPUTED: none` then/);
  const agree = [picked(shape.slice(0, 1), () => "AGREE"), "DISPUTED: none"].join("\n");
  assert.deepEqual(parseAudit(agree), { ok: true, verdict: "AGREE", disputed: [] });
  // The shape copied without a pick is no verdict (never an AGREE); nor is the reflowed one.
  const copied = parseAudit(shape.join("\n"));
  assert.equal(copied.ok, false);
  assert.match(copied.ok ? "" : copied.message, /names no verdict/);
  assert.equal(parseAudit("AUDIT: PARTLY DISPUTED:\n- a claim").ok, false);
});

Deno.test("fix.md: the disputed claims parseAudit() read go back one per line, in the session's answer format", () => {
  const reply = [
    "AUDIT: DISAGREE",
    "DISPUTED:",
    "- src/net.ts:12 — the limit is 5, not 3",
    "- src/net.ts:30 — could not confirm `retry()`",
    "  is called twice",
  ].join("\n");
  const audit = parseAudit(reply);
  assert.ok(audit.ok);
  const prompt = buildFollowUp(fixPrompt(audit.disputed));
  const listed = prompt.split("\n").filter((l) => l.startsWith("- ")).map((l) => l.slice(2));
  assert.deepEqual(listed, audit.disputed);
  assert.deepEqual(listed, [
    "src/net.ts:12 — the limit is 5, not 3",
    "src/net.ts:30 — could not confirm `retry()` is called twice",
  ]);
  // The follow-up names the sections of the answer format, in its order; parseAnswer knows them.
  const headings = [...PROMPT_TEMPLATES.answer.matchAll(/^## (.+)$/gm)].map((m) => m[1]!);
  const named = /answer in the same format \(([^)]+)\)/.exec(prompt.replace(/\s+/g, " "));
  assert.ok(named, prompt);
  assert.deepEqual(named[1]!.split(", "), headings);
});

Deno.test("answer.md: the format every worker prompt shows is read by parseAnswer(), every section", () => {
  for (const mode of ["read", "write", "isolate"] as const) {
    const prompt = buildPrompt("Where is X?", mode);
    const start = prompt.indexOf("Answer in this format, with these headings, in this order:");
    const end = prompt.indexOf("Cite files by their path");
    assert.ok(start >= 0 && end > start, prompt);
    const shape = prompt.slice(start, end).split("\n").slice(1).join("\n").trim();
    const parsed = parseAnswer(shape);
    assert.equal(parsed.formatted, true);
    assert.equal(parsed.summary, "One to three sentences that answer the task.");
    assert.equal(parsed.preamble, undefined, "nothing of the shape falls outside a section");
    assert.deepEqual(parsed.findings.map((f) => f.text), [
      "`path:line` - what is there (one line each; cite a range as `path:10-20`)",
    ]);
    assert.deepEqual(parsed.filesChanged, ['`path` - what you changed (or "none")']);
    assert.deepEqual(parsed.verified, [
      "what you checked and how (the command, search or test you ran)",
    ]);
    assert.deepEqual(parsed.openIssues, [
      'what is left open, assumed or not checked (or "none")',
    ]);
  }
});

const REVIEWERS = ["task-reviewer", "fix-reviewer", "branch-reviewer"] as const;

Deno.test("the reviewer templates: each SPEC and QUALITY the shape offers is read by parseVerdict()", () => {
  for (const name of REVIEWERS) {
    const prompt = fill(name, { package: "## Diff\n\n```diff\n+x\n```" });
    const shape = shapeOf(prompt, name);
    const specs = offered(shape, "SPEC:");
    const qualities = offered(shape, "QUALITY:");
    assert.deepEqual(specs, ["PASS", "FAIL"], name);
    assert.deepEqual(qualities, ["APPROVED", "NEEDS-FIXES"], name);
    const cannot = shape.slice(shape.indexOf("CANNOT VERIFY:") + 1).map((l) => l.slice(2));
    for (const spec of specs) {
      for (const quality of qualities) {
        for (const severity of ["Critical", "Important", "Minor"]) {
          const reply = picked(
            shape,
            (choices) =>
              choices.includes(spec)
                ? spec
                : choices.includes(quality)
                ? quality
                : choices.includes(severity)
                ? severity
                : choices[0]!,
          );
          const verdict = parseVerdict(reply);
          assert.equal(verdict.complete, true, `${name}:\n${reply}`);
          assert.equal(verdict.spec, spec, name);
          assert.equal(verdict.quality, quality, name);
          // Every finding bullet of the shape is one finding, of the severity it names.
          const bullets = reply.split("\n").slice(
            reply.split("\n").indexOf("FINDINGS:") + 1,
            reply.split("\n").indexOf("CANNOT VERIFY:"),
          );
          assert.deepEqual(
            verdict.findings.map((f) => f.severity),
            bullets.map((b) => /^- \[(\w+)\]/.exec(b)![1]),
            `${name}:\n${reply}`,
          );
          assert.deepEqual(verdict.cannotVerify, cannot, name);
          const fenced = parseVerdict(`\`\`\`text\n${reply}\n\`\`\`\n\nThat is all.`);
          assert.deepEqual(fenced, verdict, `${name}, kept in its fence`);
        }
      }
    }
    // The shape copied as it stands is incomplete: a failed review, never a pass.
    assert.equal(parseVerdict(shape.join("\n")).complete, false, name);
  }
});

Deno.test("implementer.md: each STATUS the brief's shape offers is read by parseImplementerReport()", () => {
  const brief = fill("implementer", { step: "1", task_count: "2", task_body: "Add x." });
  const prompt = buildPrompt("Implement task 1 of the plan", "isolate", { brief });
  const shape = shapeOf(prompt, "implementer.md");
  const statuses = offered(shape, "STATUS:");
  assert.deepEqual(statuses, ["DONE", "DONE_WITH_CONCERNS", "NEEDS_CONTEXT", "BLOCKED"]);
  const issues = shape.slice(shape.indexOf("OPEN ISSUES:") + 1).map((l) => l.slice(2));
  assert.equal(issues.length, 1);
  for (const status of statuses) {
    const reply = picked(shape, () => status);
    assert.deepEqual(parseImplementerReport(reply), { status, openIssues: issues }, reply);
    // A model that keeps the fence is read the same (the fence is not part of the last item).
    const fenced = `\`\`\`text\n${reply}\n\`\`\`\n\nThat is all.`;
    assert.deepEqual(parseImplementerReport(fenced), { status, openIssues: issues }, fenced);
    // The whole reply the prompt asks for: the answer format, then these lines.
    const whole = [
      "## Summary",
      "",
      "Added x.",
      "",
      "## Files changed",
      "",
      "- `src/x.ts` - added x",
      "",
      reply,
    ].join("\n");
    assert.equal(parseImplementerReport(whole).status, status, whole);
    assert.equal(parseAnswer(whole).formatted, true);
  }
  assert.equal(parseImplementerReport(shape.join("\n")).status, "unknown");
});

/** Every template a model gets: the .md files under src/engine (not READMEs), the skill's four. */
async function templateFiles(): Promise<string[]> {
  const found: string[] = [];
  async function walk(dir: string): Promise<void> {
    for await (const e of Deno.readDir(dir)) {
      const path = join(dir, e.name);
      if (e.isDirectory) await walk(path);
      else if (e.name.endsWith(".md") && e.name !== "README.md") found.push(path);
    }
  }
  await walk(join(ROOT, "src/engine"));
  for (const t of Object.values(TEMPLATES)) found.push(join(ROOT, TEMPLATE_DIR, t.file));
  return found.sort();
}

Deno.test("no prompt template is one `deno fmt` would change (Markdown reflow joins format lines)", async () => {
  const files = await templateFiles();
  for (const must of ["audit.md", "fix.md", "answer.md", "follow_up.md", "task-reviewer.md"]) {
    assert.ok(files.some((f) => basename(f) === must), `${must} is among the templates checked`);
  }
  await using dir = await tempDir();
  // The project's formatter options, without its excludes, on copies of the templates.
  const config = JSON.parse(await Deno.readTextFile(join(ROOT, "deno.json")));
  const { exclude: _, ...fmt } = config.fmt ?? {};
  await Deno.writeTextFile(join(dir.path, "deno.json"), JSON.stringify({ fmt }));
  const copies = files.map((f, i) => join(dir.path, `${i}_${basename(f)}`));
  for (const [i, f] of files.entries()) await Deno.copyFile(f, copies[i]!);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--config", join(dir.path, "deno.json"), ...copies],
    cwd: dir.path,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const changed: string[] = [];
  for (const [i, f] of files.entries()) {
    const before = await Deno.readTextFile(f);
    const after = await Deno.readTextFile(copies[i]!);
    if (before === after) continue;
    const a = before.split("\n");
    const b = after.split("\n");
    const at = a.findIndex((line, n) => line !== b[n]);
    changed.push(
      `${relative(ROOT, f)}:${at + 1}: ${JSON.stringify(a[at])} -> ${JSON.stringify(b[at])}`,
    );
  }
  assert.deepEqual(changed, [], "templates `deno fmt` would change (keep formats in a fence)");
});
