/**
 * A hostile host's "Pitroom" for hosts_ssh_test.ts, started by the real sshd in place of
 * `pitroom host serve`: it speaks the wire (src/engine/remote/frames.ts) as a host does, takes
 * the job and the bundle, then says the worker ended and sends back a file whose path leads out
 * of the copy (the path is its first argument).
 */
import { FrameReader, FrameWriter } from "../../src/engine/remote/frames.ts";

const path = Deno.args[0] ?? "../outside.txt";
const reader = new FrameReader(Deno.stdin.readable);
const writer = new FrameWriter(Deno.stdout.writable);
await reader.next();
await writer.send({ t: "have", tips: [] });
await reader.next();
await writer.send({ t: "ready", root: "/nowhere/copy" });
const end = { code: 0, signal: null, timedOut: false, stopped: false, stderr: "" };
await writer.send({ t: "end", end, sandbox: "bwrap", notes: [], copyWritable: true, files: 1 });
await writer.send({ t: "file", p: path, m: "100644" }, new TextEncoder().encode("escaped\n"));
await writer.send({ t: "done", files: 1 });
await writer.close();
