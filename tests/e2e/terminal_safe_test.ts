/**
 * Nothing a worker writes can drive the terminal: a hostile answer (screen clear, OSC title,
 * bell, carriage return) and a file name with an escape and a newline go through the real
 * program and the real Claude Code CLI (codex for the refused edit); every human output prints them
 * escaped, JSON exactly.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { pitroom } from "../support/pitroom.ts";
import { tempRepo } from "../support/temp.ts";
import { world } from "./_world.ts";

const ANSWER = "Done.\x1b[2J\x1b]0;pwned\x07\rhidden\nsecond line\u202eevil";
const NAME = "evil\x1b[31mred\nname.txt";

/** No raw control character but the line breaks (and the program's own nothing else). */
function assertInert(text: string, where: string): void {
  // deno-lint-ignore no-control-regex -- finding control characters is the point
  const raw = text.match(/[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/);
  assert.equal(raw, null, `${where} printed a raw control character:\n${JSON.stringify(text)}`);
}

const SCENARIOS = {
  hostile: {
    turns: [
      { write: { path: NAME, content: "x\n" } },
      { answer: ANSWER },
    ],
  },
};

Deno.test("a write run's hostile answer and file name are escaped in report, show, status, ls, wait, revert; JSON is exact", async () => {
  await using w = await world(SCENARIOS);
  const r = await w.run(["run", "-w", "-W", "claude", "-m", "hostile", "Make a file"]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assertInert(r.stdout, "run");
  assert.match(r.stdout, /Done\.\\e\[2J\\e\]0;pwned\\x07\\rhidden/);
  assert.match(r.stdout, /^ {2}second line\\u\{202e\}evil$/m);
  assert.match(r.stdout, /A evil\\e\[31mred\\nname\.txt/);
  const id = r.stdout.match(/^run (\S+)/)![1]!;

  const json = JSON.parse((await w.run(["show", id, "--json"])).stdout);
  assert.equal(json.answer, ANSWER);
  assert.deepEqual(json.changes.files.map((f: { path: string }) => f.path), [NAME]);
  // --patch --json combine: the exact patch inside JSON.
  const patch = JSON.parse((await w.run(["show", id, "--patch", "--json"])).stdout);
  assert.equal(patch.id, id);
  assert.match(patch.patch, /^\+x$/m);

  for (
    const args of [["show", id], ["status", id], ["ls"], ["wait", id], ["wait", id, "--brief"]]
  ) {
    const out = await w.run(args);
    assert.equal(out.code, 0, `${args.join(" ")}: ${out.stderr}`);
    assertInert(out.stdout + out.stderr, args.join(" "));
  }
  await using other = await tempRepo({ "other.txt": "another repository\n" });
  // From inside another repository `last` is not this run; its full id is, and names its repository.
  const last = await pitroom(["revert", "last"], { env: w.env, cwd: other.path });
  assert.equal(last.code, 2, last.stderr);
  const reverted = await pitroom(["revert", id], { env: w.env, cwd: other.path });
  assert.equal(reverted.code, 0, reverted.stderr);
  assertInert(reverted.stdout, "revert");
  assert.match(reverted.stdout, new RegExp(`^reverted 1 file\\(s\\) of ${id} in ${w.repo}`));
  assert.match(reverted.stdout, /^ {2}evil\\e\[31mred\\nname\.txt$/m);
  await assert.rejects(Deno.stat(join(w.repo, NAME)), Deno.errors.NotFound);
});

Deno.test("an isolate run's hostile file name is escaped by apply, and watch --brief escapes the answer", async () => {
  await using w = await world(SCENARIOS);
  const r = await w.run(["run", "-i", "-W", "claude", "-m", "hostile", "--bg", "Make it"]);
  assert.equal(r.code, 0, r.stderr);
  const id = r.stdout.trim();
  const watched = await w.run(["watch", id, "--brief"]);
  assert.equal(watched.code, 0, watched.stderr);
  assertInert(watched.stdout, "watch --brief");
  const applied = await w.run(["apply", id]);
  assert.equal(applied.code, 0, applied.stderr);
  assertInert(applied.stdout, "apply");
  assert.match(applied.stdout, /evil\\e\[31mred\\nname\.txt/);
  assert.equal(await w.read(NAME), "x\n");
});

Deno.test("a read run's refused edit shows in the report: the count and the refused call", async () => {
  await using w = await world({
    "sneaky-edit": {
      turns: [
        { edit: { path: "src/app.ts", old: "41", new: "0" } },
        { answer: "I could not edit." },
      ],
    },
  });
  const r = await w.run(["run", "-W", "codex", "-m", "fake/sneaky-edit", "Look at src/app.ts"]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^work {5}\d+ steps?, 1 tool call \(1 denied\)/m);
  assert.match(r.stdout, /^denied {3}edit\b/m);
  const id = r.stdout.match(/^run (\S+)/)![1]!;
  const shown = await w.run(["show", id]);
  assert.match(shown.stdout, /^work {5}\d+ steps?, 1 tool call \(1 denied\)/m);
  assert.match(shown.stdout, /^denied {3}edit\b/m);
});
