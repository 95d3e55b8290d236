/**
 * Claude Code's own sandbox and Pitroom's: with the user's `sandbox.enabled` in claude's
 * settings, the real claude CLI against the scripted model server. Nested in Pitroom's
 * bubblewrap, claude's sandbox cannot start (its Unix bridge sockets, and as root its `/proc`
 * mount), fails the first shell command and runs the rest unsandboxed; so Pitroom turns it off
 * in its sandbox, and every shell command runs under Pitroom's rules. Without Pitroom's sandbox
 * the user's setting stays in force.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { PitroomEvent } from "../../src/events/mod.ts";
import { world } from "./_world.ts";

const SCENARIO = {
  nested: {
    turns: [
      { shell: "echo in > inside.txt" },
      { shell: 'echo out > "$HOME/.cache/nested-probe.txt"' },
      { answer: "done" },
    ],
  },
};

async function claudeRun(sandbox: "auto" | "off") {
  const w = await world(SCENARIO, { config: { sandbox } });
  const home = w.env.HOME!;
  await Deno.mkdir(join(home, ".cache"), { recursive: true });
  await Deno.writeTextFile(
    join(home, ".claude", "settings.json"),
    JSON.stringify({ sandbox: { enabled: true } }),
  );
  const r = await w.run(["run", "-w", "-W", "claude", "-m", "nested", "--json", "Try it"]);
  assert.equal(r.code, 0, r.stderr);
  const record = JSON.parse(r.stdout);
  const shown = await w.run(["show", record.id, "--events"]);
  const calls = shown.stdout.split("\n").filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as PitroomEvent)
    .flatMap((e) => e.type === "worker.tool_call" ? [e] : []);
  const probe = await Deno.readTextFile(join(home, ".cache", "nested-probe.txt"))
    .catch((error) => {
      if (error instanceof Deno.errors.NotFound) return null;
      throw error;
    });
  return { w, record, calls, probe };
}

Deno.test("claude in Pitroom's sandbox: its own sandbox is off and every shell command runs", async () => {
  const { w, record, calls, probe } = await claudeRun("auto");
  await using _ = w;
  assert.equal(record.attempts[0]?.sandbox, "bwrap");
  assert.deepEqual(calls.map((c) => [c.target, c.status, c.error]), [
    ["echo in > inside.txt", "ok", undefined],
    ['echo out > "$HOME/.cache/nested-probe.txt"', "ok", undefined],
  ]);
  assert.equal(await w.read("inside.txt"), "in\n");
  // ~/.cache is writable in Pitroom's sandbox (claude's would have refused it).
  assert.equal(probe, "out\n");
});

// Claude's sandbox needs socat on Linux (scripts/install_toolchain.sh installs it as root).
const SOCAT = new Deno.Command("sh", { args: ["-c", "command -v socat"], stdout: "null" })
  .outputSync().success;

Deno.test({
  name: "claude without Pitroom's sandbox keeps the user's own sandbox",
  ignore: !SOCAT,
}, async () => {
  const { w, record, calls, probe } = await claudeRun("off");
  await using _ = w;
  assert.equal(record.attempts[0]?.sandbox, "none");
  assert.equal(calls[0]?.status, "ok");
  assert.equal(await w.read("inside.txt"), "in\n");
  assert.equal(calls[1]?.status, "error");
  assert.match(calls[1]?.error ?? "", /read-only file system/i);
  assert.equal(probe, null);
});
