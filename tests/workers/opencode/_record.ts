/**
 * Records real opencode streams into `testdata/` for the parser and classifier tests:
 * `deno run -P=pitroom tests/workers/opencode/_record.ts` runs the installed opencode through the
 * backend's own launch against the scripted model server, then writes `NAME.jsonl` (stdout with
 * ids, times and paths normalised) and `NAME.txt` (version, command, exit and stderr).
 */
import { join } from "node:path";
import { runProcess } from "../../../src/engine/process.ts";
import { realSys } from "../../../src/sys/real.ts";
import { opencodeBackend } from "../../../src/workers/opencode/mod.ts";
import type { Mode, RunSpec } from "../../../src/workers/types.ts";
import { startModelServer } from "../../support/model_server/fixture.ts";

const TESTDATA = join(import.meta.dirname ?? ".", "testdata");

interface Recording {
  mode: Mode;
  scenario: Record<string, unknown>;
  /** The model asked for; `fake/NAME` (listed in opencode's config) by default. */
  model?: string;
}

const RECORDINGS: Record<string, Recording> = {
  "read_answer": {
    mode: "read",
    scenario: {
      turns: [
        { say: "Looking.", read: "notes.txt" },
        { grep: "hello" },
        { answer: "notes.txt says hello world.", usage: { input: 100, output: 20, cached: 40 } },
      ],
    },
  },
  "edit": {
    mode: "write",
    scenario: {
      turns: [
        { edit: { path: "notes.txt", old: "world", new: "there" } },
        { answer: "Changed notes.txt:1." },
      ],
    },
  },
  "denied_edit": {
    mode: "read",
    scenario: {
      turns: [
        { edit: { path: "notes.txt", old: "world", new: "there" } },
        { shell: "echo pwned > pwned.txt" },
        { web: "http://127.0.0.1:9/page" },
        { answer: "I could not change anything." },
      ],
    },
  },
  "write_denied_commit": {
    mode: "write",
    scenario: {
      turns: [
        { shell: "git commit -am sneaky" },
        { web: "http://127.0.0.1:9/page" },
        { answer: "Not committed." },
      ],
    },
  },
  "error_404": {
    mode: "read",
    scenario: { turns: [{ error: { status: 404, kind: "model_not_found" } }] },
  },
  "error_429": {
    mode: "read",
    scenario: { turns: [{ error: { status: 429, kind: "rate_limit", retry_after_s: 1 } }] },
  },
  "error_quota": {
    mode: "read",
    scenario: { turns: [{ error: { status: 429, kind: "quota_daily", retry_after_s: 1 } }] },
  },
  "error_unconfigured_model": {
    mode: "read",
    scenario: { turns: [{ answer: "unused" }] },
    model: "fake/not-in-config",
  },
  "error_401": {
    mode: "read",
    scenario: { turns: [{ error: { status: 401, kind: "auth" } }] },
  },
};

/** Replaces run-specific ids, times and paths with stable placeholders. */
export function normalise(text: string, repo: string, home: string): string {
  const ids = new Map<string, string>();
  return text
    .replaceAll(repo, "/REPO")
    .replaceAll(home, "/HOME")
    .replace(/\b(ses|msg|prt|call)_[A-Za-z0-9_]+/g, (id, kind: string) => {
      if (!ids.has(id)) ids.set(id, `${kind}_${String(ids.size + 1).padStart(4, "0")}`);
      return ids.get(id) ?? id;
    })
    .replace(/"(timestamp|start|end|created|updated)":\d{13}/g, '"$1":1700000000000')
    .replace(/"snapshot":"[0-9a-f]{40}"/g, '"snapshot":"0000000000000000000000000000000000000000"')
    .replace(/"date":"[^"]*"/g, '"date":"Tue, 14 Nov 2023 22:13:20 GMT"')
    .replace(/timestamp=\S+/g, "timestamp=2023-11-14T22:13:20.000Z")
    .replace(/run=[0-9a-f]{8}/g, "run=00000000")
    .replace(/err_[0-9a-f]{8}/g, "err_00000000")
    .replace(/127\.0\.0\.1:\d+/g, "127.0.0.1:PORT");
}

async function git(cwd: string, ...args: string[]): Promise<void> {
  const out = await new Deno.Command("git", {
    args: ["-c", "user.email=t@example.com", "-c", "user.name=t", ...args],
    cwd,
    stdin: "null",
  }).output();
  if (!out.success) throw new Error(`git ${args.join(" ")} failed`);
}

async function record(name: string, { mode, scenario, model }: Recording) {
  await using server = await startModelServer({ scenarios: { [name]: scenario } });
  const repo = await Deno.makeTempDir({ prefix: "pitroom-opencode-rec-" });
  try {
    await Deno.writeTextFile(join(repo, "notes.txt"), "hello world\n");
    await git(repo, "init", "-q");
    await git(repo, "add", "-A");
    await git(repo, "commit", "-qm", "init");
    const spec: RunSpec = {
      mode,
      prompt: "Do the task.",
      cwd: repo,
      privateDir: repo,
      model: model ?? `fake/${name}`,
      web: false,
      baseEnv: server.env,
    };
    const launch = opencodeBackend.launch(spec);
    const stdout: string[] = [];
    const end = await runProcess(realSys(), launch, {
      timeoutMs: 180_000,
      onStdoutLine: (line) => stdout.push(line),
    });
    const version = (await opencodeBackend.detect(realSys().runner, server.env))?.version;
    const norm = (text: string) => normalise(text, repo, server.home);
    await Deno.writeTextFile(join(TESTDATA, `${name}.jsonl`), norm(stdout.join("\n")) + "\n");
    const note = [
      `opencode ${version ?? "unknown"}, recorded by tests/workers/opencode/_record.ts`,
      `Command: ${
        launch.argv.join(" ")
      } <<< "${spec.prompt}" (mode ${mode}, agent config in OPENCODE_CONFIG_CONTENT)`,
      `Scenario: ${JSON.stringify(scenario)}`,
      `Exit: code ${end.code} signal ${end.signal}`,
      "stderr:",
      ...norm(end.stderr).split("\n").filter((l) => l !== "").map((l) => `  ${l}`),
      "",
    ].join("\n");
    await Deno.writeTextFile(join(TESTDATA, `${name}.txt`), note);
    console.log(`${name}: exit ${end.code}, ${stdout.length} lines`);
  } finally {
    await Deno.remove(repo, { recursive: true });
  }
}

if (import.meta.main) {
  const only = new Set(Deno.args);
  await Promise.all(
    Object.entries(RECORDINGS)
      .filter(([name]) => only.size === 0 || only.has(name))
      .map(([name, recording]) => record(name, recording)),
  );
}
