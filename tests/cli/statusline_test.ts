import assert from "node:assert/strict";
import { join } from "node:path";
import { pitroomPart, statusText } from "../../src/cli/statusline.ts";
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
