/**
 * The worker's process group, through the real runner: the worker leads a group of its own (made
 * in the child by `setsid` on Linux, not by forking Pitroom's process), a stop kills all of it,
 * and a stop asked before the spawn reaches the child even in the moment before it leads a group.
 */
import assert from "node:assert/strict";
import { holdState } from "../../src/store/state.ts";
import { runProcess } from "../../src/engine/run/process.ts";
import { realSys } from "../../src/sys/real.ts";
import type { Launch } from "../../src/workers/types.ts";
import { tempDir } from "../support/temp.ts";

function launch(script: string, cwd: string): Launch {
  return {
    argv: ["sh", "-c", script],
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" },
    cwd,
    stdin: null,
    files: [],
  };
}

/** Whether a process is there (a zombie counts as gone). */
async function alive(pid: number): Promise<boolean> {
  const out = await new Deno.Command("ps", { args: ["-o", "stat=", "-p", String(pid)] }).output();
  const stat = new TextDecoder().decode(out.stdout).trim();
  return out.success && stat !== "" && !stat.startsWith("Z");
}

Deno.test("the worker leads its own group: its pid is the group's and the session's, and a stop ends its children too", async () => {
  await using dir = await tempDir();
  const sys = holdState(realSys());
  const stop = new AbortController();
  const lines: string[] = [];
  let pid = 0;
  const ended = runProcess(
    sys,
    launch(
      `ps -o pgid=,sid= -p $$; sleep 60 & echo child $!; wait`,
      dir.path,
    ),
    {
      timeoutMs: 60_000,
      stop: stop.signal,
      killGraceMs: 200,
      onSpawn: (p) => (pid = p),
      onStdoutLine(line) {
        lines.push(line.trim());
        if (line.startsWith("child ")) stop.abort();
      },
    },
  );
  const end = await ended;
  assert.equal(end.stopped, true);
  const [pgid, sid] = lines[0]!.split(/\s+/).map(Number);
  assert.equal(pgid, pid, lines.join("\n"));
  assert.equal(sid, pid);
  const child = Number(lines[1]!.split(" ")[1]);
  // The group's SIGKILL after the worker ended reached its child.
  for (let i = 0; i < 100 && await alive(child); i++) await sys.sleep(20);
  assert.equal(await alive(child), false, `child ${child} of the worker is still there`);
});

Deno.test("a stop asked before the spawn ends the worker at once", async () => {
  await using dir = await tempDir();
  const sys = holdState(realSys());
  const stop = new AbortController();
  stop.abort();
  const started = performance.now();
  const end = await runProcess(sys, launch("sleep 30", dir.path), {
    timeoutMs: 60_000,
    stop: stop.signal,
    killGraceMs: 200,
    onStdoutLine() {},
  });
  assert.equal(end.stopped, true);
  assert.equal(end.signal, "SIGTERM", JSON.stringify(end));
  assert.ok(performance.now() - started < 20_000, "the worker ran on (sleep 30)");
});

Deno.test("a detached spawn finds its program on the child's PATH as exec does: a file nobody may execute is passed over", async () => {
  await using dir = await tempDir();
  const [a, b] = [`${dir.path}/a`, `${dir.path}/b`];
  await Deno.mkdir(a);
  await Deno.mkdir(b);
  await Deno.writeTextFile(`${a}/prog`, "#!/bin/sh\necho from-a\n", { mode: 0o644 });
  await Deno.writeTextFile(`${b}/prog`, "#!/bin/sh\necho from-b\n", { mode: 0o755 });
  const child = realSys().runner.spawn(["prog"], {
    env: { PATH: `${a}:${b}:/usr/bin:/bin` },
    stdin: { kind: "null" },
    detached: true,
  });
  const [out, status] = await Promise.all([new Response(child.stdout).text(), child.status]);
  await child.stderr?.cancel();
  assert.equal(status.code, 0);
  assert.equal(out, "from-b\n");
});
