import assert from "node:assert/strict";
import { join } from "node:path";
import { EventTail } from "../../src/engine/follow/feed_tail.ts";
import { tempDir } from "../support/temp.ts";

const line = (type: string, time: number, fields: Record<string, unknown>) =>
  JSON.stringify({ type, time, ...fields }) + "\n";

Deno.test("EventTail reads only what was appended, keeping an unfinished line for later", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "events.jsonl");
  const tail = new EventTail(path);
  assert.deepEqual(await tail.read(), [], "no file yet: nothing");
  const first = line("run.queued", 1, { run: "r", position: 2 });
  const second = line("run.lost", 2, { run: "r", reason: "gone" });
  await Deno.writeTextFile(path, first + second.slice(0, 10));
  assert.deepEqual((await tail.read()).map((e) => e.type), ["run.queued"]);
  assert.equal(tail.offset, first.length + 10);
  await Deno.writeTextFile(path, second.slice(10), { append: true });
  assert.deepEqual((await tail.read()).map((e) => e.type), ["run.lost"]);
  assert.deepEqual(await tail.read(), []);
  tail.close();
});

Deno.test("EventTail finishes from the compressed file when the plain one is gone", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "events.jsonl");
  const a = line("run.queued", 1, { run: "r", position: 1 });
  const b = line("run.lost", 2, { run: "r", reason: "gone" });
  await Deno.writeTextFile(path, a);
  const tail = new EventTail(path);
  assert.equal((await tail.read()).length, 1);
  tail.close();
  const gz = await Deno.open(`${path}.gz`, { write: true, create: true });
  await ReadableStream.from([new TextEncoder().encode(a + b)]).pipeThrough(
    new CompressionStream("gzip"),
  ).pipeTo(gz.writable);
  await Deno.remove(path);
  assert.deepEqual((await tail.read()).map((e) => e.type), ["run.lost"], "only what is new");
  assert.deepEqual(await tail.read(), []);
});

Deno.test("EventTail reports each event's end offset, and a tail from that offset resumes exactly", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "events.jsonl");
  const first = line("worker.text", 1, { text: "naïve café ✓" });
  const second = line("run.queued", 2, { run: "r", position: 1 });
  const third = line("run.lost", 3, { run: "r", reason: "gone" });
  const bytes = (text: string) => new TextEncoder().encode(text).length;
  // The second line is cut inside the file: its event comes with the rest.
  await Deno.writeTextFile(path, first + second.slice(0, 5));
  const tail = new EventTail(path);
  assert.deepEqual((await tail.readAt()).map((e) => e.offset), [bytes(first)]);
  await Deno.writeTextFile(path, second.slice(5) + third, { append: true });
  const rest = await tail.readAt();
  assert.deepEqual(rest.map((e) => e.offset), [
    bytes(first + second),
    bytes(first + second + third),
  ]);
  tail.close();
  const resumed = new EventTail(path, rest[0]!.offset);
  assert.deepEqual((await resumed.read()).map((e) => e.type), ["run.lost"]);
  resumed.close();
});

/** The buffers `Deno.FsFile.read` was handed while `fn` ran. */
async function readBuffers(fn: () => Promise<void>): Promise<ArrayBufferLike[]> {
  const seen: ArrayBufferLike[] = [];
  const read = Deno.FsFile.prototype.read;
  Deno.FsFile.prototype.read = function (this: Deno.FsFile, p: Uint8Array) {
    seen.push(p.buffer);
    return read.call(this, p);
  };
  try {
    await fn();
  } finally {
    Deno.FsFile.prototype.read = read;
  }
  return seen;
}

Deno.test("the feed's readers read every time into one buffer of their own (a new 64 KB one per read grew a follower by 15 MB)", async () => {
  await using dir = await tempDir();
  const path = join(dir.path, "events.jsonl");
  const tail = new EventTail(path);
  // A line longer than a read's buffer comes whole, over several reads into the same buffer.
  const long = line("worker.text", 1, { text: "é".repeat(40_000) });
  const buffers = await readBuffers(async () => {
    for (let i = 0; i < 20; i++) {
      await Deno.writeTextFile(path, line("run.queued", i, { run: "r", position: i }), {
        append: true,
      });
      assert.equal((await tail.read()).length, 1);
    }
    await Deno.writeTextFile(path, long, { append: true });
    const [text] = await tail.read();
    assert.equal(text?.type === "worker.text" && text.text.length, 40_000);
  });
  tail.close();
  assert.ok(buffers.length > 21, `${buffers.length} reads`);
  assert.equal(new Set(buffers).size, 1, "one buffer for every read of the tail");
});
