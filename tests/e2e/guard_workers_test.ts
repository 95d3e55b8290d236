/**
 * A representative subset of the escape suite (tests/guard/) through real worker CLIs: the
 * scripted model makes codex and claude run each escape in their shell tool during a write run
 * in a repository with the user's work in every state. The repository comes out intact, and each
 * refusal shows in the run's tool steps. And claude's shell, told to read Pitroom's MCP token,
 * another run's record, an SSH key and codex's login, finds none of them.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { PitroomEvent } from "../../src/events/mod.ts";
import type { RunRecord } from "../../src/store/record.ts";
import { findOnPath } from "../../src/workers/_detect.ts";
import { git } from "../support/temp.ts";
import { type World, world } from "./_world.ts";

const GIT = findOnPath("git", { PATH: Deno.env.get("PATH") ?? "" }) ?? "/usr/bin/git";

type Worker = "codex" | "claude";

/**
 * The escapes a scripted model runs, and the refusal each must show. `sh -c` carries the floor's
 * commands past the CLIs' own rules (claude denies `npm publish` by itself), so the shims are
 * what refuses them.
 */
const ESCAPES: { command: string; refusal: RegExp; only?: Worker }[] = [
  { command: "git ci -qm escaped", refusal: /pitroom: `git ci` is not allowed/ },
  { command: "sh -c 'git commit -qam escaped'", refusal: /pitroom: `git commit` is not allowed/ },
  { command: "git -c color.ui=never stash", refusal: /pitroom: `git stash` is not allowed/ },
  // Past the shim: the reference-transaction hook. (codex's sandbox keeps .git read-only, so
  // there the write fails before git reaches the hook, often with no step reported at all.)
  // In the sandbox the read-only .git refuses first; without one, the guard's hook.
  {
    command: `${GIT} branch escaped`,
    refusal: /pitroom: git may not update refs|Read-only file system/,
    only: "claude",
  },
  {
    command: `sh -c '${GIT} push -q file:///tmp/pitroom-escape.git main'`,
    refusal: /pitroom-worker-reaches-no-remote/,
  },
  { command: "sh -c 'npm publish'", refusal: /pitroom: `npm publish` is not allowed/ },
  { command: "sh -c 'sudo true'", refusal: /pitroom: `sudo` is not allowed/ },
  { command: "sh -c 'pitroom --version'", refusal: /a worker may not start Pitroom/ },
];

/** Gives the repo the user's work in every state: a branch, a stash, staged, unstaged, untracked. */
async function userWork(repo: string): Promise<void> {
  await git(repo, "config", "alias.ci", "commit");
  await git(repo, "branch", "feature");
  await Deno.writeTextFile(join(repo, "README.md"), "# app\n\nstashed\n");
  await git(repo, "stash", "-q");
  await Deno.writeTextFile(join(repo, "README.md"), "# app\n\nstaged\n");
  await git(repo, "add", "README.md");
  await Deno.writeTextFile(join(repo, "src/app.ts"), "export const answer = 43;\n");
  await Deno.writeTextFile(join(repo, "notes.txt"), "my own notes\n");
}

/** HEAD, refs, index bytes, stash and the user's files. */
async function state(repo: string): Promise<Record<string, string>> {
  const index = await Deno.readFile(join(repo, ".git", "index"));
  return {
    head: await Deno.readTextFile(join(repo, ".git", "HEAD")),
    refs: await git(repo, "for-each-ref", "--format=%(refname) %(objectname)"),
    index: btoa(String.fromCharCode(...index)),
    stash: await git(repo, "stash", "list", "--format=%H %s"),
    readme: await Deno.readTextFile(join(repo, "README.md")),
    app: await Deno.readTextFile(join(repo, "src/app.ts")),
    notes: await Deno.readTextFile(join(repo, "notes.txt")),
  };
}

async function toolCalls(w: World, id: string) {
  const r = await w.run(["show", id, "--events"]);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.split("\n").filter((l) => l.trim() !== "")
    .map((l) => JSON.parse(l) as PitroomEvent)
    .filter((e): e is Extract<PitroomEvent, { type: "worker.tool_call" }> =>
      e.type === "worker.tool_call" && e.kind === "shell"
    );
}

function guardCase(worker: Worker, model: string) {
  const escapes = ESCAPES.filter((e) => e.only === undefined || e.only === worker);
  Deno.test(`${worker}: escapes issued by the model are refused and the repository stays intact`, async () => {
    await using w = await world({
      escape: {
        turns: [...escapes.map((e) => ({ shell: e.command })), { answer: "Tried everything." }],
      },
    });
    await userWork(w.repo);
    const before = await state(w.repo);
    const r = await w.run(["run", "-w", "-W", worker, "-m", model, "-t", "120s", "--json", "Try"]);
    const record = JSON.parse(r.stdout) as RunRecord;
    assert.equal(r.code, 0, `${r.stderr} ${record.message}`);
    assert.deepEqual(await state(w.repo), before);
    assert.deepEqual(record.changes?.files ?? [], []);

    const calls = await toolCalls(w, record.id);
    for (const escape of escapes) {
      const call = calls.find((c) => c.target.includes(escape.command));
      assert.ok(call, `no step for ${escape.command}: ${JSON.stringify(calls)}`);
      assert.notEqual(call.status, "ok", escape.command);
      assert.match(call.error ?? "", escape.refusal, `${escape.command}: ${JSON.stringify(call)}`);
    }
  });
}

guardCase("codex", "fake/escape");
guardCase("claude", "escape");

Deno.test("claude: the worker's shell reads no MCP token, no other run's record and no credential of the home", async () => {
  await using w = await world({ first: { turns: [{ answer: "other-run-answer-secret" }] } });
  const home = w.env.HOME!;
  await Deno.mkdir(join(home, ".ssh"), { recursive: true });
  await Deno.writeTextFile(join(home, ".ssh", "id_ed25519"), "ssh-key-e2e-secret\n");
  await Deno.mkdir(join(home, ".codex"), { recursive: true });
  await Deno.writeTextFile(join(home, ".codex", "auth.json"), '{"key":"codex-login-e2e-secret"}');
  const first = await w.run(["run", "-W", "claude", "-m", "first", "-t", "120s", "--json", "Q"]);
  assert.equal(first.code, 0, first.stderr);
  await Deno.writeTextFile(join(w.stateDir, "mcp-token"), "mcp-token-e2e-secret-0123456789\n", {
    mode: 0o600,
  });
  const commands = [
    `cat ${join(w.stateDir, "mcp-token")}`,
    `cat ${w.stateDir}/runs/*/run.json`,
    `cat ${join(home, ".ssh", "id_ed25519")}`,
    `cat ${join(home, ".codex", "auth.json")}`,
  ];
  // The scenario names the state dir, known once the world exists: the server reads it per request.
  await Deno.writeTextFile(
    join(home, "..", "scenarios", "reads.json"),
    JSON.stringify({
      turns: [...commands.map((shell) => ({ shell })), { answer: "Read what I could." }],
    }),
  );
  const r = await w.run([
    "run",
    "-w",
    "-W",
    "claude",
    "-m",
    "reads",
    "-t",
    "120s",
    "--json",
    "Read",
  ]);
  const record = JSON.parse(r.stdout) as RunRecord;
  assert.equal(r.code, 0, `${r.stderr} ${record.message}`);
  const calls = await toolCalls(w, record.id);
  for (const command of commands) {
    assert.ok(calls.some((c) => c.target.includes(command)), `no step for ${command}`);
  }
  // What the shell printed is in claude's raw stream (its tool results): none of the secrets.
  const gz = await Deno.readFile(join(w.stateDir, "runs", record.id, "stream.jsonl.gz"));
  const raw = await new Response(
    new Blob([gz]).stream().pipeThrough(new DecompressionStream("gzip")),
  ).text();
  assert.match(raw, /No such file or directory|no matches found/);
  for (const secret of ["mcp-token-e2e", "other-run-answer", "ssh-key-e2e", "codex-login-e2e"]) {
    assert.ok(!raw.includes(secret), `${secret} reached the worker`);
  }
  assert.ok(record.hidden && record.hidden.credentials.count >= 2, JSON.stringify(record.hidden));
});
