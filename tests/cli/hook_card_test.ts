import assert from "node:assert/strict";
import { join } from "node:path";
import { parseHookInput, pitroomCalls, renderCard, runIdsOf } from "../../src/cli/hook_card.ts";
import { shellCommands, shellLine } from "../../src/cli/shell_words.ts";
import { statePaths } from "../../src/store/paths.ts";
import { emptyProgress, RECORD_SCHEMA, type RunRecord } from "../../src/store/record.ts";
import { writeRecord } from "../../src/store/runs.ts";
import { pitroom } from "../support/pitroom.ts";
import { tempDir } from "../support/temp.ts";

const ID = "20261130-101500-3f2a";
const OTHER = "20261130-101502-9b1c";

/** A PostToolUse input as Claude Code sends it for a Bash call. */
function claudeHook(command: string, stdout: string): string {
  return JSON.stringify({
    session_id: "5f1c2b1e-0d5a-4b8e-9a51-3f0e6c2d7a10",
    transcript_path: "/home/u/.claude/projects/-repo/5f1c2b1e.jsonl",
    cwd: "/repo",
    permission_mode: "default",
    hook_event_name: "PostToolUse",
    tool_name: "Bash",
    tool_input: { command, description: "Run a Pitroom worker" },
    tool_response: { stdout, stderr: "", interrupted: false, isImage: false },
    tool_use_id: "toolu_01ABC",
  });
}

/** The same as Codex sends it (the output as one string). */
function codexHook(command: string, output: string): string {
  return JSON.stringify({
    session_id: "s",
    transcript_path: null,
    cwd: "/repo",
    hook_event_name: "PostToolUse",
    model: "gpt-5.5",
    permission_mode: "default",
    tool_name: "Bash",
    tool_input: { command },
    tool_response: output,
    tool_use_id: "call_1",
    turn_id: "t1",
  });
}

function record(id: string, overrides: Partial<RunRecord> = {}): RunRecord {
  return {
    schemaVersion: RECORD_SCHEMA,
    id,
    state: "running",
    mode: "isolate",
    task: "Add a --verbose flag to the CLI",
    cwd: "/repo",
    chain: [{ worker: "opencode", model: "opencode/space-bunny-free" }],
    web: false,
    timeoutMs: 60_000,
    createdAt: 1_000,
    startedAt: 1_000,
    attempts: [{ worker: "opencode", model: "opencode/space-bunny-free", startedAt: 1_000 }],
    progress: emptyProgress(),
    ...overrides,
  };
}

function finished(id: string, overrides: Partial<RunRecord> = {}): RunRecord {
  return record(id, {
    state: "done",
    outcome: "ok",
    exit: 0,
    endedAt: 73_000,
    changes: {
      before: { tree: "a", head: null, bareDirs: [], ignored: [] },
      after: "b",
      files: [
        { path: "src/cli.ts", status: "modified", added: 12, removed: 3, binary: false },
        { path: "src/flags.ts", status: "added", added: 8, removed: 0, binary: false },
      ],
    },
    receipt: {
      tokens: { input: 1, output: 1, cached: 0, reasoning: 0 },
      returnedTokens: 100,
      compression: 0,
      workerCost: 0,
      workerCostSource: "free",
      primary: "sonnet",
      primaryCost: 0.42,
      saved: 0.42,
    },
    ...overrides,
  });
}

async function stateWith(...records: RunRecord[]) {
  const dir = await tempDir();
  const paths = statePaths(dir.path);
  for (const r of records) {
    await Deno.mkdir(paths.run(r.id).dir, { recursive: true });
    await writeRecord(paths, r);
  }
  return dir;
}

async function hook(stateDir: string, input: string) {
  const out = await pitroom(["hook-card"], {
    env: { PITROOM_STATE_DIR: stateDir, HOME: stateDir, PATH: "/usr/bin:/bin" },
    cwd: stateDir,
    stdin: input,
  });
  assert.equal(out.code, 0, out.stderr);
  assert.equal(out.stderr, "");
  return out.stdout === "" ? null : (JSON.parse(out.stdout) as { systemMessage: string });
}

Deno.test("pitroomCalls() finds the Pitroom commands that start, finish or apply runs", () => {
  const calls = pitroomCalls(
    `cd /repo && PITROOM_WORKER=codex pitroom run --bg -g docs "Summarise; then stop" ; ` +
      `/usr/local/bin/pitroom wait ${ID} | tail -5 && npx pitroom apply last && pitroom status`,
  );
  assert.deepEqual(calls, [
    { sub: "run", args: ["--bg", "-g", "docs", "Summarise; then stop"], phase: "started" },
    { sub: "wait", args: [ID], phase: "finished" },
    { sub: "apply", args: ["last"], phase: "applied" },
  ]);
  assert.deepEqual(pitroomCalls("pitroom run 'Where is it?'")[0]?.phase, "finished");
  assert.deepEqual(pitroomCalls("deno task pitroom crew plan.md")[0]?.phase, "started");
  assert.deepEqual(pitroomCalls("echo pitroom run x; grep -r pitroom ."), []);
  assert.deepEqual(pitroomCalls("pitroom run --help"), []);
});

Deno.test("shellCommands() keeps quoted words whole and shellLine() quotes them back", () => {
  assert.deepEqual(shellCommands(`a 'b c' "d \\"e\\"" f\\ g;h`), [["a", "b c", 'd "e"', "f g"], [
    "h",
  ]]);
  const words = ["/usr/bin/deno", "run", "it's", "a b", "--x=1"];
  assert.deepEqual(shellCommands(shellLine(words)), [words]);
});

Deno.test("parseHookInput() reads Claude Code's and Codex's PostToolUse input", () => {
  assert.deepEqual(parseHookInput(claudeHook("pitroom run --bg x", `${ID}\n`)), {
    command: "pitroom run --bg x",
    output: `${ID}\n`,
  });
  assert.deepEqual(parseHookInput(codexHook("pitroom wait", "out")), {
    command: "pitroom wait",
    output: "out",
  });
  assert.equal(parseHookInput("not json"), null);
  assert.equal(
    parseHookInput(JSON.stringify({ tool_name: "Read", tool_input: { path: "x" } })),
    null,
  );
  const call = pitroomCalls(`pitroom wait ${OTHER}`)[0]!;
  assert.deepEqual(runIdsOf(call, `run ${ID} · done\nrun ${OTHER} · done`), [OTHER, ID]);
  const json =
    `[\n  {\n    "id": "${ID}",\n    "continues": { "run": "20261129-000000-aaaa" }\n  }\n]`;
  assert.deepEqual(runIdsOf(pitroomCalls("pitroom wait --json")[0]!, json), [ID]);
  const crew = `crew docs: 2 run(s) started\n  ${ID}  Summarise a\n  ${OTHER}  Summarise b\n`;
  assert.deepEqual(runIdsOf(pitroomCalls("pitroom crew -g docs a b")[0]!, crew), [ID, OTHER]);
});

Deno.test("renderCard() shows worker, state, time, changes and the saving", () => {
  assert.equal(
    renderCard(finished(ID), "finished", 100_000),
    `✓ pitroom ${ID} done in 1m12s · isolate\n` +
      "  opencode (opencode/space-bunny-free) · 2 files +20 -3 · saved ~$0.42 (estimate)",
  );
  const failed = finished(ID, {
    state: "problem",
    outcome: "rate_limited",
    message: "429 Too Many",
  });
  assert.match(
    renderCard(failed, "finished", 100_000),
    /^✗ pitroom .* problem in 1m12s[^]*· 429 Too Many/,
  );
  assert.equal(
    renderCard(record(ID), "started", 4_000),
    `▶ pitroom ${ID} running · isolate\n` +
      '  opencode (opencode/space-bunny-free) · "Add a --verbose flag to the CLI"',
  );
});

Deno.test("pitroom hook-card prints one card per run and phase, then nothing", async () => {
  await using state = await stateWith(record(ID));
  const started = claudeHook('pitroom run --bg -i "Add a --verbose flag"', `${ID}\n`);
  const first = await hook(state.path, started);
  assert.match(first?.systemMessage ?? "", new RegExp(`^▶ pitroom ${ID} running · isolate\\n`));
  assert.equal(await hook(state.path, started), null, "the started card shows once");

  const waited = claudeHook(`pitroom wait ${ID}`, "");
  assert.equal(await hook(state.path, waited), null, "no finished card while it still runs");
  const paths = statePaths(state.path);
  await writeRecord(paths, finished(ID));
  const done = await hook(state.path, waited);
  assert.match(
    done?.systemMessage ?? "",
    /^✓ pitroom .* done in 1m12s · isolate\n.*saved ~\$0\.42/,
  );
  assert.equal(await hook(state.path, waited), null, "the finished card shows once");

  const apply = codexHook("pitroom apply last", `applied ${ID}: 2 file(s)\n`);
  assert.equal(await hook(state.path, apply), null, "not applied yet: no card");
  await writeRecord(
    paths,
    finished(ID, {
      isolation: { copyRoot: "/c", links: [], applied: { at: 80_000, files: ["a", "b"] } },
    }),
  );
  assert.match(
    (await hook(state.path, apply))?.systemMessage ?? "",
    /^⇢ pitroom .* applied · 2 files/,
  );
  assert.equal(await hook(state.path, apply), null);
  assert.ok(await Deno.stat(join(paths.run(ID).dir, "cards", "applied")));
});

Deno.test("pitroom hook-card shows a crew's runs together and ignores everything else", async () => {
  await using state = await stateWith(record(ID), record(OTHER));
  const crew = await hook(state.path, claudeHook("pitroom crew tasks.md", `${ID}\n${OTHER}\n`));
  assert.equal(crew?.systemMessage.split("\n").filter((l) => l.startsWith("▶")).length, 2);
  assert.equal(await hook(state.path, claudeHook("ls -la", `${ID}\n`)), null);
  assert.equal(
    await hook(state.path, claudeHook("pitroom run --bg x", "20261130-000000-dead")),
    null,
  );
  assert.equal(await hook(state.path, "{broken"), null);
  assert.equal(await hook(state.path, ""), null);
});
