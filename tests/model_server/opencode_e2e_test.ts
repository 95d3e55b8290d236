/**
 * The real opencode (1.18.33) against the scripted model server: the proof that the Chat
 * Completions dialect speaks what opencode understands, the file's text sent back to the server.
 * An edit and a model the server does not know are opencode runs of the worker's own tests
 * (tests/workers/opencode/e2e_test.ts), each run costing seconds.
 */
import { join } from "node:path";
import { assertEquals, assertIncludes } from "./_assert.ts";
import { WORKER_BIN } from "../support/model_server/env_file.ts";
import { type RunningModelServer, startModelServer } from "../support/model_server/fixture.ts";

const OPENCODE = join(WORKER_BIN, "opencode");

interface OpencodeRun {
  code: number;
  lines: Record<string, unknown>[];
  stderr: string;
}

/** Runs `opencode run --format json -m MODEL PROMPT` in `cwd` with the server's worker env. */
async function runOpencode(
  server: RunningModelServer,
  options: { cwd: string; model: string; prompt: string; timeoutMs?: number },
): Promise<OpencodeRun> {
  const child = new Deno.Command(OPENCODE, {
    args: ["run", "--format", "json", "-m", options.model, options.prompt],
    cwd: options.cwd,
    env: server.env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 120_000);
  try {
    const output = await child.output();
    const stdout = new TextDecoder().decode(output.stdout);
    return {
      code: output.code,
      lines: stdout.split("\n").filter((line) => line.trim() !== "").map((line) =>
        JSON.parse(line)
      ),
      stderr: new TextDecoder().decode(output.stderr),
    };
  } finally {
    clearTimeout(timer);
  }
}

/** A temp git repo with `files`, removed on dispose. */
async function tempRepo(files: Record<string, string>): Promise<{ dir: string } & AsyncDisposable> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "ms-repo-" }));
  for (const [name, text] of Object.entries(files)) await Deno.writeTextFile(join(dir, name), text);
  const git = async (...args: string[]) => {
    const output = await new Deno.Command("git", {
      args: ["-c", "user.name=t", "-c", "user.email=t@example.invalid", ...args],
      cwd: dir,
      stdin: "null",
    }).output();
    assertEquals(output.code, 0, new TextDecoder().decode(output.stderr));
  };
  await git("init", "-q");
  await git("add", ".");
  await git("commit", "-qm", "init");
  return { dir, [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
}

type Part = {
  tool?: string;
  text?: string;
  reason?: string;
  state?: { status?: string; input?: Record<string, unknown>; output?: string };
};

function parts(run: OpencodeRun, type: string): Part[] {
  return run.lines.filter((line) => line.type === type).map((line) => line.part as Part);
}

Deno.test("opencode answers a read-answer scenario after really reading the file", async () => {
  await using repo = await tempRepo({ "notes.txt": "The answer is 42.\n" });
  await using server = await startModelServer({
    scenarios: {
      "read-answer": {
        turns: [{ say: "Reading the notes.", read: "notes.txt" }, {
          answer: "The notes say 42.",
        }],
      },
    },
  });
  const run = await runOpencode(server, {
    cwd: repo.dir,
    model: "fake/read-answer",
    prompt: "What do the notes say?",
  });
  assertEquals(run.code, 0, run.stderr);
  const [read] = parts(run, "tool_use");
  assertEquals([read?.tool, read?.state?.status], ["read", "completed"]);
  assertEquals(read?.state?.input, { filePath: join(repo.dir, "notes.txt") });
  assertIncludes(read?.state?.output ?? "", "The answer is 42.");
  assertEquals(parts(run, "text").map((part) => part.text), [
    "Reading the notes.",
    "The notes say 42.",
  ]);
  assertEquals(parts(run, "step_finish").map((part) => part.reason), ["tool-calls", "stop"]);
  const turns = (await server.requests()).filter((entry) => entry.played === "reply");
  assertEquals(turns.map((entry) => entry.turn), [0, 1]);
});
