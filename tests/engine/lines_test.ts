/**
 * The lines of a worker's output and when each was certainly written (engine/run/lines.ts): a
 * line's bound is when the read before its first byte was asked for, only a read that left the
 * pipe empty moves it, and a busy host that reads a patch's lines after the patch wrote its file
 * still gets a start no later than the write, so the edit stays the worker's.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { readLines } from "../../src/engine/run/lines.ts";
import { changingCalls, windowsFor } from "../../src/engine/tree/attribute.ts";
import { ownerOf } from "../../src/engine/tree/file_history.ts";
import type { PitroomEvent } from "../../src/events/mod.ts";
import { newCodexState, parseCodexLine } from "../../src/workers/codex/parse.ts";
import type { LineTime } from "../../src/workers/types.ts";
import { tempDir } from "../support/temp.ts";

/**
 * A byte stream that answers its n-th read at `reads[n].at` (moving `clock` there) with
 * `reads[n].text`, filling the reader's whole buffer when `full`.
 */
function scripted(clock: { t: number }, reads: { at: number; text: string; full?: true }[]) {
  const encoder = new TextEncoder();
  let n = 0;
  return new ReadableStream({
    type: "bytes",
    pull(controller: ReadableByteStreamController) {
      const read = reads[n++];
      if (read === undefined) {
        controller.close();
        controller.byobRequest?.respond(0);
        return;
      }
      clock.t = read.at;
      const view = controller.byobRequest!.view! as Uint8Array;
      const bytes = read.full
        ? encoder.encode(read.text.padStart(view.byteLength - 1, "x") + "\n")
        : encoder.encode(read.text);
      view.set(bytes);
      controller.byobRequest!.respond(bytes.byteLength);
    },
  });
}

async function linesOf(stream: ReadableStream<Uint8Array>, clock: { t: number }, start: number) {
  const out: [string, LineTime][] = [];
  await readLines(stream, (line, at) => out.push([line.slice(-8), at]), {
    clock: { now: () => clock.t },
    start,
  });
  return out.map(([line, at]) => [line, at.time, at.since]);
}

Deno.test("readLines() bounds each line by when the read before its first byte was asked for", async () => {
  const clock = { t: 50 };
  const stream = scripted(clock, [
    { at: 110, text: "one\n" },
    { at: 300, text: "two\nthree\n" },
    { at: 400, text: "fo" },
    { at: 500, text: "ur\nfive\n" },
  ]);
  assert.deepEqual(await linesOf(stream, clock, 50), [
    // The first read: written after the process started.
    ["one", 110, 50],
    // Read together at 300: both written after the first read, asked for at 50.
    ["two", 300, 50],
    ["three", 300, 50],
    // Begun in the read asked for at 300, ended in the next: its first byte's bound.
    ["four", 500, 110],
    ["five", 500, 300],
  ]);
});

Deno.test("readLines() does not move the bound past a read that filled its buffer", async () => {
  const clock = { t: 0 };
  const stream = scripted(clock, [
    { at: 100, text: "one\n" },
    { at: 200, text: "long", full: true },
    { at: 300, text: "two\n" },
  ]);
  // The full read (asked for at 100) may have left bytes in the pipe: "two" may have been
  // written before it, so its bound stays the one before (0).
  assert.deepEqual(await linesOf(stream, clock, 0), [
    ["one", 100, 0],
    ["xxxxlong", 200, 0],
    ["two", 300, 0],
  ]);
});

Deno.test("readLines() of a non-byte stream bounds every line by the start", async () => {
  const clock = { t: 10 };
  const encoder = new TextEncoder();
  const stream = ReadableStream.from([encoder.encode("a\n"), encoder.encode("b\nc")]);
  assert.deepEqual(await linesOf(stream, clock, 5), [["a", 10, 5], ["b", 10, 5], ["c", 10, 5]]);
});

/** Blocks this thread until `done()` (a host busy with other work), for at most 10 s. */
function blockUntil(done: () => boolean): void {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  const until = Date.now() + 10_000;
  while (!done()) {
    if (Date.now() > until) throw new Error("the condition did not come within 10 s");
    Atomics.wait(cell, 0, 0, 5);
  }
}

Deno.test("a patch a busy host reads only after it wrote its file is still the worker's", async () => {
  await using dir = await tempDir("pitroom-lines-");
  const mark = join(dir.path, "mark");
  const file = join(dir.path, "app.ts");
  const item = (type: string) =>
    JSON.stringify({
      type,
      item: { id: "item_1", type: "file_change", changes: [{ path: file, kind: "update" }] },
    });
  // A codex-like worker: a first line, then (once the host is busy) the patch's start, the
  // write, and the patch's end.
  const script = [
    `printf '%s\\n' '{"type":"turn.started"}'`,
    `while [ ! -e '${mark}' ]; do sleep 0.01; done`,
    `printf '%s\\n' '${item("item.started")}'`,
    "sleep 0.05",
    `echo 42 > '${file}'`,
    `printf '%s\\n' '${item("item.completed")}'`,
  ].join("\n");
  await Deno.writeTextFile(file, "41\n");
  const child = new Deno.Command("sh", { args: ["-c", script], stdout: "piped" }).spawn();
  const state = newCodexState();
  const events: PitroomEvent[] = [];
  const started: Record<string, LineTime> = {};
  await readLines(child.stdout, (line, at) => {
    started[JSON.parse(line).type] = at;
    events.push(...parseCodexLine(line, state, at));
    if (line.includes("turn.started")) {
      // The host is busy until well after the worker wrote its file (longer than the windows'
      // slack): it reads what follows late.
      Deno.writeTextFileSync(mark, "");
      blockUntil(() =>
        Deno.readTextFileSync(file) === "42\n" &&
        Date.now() - Deno.statSync(file).mtime!.getTime() > 100
      );
    }
  }, { clock: { now: Date.now }, start: Date.now() });
  await child.status;
  const written = Deno.statSync(file).mtime!.getTime();
  const announced = started["item.started"]!;
  assert.ok(announced.time > written + 100, "the patch's start was read well after its write");
  assert.ok(announced.since < written, "and bounded before it");
  const calls = changingCalls(events);
  const windows = windowsFor("app.ts", calls, { roots: [dir.path], cwd: "", until: Date.now() });
  assert.equal(ownerOf({ lo: written, hi: written }, windows), "worker");
});
