import assert from "node:assert/strict";
import { attribute, targetNames } from "../../src/engine/tree/attribute.ts";
import { readsOnly } from "../../src/confine/read_only_command.ts";
import { event, type PitroomEvent, type ToolKind } from "../../src/events/mod.ts";

function call(
  kind: ToolKind,
  target: string,
  options: { tool?: string; status?: "ok" | "error" | "denied"; time?: number } = {},
): PitroomEvent {
  return event("worker.tool_call", options.time ?? 1000, {
    tool: options.tool ?? kind,
    kind,
    target,
    status: options.status ?? "ok",
  });
}

const ROOT = "/home/u/repo";
const split = (
  paths: string[],
  events: PitroomEvent[],
  extra: { cwd?: string; until?: number; changedAt?: number } = {},
) =>
  attribute(paths.map((path) => ({ path, changedAt: extra.changedAt ?? null })), {
    events,
    roots: [ROOT, "/real/repo"],
    cwd: extra.cwd ?? "",
    ...(extra.until === undefined ? {} : { until: extra.until }),
  });

Deno.test("attribute() gives the worker only the files its edit and write calls named", () => {
  const got = split(["a.txt", "src/b.ts", "mine.txt", "src/c.ts"], [
    call("edit", "a.txt"),
    call("write", `${ROOT}/src/b.ts`),
    call("read", "mine.txt"),
    call("search", "c.ts"),
  ]);
  assert.deepEqual(got, {
    worker: ["a.txt", "src/b.ts"],
    others: ["mine.txt", "src/c.ts"],
    unbounded: false,
  });
});

Deno.test("attribute() reads targets relative to the worker's folder and under the resolved root", () => {
  const got = split(["pkg/a.ts", "b.ts", "pkg/c.ts", "d.ts"], [
    call("edit", "a.ts"),
    call("edit", "../b.ts"),
    call("edit", "/real/repo/pkg/c.ts"),
    call("edit", "./d.ts"),
  ], { cwd: "pkg" });
  assert.deepEqual(got.worker, ["pkg/a.ts", "b.ts", "pkg/c.ts"]);
  assert.deepEqual(got.others, ["d.ts"]);
});

Deno.test("attribute() counts a denied call as no change, and a failed one as a possible change", () => {
  const got = split(["a.txt", "b.txt"], [
    call("edit", "a.txt", { status: "denied" }),
    call("edit", "b.txt", { status: "error" }),
    call("shell", "rm -rf .", { status: "denied" }),
  ]);
  assert.deepEqual(got, { worker: ["b.txt"], others: ["a.txt"], unbounded: false });
});

Deno.test("attribute() lets any command, sub-agent or unknown tool account for every path", () => {
  for (
    const ev of [
      call("shell", "make"),
      call("read", "cat a > b", { tool: "exec_command" }),
      call("task", "refactor"),
      call("other", "mcp.write"),
      call("edit", ""),
    ]
  ) {
    const got = split(["a.txt", "deep/x.bin"], [ev]);
    assert.deepEqual(got, { worker: ["a.txt", "deep/x.bin"], others: [], unbounded: true });
  }
});

Deno.test("attribute() leaves a file last changed after the worker's last activity to the user", () => {
  const events = [call("shell", "make")];
  assert.deepEqual(split(["a.txt"], events, { until: 2000, changedAt: 2500 }).others, ["a.txt"]);
  assert.deepEqual(split(["a.txt"], events, { until: 2000, changedAt: 1500 }).worker, ["a.txt"]);
  // A deleted file has no time of its own: the calls decide.
  assert.deepEqual(split(["a.txt"], events, { until: 2000 }).worker, ["a.txt"]);
});

Deno.test("targetNames() matches several paths in one target and targets cut with an ellipsis", () => {
  assert.ok(targetNames("/r/a.txt /r/my file.txt", "/r/my file.txt"));
  assert.ok(targetNames("/r/a.txt /r/b.txt", "/r/a.txt"));
  assert.ok(!targetNames("/r/a.txt /r/b.txt", "/r/a.tx"));
  assert.ok(targetNames("/r/a.txt /r/src/lo…", "/r/src/long/name.ts"));
  assert.ok(!targetNames("/r/a.txt /r/src/lo…", "/r/other.ts"));
  assert.ok(targetNames("…ng/name.ts", "/r/src/long/name.ts"));
  assert.ok(!targetNames("…ng/name.ts", "/r/src/long/other.ts"));
  assert.ok(!targetNames("a.txt", "b/a.txt"));
});

Deno.test("attribute() counts an edit call only for changes that landed before it was reported", () => {
  const events = [call("edit", "a.txt", { time: 1000 }), call("write", "b.txt", { time: 3000 })];
  const got = attribute([
    { path: "a.txt", changedAt: 2000 },
    { path: "b.txt", changedAt: 2000 },
    { path: "gone.txt", changedAt: null },
  ], {
    events: [...events, call("edit", "gone.txt", { time: 1 })],
    roots: [ROOT],
    cwd: "",
    until: 5000,
  });
  assert.deepEqual(got.worker, ["b.txt", "gone.txt"]);
  assert.deepEqual(got.others, ["a.txt"]);
  // Without the worker's last activity the times are not used.
  const blind = attribute([{ path: "a.txt", changedAt: 2000 }], { events, roots: [ROOT], cwd: "" });
  assert.deepEqual(blind.worker, ["a.txt"]);
});

Deno.test("readsOnly() bounds a pipeline of reading programs and nothing beyond it", () => {
  for (
    const command of [
      "cat -- src/app.ts",
      "sed -n '1,200p' src/app.ts",
      "rg -n 'foo$' src | head -20",
      "ls -la",
      `grep -rn "a b" .`,
      "find . -name '*.ts'",
      "git status --short",
      "git diff HEAD -- a.txt",
      "sort -n x | wc -l",
    ]
  ) assert.ok(readsOnly(command), command);
  for (
    const command of [
      "cat > a.txt",
      "cat a.txt; rm b",
      "cat a && rm b",
      "cat $(rm b)",
      "echo `rm b`",
      `echo "$(rm b)"`,
      "sed -i 's/a/b/' a.txt",
      "sed -n 's/x/y/w out.log' a.txt",
      "sed -n '1,5p' a.txt -i",
      "find . -delete",
      "find . -exec rm {} ;",
      "rg --pre=./x foo",
      "sort -o out.txt in.txt",
      "sort -uo out.txt in.txt",
      "tree -o out.txt",
      "git checkout -- a.txt",
      "git log --output=x",
      "git -C .. status",
      "make",
      "./script.sh",
      "FOO=1 cat a",
      "cat a.txt | sh",
      "cat a.txt ca…",
      "cat 'unclosed",
      "cat a |",
    ]
  ) assert.ok(!readsOnly(command), command);
});

Deno.test("attribute() bounds a read-only command, and not a command that could write", () => {
  const paths = ["a.txt", "mine.txt"];
  const reading = split(paths, [
    call("read", "cat -- a.txt", { tool: "exec_command" }),
    call("shell", "rg -n x . | head"),
    call("edit", "a.txt", { tool: "apply_patch" }),
  ]);
  assert.deepEqual(reading, { worker: ["a.txt"], others: ["mine.txt"], unbounded: false });
  const writing = split(paths, [call("read", "cat a.txt > mine.txt", { tool: "exec_command" })]);
  assert.deepEqual(writing.worker, paths);
});

Deno.test("attribute() counts the to-do and memory tools for nothing", () => {
  const got = split(["a.txt"], [
    call("other", "{}", { tool: "TodoWrite" }),
    call("other", "", { tool: "todowrite" }),
    call("other", "", { tool: "write_todos" }),
  ]);
  assert.deepEqual(got, { worker: [], others: ["a.txt"], unbounded: false });
});
