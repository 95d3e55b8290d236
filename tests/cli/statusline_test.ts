import assert from "node:assert/strict";
import { join } from "node:path";
import { pitroomPart, statusText } from "../../src/cli/statusline.ts";
import { statePaths } from "../../src/store/paths.ts";
import { emptyProgress, RECORD_SCHEMA, type RunRecord } from "../../src/store/record.ts";
import { writeRecord } from "../../src/store/runs.ts";
import { pitroom } from "../support/pitroom.ts";
import { tempDir } from "../support/temp.ts";

const CLAUDE_INPUT = JSON.stringify({
  hook_event_name: "Status",
  session_id: "abc123",
  cwd: "/repo",
  model: { id: "claude-opus-5-5", display_name: "Opus" },
  workspace: { current_dir: "/repo", project_dir: "/repo" },
  version: "2.1.328",
});

async function statusline(stateDir: string, args: string[], stdin = CLAUDE_INPUT) {
  const out = await pitroom(["statusline", ...args], {
    env: { PITROOM_STATE_DIR: stateDir, HOME: stateDir, PATH: "/usr/bin:/bin" },
    cwd: stateDir,
    stdin,
  });
  assert.equal(out.code, 0, out.stderr);
  return out.stdout;
}

async function markRunning(stateDir: string, ...ids: string[]) {
  await Deno.mkdir(join(stateDir, "active"), { recursive: true });
  for (const id of ids) await Deno.writeTextFile(join(stateDir, "active", id), "");
}

Deno.test("statusText() puts Pitroom's part after the user's own line", () => {
  assert.equal(pitroomPart(3, 12.345), "pitroom 3 running · $12.35 saved this week");
  assert.equal(statusText(null, "P"), "P\n");
  assert.equal(statusText("mine\n", "P"), "mine · P\n");
  assert.equal(statusText("line 1\nline 2\n\n", "P"), "line 1\nline 2 · P\n");
});

Deno.test("pitroom statusline counts the runs going now", async () => {
  await using state = await tempDir();
  assert.equal(await statusline(state.path, []), "pitroom 0 running · $0.00 saved this week\n");
  await markRunning(state.path, "20261130-101500-3f2a", "20261130-101501-3f2b");
  assert.equal(await statusline(state.path, []), "pitroom 2 running · $0.00 saved this week\n");
});

Deno.test("pitroom statusline --then runs your own command first with Claude Code's stdin", async () => {
  await using state = await tempDir();
  const mine = `sed -n 's/.*"display_name":"\\([^"]*\\)".*/[\\1] my line/p'`;
  assert.equal(
    await statusline(state.path, ["--then", mine]),
    "[Opus] my line · pitroom 0 running · $0.00 saved this week\n",
  );
  // A failing command still shows what it printed.
  assert.equal(
    await statusline(state.path, ["--then", "echo partial; exit 3"]),
    "partial · pitroom 0 running · $0.00 saved this week\n",
  );
});

Deno.test("pitroom statusline --then cuts a slow command at the timeout and kills its group", async () => {
  await using state = await tempDir();
  const pidFile = join(state.path, "pid");
  const slow = `echo $$ > '${pidFile}'; echo early; sleep 30; echo late`;
  assert.equal(
    await statusline(state.path, ["--then", slow]),
    "pitroom 0 running · $0.00 saved this week\n",
  );
  const pid = Number((await Deno.readTextFile(pidFile)).trim());
  assert.ok(pid > 0);
  const alive = await new Deno.Command("kill", { args: ["-0", String(pid)], stderr: "null" })
    .output();
  assert.notEqual(alive.code, 0, "the slow command's shell was killed");
});

function finishedRun(id: string, endedAt: number, saved: number): RunRecord {
  return {
    schemaVersion: RECORD_SCHEMA,
    id,
    state: "done",
    mode: "read",
    task: "t",
    cwd: "/repo",
    chain: [{ worker: "opencode" }],
    web: false,
    timeoutMs: 60_000,
    createdAt: endedAt - 1000,
    startedAt: endedAt - 1000,
    endedAt,
    attempts: [{ worker: "opencode", startedAt: endedAt - 1000, endedAt, outcome: "ok" }],
    progress: emptyProgress(),
    outcome: "ok",
    exit: 0,
    receipt: {
      tokens: emptyProgress().tokens,
      returnedTokens: 90,
      compression: null,
      workerCost: 0,
      workerCostSource: "free",
      primary: "sonnet",
      primaryCost: saved,
      saved,
    },
  };
}

Deno.test("pitroom statusline adds up what the history saved in the last seven days", async () => {
  await using state = await tempDir();
  const paths = statePaths(state.path);
  const day = 86_400_000;
  const now = Date.now();
  for (
    const r of [
      finishedRun("20261129-101500-aaaa", now - day, 1.25),
      finishedRun("20261129-101501-bbbb", now - 2 * day, 2.5),
      finishedRun("20261101-101500-cccc", now - 20 * day, 100),
    ]
  ) {
    await Deno.mkdir(paths.run(r.id).dir, { recursive: true });
    await writeRecord(paths, r);
  }
  const imported = await pitroom(["history", "import"], {
    env: { PITROOM_STATE_DIR: state.path, HOME: state.path, PATH: "/usr/bin:/bin" },
    cwd: state.path,
  });
  assert.equal(imported.code, 0, imported.stderr);
  assert.equal(await statusline(state.path, []), "pitroom 0 running · $3.75 saved this week\n");
});
