/**
 * The real Claude Code, Codex and Gemini CLIs as MCP clients of `pitroom mcp`: each is registered
 * by `pitroom install --mcp` in the model server's private home, then driven by a scenario turn
 * that calls `pitroom_run` by the name that CLI gives MCP tools (`mcp__pitroom__pitroom_run` for
 * Claude Code and Codex, whose Responses requests group it in the `mcp__pitroom` namespace;
 * `mcp_pitroom_pitroom_run` for Gemini CLI). The run's worker (codex on the scripted model; opencode under Gemini CLI)
 * answers, and the model server's request log shows that answer in the tool result of the
 * client's next model call, with nothing of the run's record (pids, cache key, settings,
 * attempts); Claude Code's, the structured content, within the result budget and counted by the
 * run's receipt. Claude Code also does it once over HTTP with the bearer token, and once
 * interactively (in a pseudo-terminal, as people use it; its print mode declares no tasks),
 * where it speaks 2026-07-28 and the Tasks extension: the call goes to the background as a task,
 * the model keeps working while the worker runs, and the worker's answer reaches the model in a
 * task notification when the run ends.
 *
 * Needs a loopback-only network: `unshare -n bash -c 'ip link set lo up; deno test -P ...'`.
 */
import { isLocked } from "../../src/store/locks.ts";
import { statePaths } from "../../src/store/paths.ts";
import assert from "node:assert/strict";
import { join } from "node:path";
import { startModelServer } from "../support/model_server/fixture.ts";
import type { LogEntry } from "../support/model_server/server.ts";
import { moduleCacheEnv, pitroom, pitroomArgv } from "../support/pitroom.ts";
import { tempRepo, waitFor } from "../support/temp.ts";

const WORKER_ANSWER = "WORKER-ANSWER: src/app.ts:1 exports answer = 41";

const RUN_INPUT = {
  task: "Say what src/app.ts exports",
  worker: "codex",
  model: "fake/mcp-worker",
  mode: "read",
  waitSeconds: 120,
};
/**
 * Gemini CLI hands its MCP servers an environment without secret-looking variables, so the
 * scripted codex provider's key never reaches a codex worker: its run is opencode's, whose
 * provider is in its config file.
 */
const GEMINI_RUN_INPUT = { ...RUN_INPUT, worker: "opencode" };

/** A worker whose model takes a few seconds over its first call: the run outlasts the client's turn. */
const SLOW_WORKER_MS = 4000;

const SCENARIOS = {
  "mcp-worker": { turns: [{ read: "src/app.ts" }, { answer: WORKER_ANSWER }] },
  "mcp-slow-worker": {
    turns: [{ read: "src/app.ts", delay_ms: SLOW_WORKER_MS }, { answer: WORKER_ANSWER }],
  },
  "claude-task": {
    turns: [
      {
        say: "Delegating.",
        tool: {
          name: "mcp__pitroom__pitroom_run",
          input: { ...RUN_INPUT, model: "fake/mcp-slow-worker", waitSeconds: undefined },
        },
      },
      { say: "Meanwhile I read it myself.", read: "src/app.ts" },
      { answer: "The worker is still on it." },
    ],
    followup: [{ answer: "The worker answered." }],
  },
  "claude-mcp": {
    turns: [
      { say: "Delegating.", tool: { name: "mcp__pitroom__pitroom_run", input: RUN_INPUT } },
      { answer: "The worker answered." },
    ],
  },
  "codex-mcp": {
    turns: [
      { tool: { name: "mcp__pitroom__pitroom_run", input: RUN_INPUT } },
      { answer: "The worker answered." },
    ],
  },
  "gemini-mcp": {
    turns: [
      { tool: { name: "mcp_pitroom_pitroom_run", input: GEMINI_RUN_INPUT } },
      { answer: "The worker answered." },
    ],
  },
};

const CLIENT_TIMEOUT_MS = 180_000;

async function world() {
  const server = await startModelServer({ scenarios: SCENARIOS });
  const repo = await tempRepo({ "src/app.ts": "export const answer = 41;\n" });
  // The state dir is the default one of the private HOME, so a client that passes its MCP
  // server only a few variables (codex: HOME, PATH, ...) still reaches the same one.
  const env = { ...server.env, ...moduleCacheEnv(), NO_COLOR: "1" };
  return {
    server,
    repo: repo.path,
    env,
    stateDir: join(server.env.XDG_STATE_HOME!, "pitroom"),
    async [Symbol.asyncDispose]() {
      // The state dir's host may still be finishing the worker's run (writing into the private
      // HOME the model server removes): it exits once idle, so wait for that first.
      const host = statePaths(join(server.env.XDG_STATE_HOME!, "pitroom")).host.lock;
      await waitFor(async () => !(await isLocked(host)), {
        timeoutMs: 60_000,
        what: "the host to end",
      });
      await repo[Symbol.asyncDispose]();
      await server[Symbol.asyncDispose]();
    },
  };
}

type World = Awaited<ReturnType<typeof world>>;

async function client(w: World, argv: string[], extraEnv: Record<string, string> = {}) {
  const out = await new Deno.Command(argv[0]!, {
    args: argv.slice(1),
    cwd: w.repo,
    env: { ...w.env, ...extraEnv },
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS),
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

async function install(w: World, name: string) {
  const out = await pitroom(["install", "--mcp", "--client", name], { env: w.env, cwd: w.repo });
  assert.equal(out.code, 0, out.stderr);
  assert.match(out.stdout, new RegExp(`${name} +registered`));
}

/**
 * The client's request after its tool call, which must carry the worker's answer and nothing of
 * how Pitroom ran it (the run's brief, not its record); its tool result as the model got it.
 */
async function assertAnswerReached(
  w: World,
  dialect: string,
  scenario: string,
  worker = "codex",
): Promise<string> {
  const log: LogEntry[] = await w.server.requests();
  assert.ok(
    log.some((e) => e.dialect === worker && e.scenario === "mcp-worker"),
    "the worker ran on the scripted model",
  );
  const next = log.find((e) => e.dialect === dialect && e.scenario === scenario && e.turn === 1);
  assert.ok(next, `${dialect} made its next model call: ${JSON.stringify(log)}`);
  const result = (next.results ?? []).find((r) => r.includes(WORKER_ANSWER));
  assert.ok(result, `the tool result reached ${dialect}: ${JSON.stringify(next.results)}`);
  for (const internal of ["supervisorPid", "workerPid", "cacheKey", "settings", "attempts"]) {
    assert.ok(!result.includes(internal), `${dialect}'s model got ${internal}: ${result}`);
  }
  return result;
}

/**
 * Claude Code gives its model the result's structured content: the run's brief, within the
 * budget of a read run (1.5 times its answer and 400 bytes), and the run's receipt counts the
 * result Pitroom handed over (that, and a one-line text beside it).
 */
async function assertSmallResult(w: World, result: string) {
  const bytes = (text: string) => new TextEncoder().encode(text).length;
  const brief = JSON.parse(result).runs[0];
  assert.equal(brief.answer, WORKER_ANSWER);
  assert.ok(
    bytes(result) <= 1.5 * bytes(WORKER_ANSWER) + 400,
    `${bytes(result)} bytes: ${result}`,
  );
  const shown = await pitroom(["show", brief.id, "--json"], { env: w.env, cwd: w.repo });
  const handed = JSON.parse(shown.stdout).receipt.returned;
  assert.equal(handed.handovers, 1);
  assert.ok(
    handed.bytes >= bytes(result) && handed.bytes - bytes(result) < 200,
    `the receipt counts ${handed.bytes} bytes, the model got ${bytes(result)}`,
  );
  assert.ok(brief.receipt.includes(`~${Math.ceil(handed.bytes / 4)} returned`), brief.receipt);
}

Deno.test("Claude Code calls pitroom_run through `pitroom mcp` (stdio) and gets the worker's answer", async () => {
  await using w = await world();
  await install(w, "claude-code");
  const out = await client(w, [
    "claude",
    "-p",
    "--output-format",
    "stream-json",
    "--verbose",
    "--model",
    "fake/claude-mcp",
    "--allowedTools",
    "mcp__pitroom__pitroom_run",
    "--",
    "Ask a worker what src/app.ts exports",
  ]);
  assert.equal(out.code, 0, out.stderr);
  assert.ok(out.stdout.includes(WORKER_ANSWER), out.stdout);
  await assertSmallResult(w, await assertAnswerReached(w, "claude", "claude-mcp"));
});

Deno.test("Codex calls pitroom_run through `pitroom mcp` and gets the worker's answer", async () => {
  await using w = await world();
  await install(w, "codex");
  // codex hands its MCP servers a few variables only; the worker needs the rest of the env.
  const passed = Object.keys(w.env).filter((k) => /^[A-Z_][A-Z0-9_]*$/.test(k));
  const out = await client(w, [
    "codex",
    "exec",
    "--json",
    "--skip-git-repo-check",
    "-m",
    "fake/codex-mcp",
    "-c",
    'mcp_servers.pitroom.default_tools_approval_mode="approve"',
    "-c",
    `mcp_servers.pitroom.env_vars=${JSON.stringify(passed)}`,
    "-c",
    "mcp_servers.pitroom.tool_timeout_sec=150",
    // codex exec does not wait for an MCP server that is still starting unless it is required
    // (then it waits for its tool list, up to the startup timeout).
    "-c",
    "mcp_servers.pitroom.required=true",
    "-c",
    "mcp_servers.pitroom.startup_timeout_sec=60",
    "Ask a worker what src/app.ts exports",
  ]);
  assert.equal(out.code, 0, out.stderr);
  const call = out.stdout.split("\n").filter((l) => l.includes('"mcp_tool_call"')).at(-1) ?? "";
  assert.match(
    call,
    /"status":"completed"/,
    out.stdout + out.stderr + JSON.stringify(await w.server.requests()),
  );
  assert.ok(call.includes(WORKER_ANSWER), call);
  await assertAnswerReached(w, "codex", "codex-mcp");
});

Deno.test("Gemini CLI calls pitroom_run through `pitroom mcp` and gets the worker's answer", async () => {
  await using w = await world();
  await install(w, "gemini");
  const out = await client(w, [
    "gemini",
    "-p",
    "Ask a worker what src/app.ts exports",
    "--output-format",
    "stream-json",
    "-m",
    "gemini-mcp",
    // Non-interactive gemini offers a tool that asks for confirmation only in yolo mode.
    "--approval-mode",
    "yolo",
  ]);
  assert.equal(out.code, 0, out.stderr);
  assert.match(out.stdout, /"tool_name":"mcp_pitroom_pitroom_run"/);
  await assertAnswerReached(w, "gemini", "gemini-mcp", "opencode");
});

Deno.test("Claude Code calls pitroom_run over HTTP with the bearer token", async () => {
  await using w = await world();
  const token = "e2e-token-0123456789abcdef";
  const [cmd, ...rest] = pitroomArgv();
  const serve = new Deno.Command(cmd!, {
    args: [...rest, "mcp", "--http", "--port", "0"],
    cwd: w.repo,
    env: { ...w.env, PITROOM_MCP_TOKEN: token },
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const reader = serve.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let banner = "";
  // Read to the end, so the child's stderr is closed by the time the test ends.
  let drained: Promise<void> | undefined;
  try {
    while (!/register it: .*\n/.test(banner)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`pitroom mcp --http ended: ${banner}`);
      banner += value;
    }
    drained = (async () => {
      while (!(await reader.read()).done) {
        // The server's later lines are not looked at.
      }
    })();
    const url = /serving (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(banner)?.[1];
    assert.ok(url, banner);
    const add = await client(w, [
      "claude",
      "mcp",
      "add",
      "--scope",
      "user",
      "--transport",
      "http",
      "pitroom",
      url,
      "--header",
      `Authorization: Bearer ${token}`,
    ]);
    assert.equal(add.code, 0, add.stderr);
    const out = await client(w, [
      "claude",
      "-p",
      "--output-format",
      "stream-json",
      "--verbose",
      "--model",
      "fake/claude-mcp",
      "--allowedTools",
      "mcp__pitroom__pitroom_run",
      "--",
      "Ask a worker what src/app.ts exports",
    ]);
    assert.equal(out.code, 0, out.stderr);
    assert.ok(out.stdout.includes(WORKER_ANSWER), out.stdout);
    await assertAnswerReached(w, "claude", "claude-mcp");
  } finally {
    serve.kill("SIGTERM");
    await serve.status;
    await (drained ?? reader.cancel());
  }
});

/** A shell word (for `script -c`). */
function quoted(word: string): string {
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

Deno.test("Claude Code (interactive) runs a long pitroom_run as an MCP task in the background and gets its answer when the run ends", async () => {
  await using w = await world();
  await install(w, "claude-code");
  // What a person's first start settles: onboarding done, the API key and the folder trusted.
  const config = join(w.server.env.CLAUDE_CONFIG_DIR!, ".claude.json");
  const settled = JSON.parse(await Deno.readTextFile(config));
  settled.hasCompletedOnboarding = true;
  settled.theme = "dark";
  settled.customApiKeyResponses = {
    approved: [w.server.env.ANTHROPIC_API_KEY!.slice(-20)],
    rejected: [],
  };
  settled.projects = {
    ...settled.projects,
    [await Deno.realPath(w.repo)]: { hasTrustDialogAccepted: true, allowedTools: [] },
  };
  await Deno.writeTextFile(config, JSON.stringify(settled));
  const claude = [
    "claude",
    "--model",
    "fake/claude-task",
    "--allowedTools",
    "mcp__pitroom__pitroom_run",
    "Read",
    "--",
    "Ask a worker what src/app.ts exports",
  ];
  // `script` gives it a terminal; its screen goes nowhere.
  const session = new Deno.Command("script", {
    args: ["-qfec", claude.map(quoted).join(" "), "/dev/null"],
    cwd: w.repo,
    env: { ...w.env, TERM: "xterm-256color" },
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "null",
    detached: true,
  }).spawn();
  try {
    await waitFor(
      async () =>
        (await w.server.requests()).some((e) => e.scenario === "claude-task" && e.followup),
      { timeoutMs: CLIENT_TIMEOUT_MS, what: "the task notification to reach the model" },
    );
  } finally {
    Deno.kill(-session.pid, "SIGTERM");
    await session.status;
  }
  const log: LogEntry[] = await w.server.requests();
  const at = (match: (e: LogEntry) => boolean) => log.findIndex(match);
  const turn = (n: number) => (e: LogEntry) =>
    e.scenario === "claude-task" && !e.followup && e.turn === n;
  // The call answered at once with a task, which Claude Code moved to the background.
  const afterCall = log[at(turn(1))];
  assert.ok(afterCall, JSON.stringify(log));
  assert.match(afterCall.results?.[0] ?? "", /task/i, JSON.stringify(afterCall.results));
  assert.ok(!(afterCall.results ?? []).some((r) => r.includes(WORKER_ANSWER)));
  // The model kept working: its next calls came before the worker's model had answered once.
  const workerFirst = at((e) => e.scenario === "mcp-slow-worker" && e.turn === 0);
  assert.ok(workerFirst >= 0, "the worker ran");
  assert.ok(at(turn(2)) >= 0 && at(turn(2)) < workerFirst, JSON.stringify(log));
  // When the run ended, its answer reached the model.
  const notified = log[at((e) => e.scenario === "claude-task" && e.followup)]!;
  assert.ok(notified.user.includes(WORKER_ANSWER), notified.user);
});
