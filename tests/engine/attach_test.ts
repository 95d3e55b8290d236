import assert from "node:assert/strict";
import { join } from "node:path";
import {
  attach,
  ATTACH_LIMIT_BYTES,
  checkTaskSize,
  TASK_LIMIT_BYTES,
} from "../../src/engine/attach.ts";
import { UsageError } from "../../src/sys/errors.ts";
import { testSys } from "../support/sys.ts";
import { tempDir } from "../support/temp.ts";

Deno.test("attach() puts each file's path and text after the task, fenced", async () => {
  await using dir = await tempDir();
  await Deno.mkdir(join(dir.path, "src"));
  await Deno.writeTextFile(join(dir.path, "src", "a.ts"), "const x = 1;\n");
  await Deno.writeTextFile(join(dir.path, "notes.md"), "has ``` inside");
  const sys = testSys({ stateDir: join(dir.path, "state"), cwd: dir.path });
  const got = await attach(sys, dir.path, ["src/a.ts", "notes.md"]);
  assert.deepEqual(got.files, [{ path: "src/a.ts", bytes: 13 }, { path: "notes.md", bytes: 14 }]);
  assert.match(got.text, /File src\/a\.ts:\n```\nconst x = 1;\n```/);
  assert.match(got.text, /File notes\.md:\n````\nhas ``` inside\n````/);
  assert.deepEqual(await attach(sys, dir.path, []), { files: [], text: "" });
});

Deno.test("attach() refuses a missing file, binary data and more than the limit", async () => {
  await using dir = await tempDir();
  const sys = testSys({ stateDir: join(dir.path, "state"), cwd: dir.path });
  await assert.rejects(attach(sys, dir.path, ["nope.txt"]), UsageError);
  await Deno.writeFile(join(dir.path, "bin"), new Uint8Array([0xff, 0xfe, 0x00]));
  await assert.rejects(attach(sys, dir.path, ["bin"]), /is not UTF-8 text/);
  await Deno.writeTextFile(join(dir.path, "big.txt"), "x".repeat(ATTACH_LIMIT_BYTES / 2 + 1));
  await assert.rejects(attach(sys, dir.path, ["big.txt", "big.txt"]), /too large/);
});

Deno.test("checkTaskSize() lets a task of 256 KiB through and refuses one byte more, counted in bytes", () => {
  checkTaskSize(["x".repeat(TASK_LIMIT_BYTES)]);
  assert.throws(
    () => checkTaskSize(["fine", "x".repeat(TASK_LIMIT_BYTES + 1)]),
    (error) => error instanceof UsageError && /holds 262145 bytes/.test(error.message),
  );
  // "é" is two bytes of UTF-8.
  assert.throws(() => checkTaskSize(["é".repeat(TASK_LIMIT_BYTES / 2 + 1)]), UsageError);
});

Deno.test("attach() refuses a file longer than the room left unread, and names what is not a file", async () => {
  await using dir = await tempDir();
  const sys = testSys({ stateDir: join(dir.path, "state"), cwd: dir.path });
  using file = await Deno.open(join(dir.path, "huge.log"), { write: true, create: true });
  await file.truncate(10 * 1024 * 1024 * 1024);
  await assert.rejects(
    attach(sys, dir.path, ["huge.log"]),
    /too large: 10737418240 bytes with "huge\.log"/,
  );
  await assert.rejects(attach(sys, dir.path, ["."]), /Attached file "\." is a folder, not a file/);
  await assert.rejects(
    attach(sys, dir.path, ["/dev/null"]),
    /Attached file "\/dev\/null" is a character device, not a file/,
  );
});
