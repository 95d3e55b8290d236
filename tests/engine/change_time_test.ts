/**
 * When a changed file last changed, for attribution (`changeTime`): Deno gives the ctime in
 * whole seconds. A file written and then renamed into place across a second's boundary (how
 * Claude Code saves an edit) has its mtime in the second before its ctime's; such an edit,
 * reported by the worker's tool call a moment later, is the worker's. Before, the end of the
 * ctime's second was taken and the worker's edit went to "others": missing from its report,
 * its patch and its revert (one run in 40 of the claude in-place e2e case, under load).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { attribute } from "../../src/engine/tree/attribute.ts";
import { changeTime } from "../../src/engine/tree/tree_watch.ts";
import { event } from "../../src/events/mod.ts";
import { tempDir } from "../support/temp.ts";

Deno.test("changeTime(): the mtime within the ctime's second, else the start of that second", () => {
  // An in-place write: mtime and ctime are the same instant (the ctime cut to its second).
  assert.equal(changeTime(5_000_437, 5_000_000), 5_000_437);
  // Written at 4.980 s, renamed into place at 5.0xx s: the change is in the 5th second.
  assert.equal(changeTime(4_999_980, 5_000_000), 5_000_000);
  // An mtime set by hand, long ago or in the future: the status changed in the ctime's second.
  assert.equal(changeTime(1_000, 5_000_000), 5_000_000);
  assert.equal(changeTime(9_000_000, 5_000_000), 5_000_000);
  assert.equal(changeTime(5_000_437, undefined), 5_000_437);
  assert.equal(changeTime(undefined, undefined), null);
});

Deno.test("a real write renamed into place across a second's boundary is the worker's edit", async () => {
  await using dir = await tempDir();
  const file = join(dir.path, "app.ts");
  const temp = join(dir.path, "app.ts.tmp");
  await Deno.writeTextFile(temp, "export const answer = 42;\n");
  // The write "happened" in the second before the rename (as when the second ticks between).
  const second = Math.floor(Date.now() / 1000) * 1000;
  await Deno.utime(temp, new Date(second - 20), new Date(second - 20));
  await Deno.rename(temp, file);
  const info = await Deno.lstat(file);
  const at = changeTime(info.mtime!.getTime(), info.ctime!.getTime());
  assert.ok(at !== null && at <= Date.now(), `dated ${at}, after now`);
  // The worker's Edit is reported right after the rename.
  const reported = Date.now();
  const splitWithEditAt = (time: number) =>
    attribute([{ path: "app.ts", changedAt: at }], {
      events: [event("worker.tool_call", time, {
        tool: "Edit",
        kind: "edit",
        target: "app.ts",
        status: "ok",
      })],
      roots: [dir.path],
      cwd: "",
      until: reported,
    });
  assert.deepEqual(splitWithEditAt(reported).worker, ["app.ts"]);
  // The same save after the call (the user's, in a later second) stays the user's.
  const user = splitWithEditAt(second - 1500);
  assert.deepEqual(user.others, ["app.ts"]);
});
