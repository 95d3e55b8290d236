/**
 * The end-to-end suite every backend passes through the real program: `pitroom` (main.ts under
 * `deno run`) drives the real pinned worker CLI against the scripted model server. Each backend
 * has a `workers_<name>_test.ts` that calls `workerSuite()` with a small table saying how its
 * CLI names a scenario and which limits of the CLI the cases must allow for; the cases are the
 * same for all: a read answer, an in-place edit in a dirty tree with revert, actions denied in
 * read mode, a call the CLI would ask about denied at once, each failure class with its cooldown,
 * fallback to the next target, a follow-up in the same session.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import type { PitroomEvent } from "../../src/events/mod.ts";
import type { RunRecord } from "../../src/store/record.ts";
import type { WorkerName } from "../../src/workers/types.ts";
import { git, tempDir } from "../support/temp.ts";
import { type World, world } from "./_world.ts";

/** A failure class a scenario can script, and the outcome pitroom must record for it. */
export const FAILURES = [
  { kind: "model_not_found", outcome: "model_not_found", cools: false },
  { kind: "rate_limit", outcome: "rate_limited", cools: true },
  { kind: "quota", outcome: "quota", cools: true },
  { kind: "auth", outcome: "auth", cools: false },
] as const;

/** A failure kind of `FAILURES`. */
export type FailureKind = typeof FAILURES[number]["kind"];

/** How one backend takes part in the suite. */
export interface BackendTable {
  worker: WorkerName;
  /** The `-m` value that plays scenario `name` on the scripted model server. */
  model(name: string): string;
  /**
   * The scenario `error` each failure kind is scripted with, where the CLI needs another shape
   * than `{ kind }` to show that class (each override says why).
   * @default `{ kind }` for every kind
   */
  errors?: Partial<Record<FailureKind, Record<string, unknown>>>;
  /**
   * The failure kinds driven as a case of their own, for a CLI whose every start costs seconds
   * (each says why); model_not_found is also driven by the fallback case.
   * @default every kind
   */
  failures?: readonly FailureKind[];
  /**
   * The attempted actions of the read-mode case whose refusal the CLI reports in no event the
   * parser can see (each entry says why). The tree and the web server are still checked.
   * @default none
   */
  silentDenials?: readonly DeniedAction[];
  /** The write-mode case of a call the CLI's own permission rules would ask the user about. */
  asks: AskCase;
  /**
   * The cases to run, where a CLI is too slow for all of them in CI's budget (each entry of the
   * table says why); a case left out must be covered by the backend's own tests.
   * @default every case
   */
  cases?: readonly SuiteCase[];
}

/** The cases of the suite, by name. */
export type SuiteCase =
  | "read"
  | "edit"
  | "isolate"
  | "trespass"
  | "ask"
  | "failures"
  | "fallback"
  | "continue";

/**
 * A tool call a CLI would stop and ask the user about (a headless run has nobody to answer), in a
 * write run: Pitroom's launch must have it denied at once, the run going on to its answer.
 */
export interface AskCase {
  /**
   * The scenario turn making the call; `outside` is an empty folder outside the repository the
   * call may aim at. Whatever the call would create, inside the repository or in `outside`, the
   * case checks is not there.
   */
  turn(outside: string): Record<string, unknown>;
  /**
   * Writes the user's own CLI config asking for everything it can into the world's worker home
   * (`env` is the world's), which the launch must override.
   * @default the worker home as the model server made it
   */
  userConfig?(env: Record<string, string>): Promise<void>;
  /**
   * What the denial must say, where the CLI words a refusal for nobody to answer differently
   * from another denial.
   * @default any denial
   */
  message?: RegExp;
}

/** The actions the read-mode case attempts. */
export type DeniedAction = "edit" | "shell" | "web";

/** The bound every pitroom run of the suite is given. */
const BOUND = "120s";

const APP = "export const answer = 41;\n";

function parseJson<T>(text: string, what: string): T {
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`${what} is not JSON: ${text.slice(0, 2000)}`);
  }
}

/** `show RUN --events` as events. */
async function events(w: World, id: string): Promise<PitroomEvent[]> {
  const r = await w.run(["show", id, "--events"]);
  assert.equal(r.code, 0, r.stderr);
  return r.stdout.split("\n").filter((l) => l.trim() !== "").map((l) =>
    parseJson<PitroomEvent>(l, "an events line")
  );
}

function ofType<K extends PitroomEvent["type"]>(list: PitroomEvent[], type: K) {
  return list.filter((e): e is Extract<PitroomEvent, { type: K }> => e.type === type);
}

/** What a run did, for an assertion's message: the file on disk now, and its events. */
async function whatItDid(w: World, record: RunRecord): Promise<string> {
  const now = await w.read("src/app.ts").catch((error) => `(unreadable: ${error})`);
  const list = await events(w, record.id).catch((error) => `(no events: ${error})`);
  return `src/app.ts now: ${JSON.stringify(now)}\nevents:\n${
    typeof list === "string" ? list : list.map((e) => JSON.stringify(e)).join("\n")
  }`;
}

/** A pitroom run with `--json`: the exit code and the record it printed. */
async function runJson(
  w: World,
  args: string[],
): Promise<{ code: number; record: RunRecord; stderr: string }> {
  const r = await w.run(["run", "-t", BOUND, "--json", ...args]);
  const record = parseJson<RunRecord>(r.stdout, `run --json (exit ${r.code}, ${r.stderr})`);
  return { code: r.code, record, stderr: r.stderr };
}

/** A loopback web page that counts the requests it got: a web fetch that got through shows. */
function webPage(): { url: string; hits(): number } & AsyncDisposable {
  let hits = 0;
  const stop = new AbortController();
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen: () => {} },
    () => {
      hits++;
      return new Response("secret page\n");
    },
  );
  return {
    url: `http://127.0.0.1:${server.addr.port}/page`,
    hits: () => hits,
    async [Symbol.asyncDispose]() {
      stop.abort();
      await server.finished;
    },
  };
}

/** Registers the suite's cases for one backend. */
export function workerSuite(b: BackendTable): void {
  const W = b.worker;
  const runs = (name: SuiteCase) => b.cases?.includes(name) ?? true;

  if (runs("read")) {
    Deno.test(`${W}: a read run answers, counts its tool calls and changes nothing`, async () => {
      await using w = await world({
        "read-answer": {
          turns: [
            { say: "Looking.", grep: "answer" },
            { read: "src/app.ts" },
            { answer: "The answer is defined in src/app.ts:1 as 41." },
          ],
        },
      });
      // The text report a caller reads, then the record behind it.
      const r = await w.run([
        "run",
        "-t",
        BOUND,
        "-W",
        W,
        "-m",
        b.model("read-answer"),
        "Where is the answer defined?",
      ]);
      assert.equal(r.code, 0, r.stderr);
      const id = /^run (\S+) ·/m.exec(r.stdout)?.[1];
      assert.ok(id, r.stdout);
      const shown = await w.run(["show", id, "--json"]);
      const record = parseJson<RunRecord>(shown.stdout, `show --json (${shown.stderr})`);
      assert.equal(record.state, "done");
      assert.equal(record.outcome, "ok");
      assert.equal(record.mode, "read");
      assert.deepEqual(record.attempts.map((a) => a.worker), [W]);
      // Every worker runs in the sandbox (CI installs bubblewrap: scripts/install_toolchain.sh).
      assert.equal(record.attempts[0]?.sandbox, "bwrap");
      assert.equal(record.progress.tools, 2);
      assert.equal(record.answer?.trim(), "The answer is defined in src/app.ts:1 as 41.");
      assert.match(r.stdout, /· done · read ·/);
      assert.match(r.stdout, new RegExp(`worker\\s+${W} \\(`));
      assert.match(r.stdout, /\d+ steps?, 2 tool calls/);
      assert.match(r.stdout, /last: read .*src\/app\.ts/);
      assert.match(r.stdout, /tokens\s+[\d,]+ in/);
      assert.match(r.stdout, /The answer is defined in src\/app\.ts:1 as 41\./);
      // The receipt counts what the caller read: this report, byte for byte (it says so of itself).
      const bytes = new TextEncoder().encode(r.stdout).length;
      assert.deepEqual(record.receipt?.returned, { bytes, handovers: 1 });
      assert.match(r.stdout, new RegExp(`~${Math.ceil(bytes / 4)} returned to you`));
      const calls = ofType(await events(w, record.id), "worker.tool_call");
      assert.deepEqual(calls.map((c) => [c.kind, c.status]), [["search", "ok"], ["read", "ok"]]);
      assert.equal((await git(w.repo, "status", "--porcelain")).trim(), "");
    });
  }

  if (runs("edit")) {
    Deno.test(`${W}: an in-place edit in a dirty tree reports exactly the worker's edit; revert undoes just that`, async () => {
      await using w = await world({
        edit: {
          turns: [
            { read: "src/app.ts" },
            { edit: { path: "src/app.ts", old: "41", new: "42" } },
            { answer: "Set the answer to 42." },
          ],
        },
      });
      await Deno.writeTextFile(join(w.repo, "README.md"), "# app\n\nmy own uncommitted note\n");
      await Deno.writeTextFile(join(w.repo, "scratch.txt"), "untracked work\n");
      const { code, record, stderr } = await runJson(w, [
        "-w",
        "-W",
        W,
        "-m",
        b.model("edit"),
        "Make the answer 42",
      ]);
      assert.equal(code, 0, stderr);
      assert.equal(record.state, "done");
      assert.equal(record.mode, "write");
      assert.deepEqual(
        record.changes?.files.map((f) => [f.path, f.status, f.added, f.removed]),
        [["src/app.ts", "modified", 1, 1]],
        await whatItDid(w, record),
      );
      assert.equal(await w.read("src/app.ts"), "export const answer = 42;\n");
      const patch = await w.run(["show", record.id, "--patch"]);
      assert.equal(patch.code, 0, patch.stderr);
      const changed = patch.stdout.split("\n").filter((l) => /^[-+](?![-+])/.test(l));
      assert.deepEqual(changed, ["-export const answer = 41;", "+export const answer = 42;"]);
      assert.doesNotMatch(patch.stdout, /uncommitted note|untracked work|README|scratch/);

      const reverted = await w.run(["revert", record.id]);
      assert.equal(reverted.code, 0, reverted.stderr);
      assert.equal(await w.read("src/app.ts"), APP);
      assert.equal(await w.read("README.md"), "# app\n\nmy own uncommitted note\n");
      assert.equal(await w.read("scratch.txt"), "untracked work\n");
      const again = await w.run(["revert", record.id]);
      assert.equal(again.code, 3, again.stderr);
      assert.match(again.stderr, /reverted already/);
    });
  }

  if (runs("isolate")) {
    Deno.test(`${W}: an isolate run edits a private copy of the dirty tree; apply brings exactly its patch`, async () => {
      await using w = await world({
        isolated: {
          turns: [
            { read: "src/app.ts" },
            { edit: { path: "src/app.ts", old: "41", new: "43" } },
            { answer: "Set the answer to 43 in the copy." },
          ],
        },
      });
      await Deno.writeTextFile(join(w.repo, "README.md"), "# app\n\nmy own uncommitted note\n");
      await Deno.writeTextFile(join(w.repo, "scratch.txt"), "untracked work\n");
      const index = await Deno.readFile(join(w.repo, ".git", "index"));
      const { code, record, stderr } = await runJson(w, [
        "-i",
        "-W",
        W,
        "-m",
        b.model("isolated"),
        "Make the answer 43",
      ]);
      assert.equal(code, 0, stderr);
      assert.equal(record.mode, "isolate");
      assert.deepEqual(record.changes?.files.map((f) => [f.path, f.status]), [
        ["src/app.ts", "modified"],
      ]);
      // The user's tree is untouched until apply; the copy saw their uncommitted work.
      assert.equal(await w.read("src/app.ts"), APP);
      const copy = record.isolation!.copyRoot;
      assert.equal(
        await Deno.readTextFile(join(copy, "README.md")),
        "# app\n\nmy own uncommitted note\n",
      );
      assert.equal(
        await Deno.readTextFile(join(copy, "src/app.ts")),
        "export const answer = 43;\n",
      );
      const applied = await w.run(["apply", record.id, "--json"]);
      assert.equal(applied.code, 0, applied.stderr);
      assert.deepEqual(parseJson<{ applied: string[] }>(applied.stdout, "apply --json").applied, [
        "src/app.ts",
      ]);
      assert.equal(await w.read("src/app.ts"), "export const answer = 43;\n");
      assert.equal(await w.read("README.md"), "# app\n\nmy own uncommitted note\n");
      assert.equal(await w.read("scratch.txt"), "untracked work\n");
      assert.deepEqual(await Deno.readFile(join(w.repo, ".git", "index")), index);
      assert.equal((await git(w.repo, "worktree", "list")).trim().split("\n").length, 1);
      const discarded = await w.run(["discard", record.id]);
      assert.equal(discarded.code, 0, discarded.stderr);
      assert.equal(await Deno.stat(copy).catch(() => null), null);
    });
  }

  if (runs("trespass")) {
    Deno.test(`${W}: a read run's edit, shell write and web fetch are refused or undone`, async () => {
      await using page = webPage();
      await using w = await world({
        trespass: {
          turns: [
            { edit: { path: "src/app.ts", old: "41", new: "0" } },
            { shell: "echo x > f.txt" },
            { web: page.url },
            { answer: "I could not change anything." },
          ],
        },
      });
      await Deno.writeTextFile(join(w.repo, "README.md"), "# app\n\nuser edit\n");
      const before = await git(w.repo, "status", "--porcelain");
      const { code, record, stderr } = await runJson(w, [
        "-W",
        W,
        "-m",
        b.model("trespass"),
        "Look at src/app.ts",
      ]);
      assert.ok(code === 0 || code === 5, `exit ${code}: ${stderr} ${record.message}`);
      assert.equal(await git(w.repo, "status", "--porcelain"), before);
      assert.equal(await w.read("src/app.ts"), APP);
      assert.equal(await w.read("README.md"), "# app\n\nuser edit\n");
      await assert.rejects(Deno.stat(join(w.repo, "f.txt")), Deno.errors.NotFound);
      assert.equal(page.hits(), 0, "the web fetch reached the page");
      if (code === 5) {
        assert.equal(record.outcome, "read_only_violation");
        assert.equal(record.changes?.reverted, true);
      }

      const list = await events(w, record.id);
      const refused = ofType(list, "worker.tool_call").filter((c) => c.status !== "ok");
      const denied = ofType(list, "worker.denied").map((d) => d.tool);
      // Each action's refusal: a tool call of its kind that did not succeed, or a denial naming
      // the CLI's tool for it (the tool names of all four CLIs).
      const seen: Record<DeniedAction, () => boolean> = {
        edit: () =>
          refused.some((c) => c.kind === "edit") ||
          denied.some((t) => /^(edit|Edit|replace|apply_patch)$/.test(t)),
        shell: () => refused.some((c) => c.kind === "shell" && c.target.includes("f.txt")),
        web: () =>
          refused.some((c) => c.kind === "web" || c.target.includes(page.url)) ||
          denied.some((t) => /^(webfetch|WebFetch|web_fetch|web_search)$/.test(t)),
      };
      const silent = new Set(b.silentDenials ?? []);
      for (const action of ["edit", "shell", "web"] as const) {
        if (silent.has(action)) continue;
        // A shell write that got through is the engine's to catch: exit 5 and undone (above).
        if (action === "shell" && code === 5) continue;
        assert.ok(
          seen[action](),
          `no refusal of the ${action} in the events: ${
            JSON.stringify(list.filter((e) => e.type.startsWith("worker.")))
          }`,
        );
      }
    });
  }

  if (runs("ask")) {
    Deno.test(`${W}: a call the CLI would ask the user about is denied at once; the run goes on to its answer`, async () => {
      await using outside = await tempDir("pitroom-e2e-outside-");
      await using w = await world({
        asking: { turns: [b.asks.turn(outside.path), { answer: "Nothing was changed." }] },
      });
      await b.asks.userConfig?.(w.env);
      const before = await git(w.repo, "status", "--porcelain");
      const { code, record, stderr } = await runJson(w, [
        "-w",
        "-W",
        W,
        "-m",
        b.model("asking"),
        "Link the app",
      ]);
      // Not a timeout, and not a run cut short without its answer: the CLI went on by itself.
      assert.equal(code, 0, `${stderr} ${record.message}`);
      assert.equal(record.outcome, "ok");
      assert.equal(record.answer?.trim(), "Nothing was changed.");
      assert.equal(await git(w.repo, "status", "--porcelain"), before);
      assert.deepEqual(await Array.fromAsync(Deno.readDir(outside.path)), []);
      const list = await events(w, record.id);
      const refusals = [
        ...ofType(list, "worker.tool_call").filter((c) => c.status === "denied").map((c) =>
          c.error ?? ""
        ),
        ...ofType(list, "worker.denied").map((d) => d.message),
      ];
      assert.ok(
        refusals.some((text) => b.asks.message?.test(text) ?? true),
        `no denial${b.asks.message ? ` saying ${b.asks.message}` : ""} in the events: ${
          JSON.stringify(list.filter((e) => e.type.startsWith("worker.")))
        }`,
      );
    });
  }

  for (
    const failure of runs("failures")
      ? FAILURES.filter((f) => b.failures?.includes(f.kind) ?? true)
      : []
  ) {
    Deno.test(`${W}: ${failure.kind === "auth" ? "an" : "a"} ${failure.kind} error ends the run with exit 1 as ${failure.outcome}`, async () => {
      const error = b.errors?.[failure.kind] ?? { kind: failure.kind };
      await using w = await world({ failing: { turns: [{ error }] } });
      const model = b.model("failing");
      const { code, record, stderr } = await runJson(w, [
        "-W",
        W,
        "-m",
        model,
        "--no-fallback",
        "Anything",
      ]);
      assert.equal(code, 1, `${stderr} ${record.message}`);
      const shown = await w.run(["show", record.id, "--json"]);
      const stored = parseJson<RunRecord>(shown.stdout, "show --json");
      assert.equal(stored.state, "problem");
      assert.equal(stored.outcome, failure.outcome, stored.message);
      assert.deepEqual(stored.attempts.map((a) => [a.worker, a.outcome]), [[W, failure.outcome]]);

      const cooling = await w.run(["cooldown", "--json"]);
      assert.equal(cooling.code, 0, cooling.stderr);
      const targets = parseJson<{ target: string; reason: string }[]>(cooling.stdout, "cooldown")
        .map((c) => [c.target, c.reason]);
      assert.deepEqual(targets, failure.cools ? [[`${W}:${model}`, failure.outcome]] : []);
      if (failure.cools) {
        const cleared = await w.run(["cooldown", "--clear", "--json"]);
        assert.deepEqual(JSON.parse(cleared.stdout), { cleared: 1 });
        assert.deepEqual(JSON.parse((await w.run(["cooldown", "--json"])).stdout), []);
      }
    });
  }

  if (runs("fallback")) {
    Deno.test(`${W}: a target whose model is missing falls back to the next one, which answers`, async () => {
      await using w = await world({ good: { turns: [{ answer: "The second target answered." }] } });
      const missing = b.model("missing");
      const good = b.model("good");
      const { code, record, stderr } = await runJson(w, [
        "-W",
        `${W}:${missing},${W}:${good}`,
        "Anything",
      ]);
      assert.equal(code, 0, `${stderr} ${record.message}`);
      assert.equal(record.state, "done");
      assert.deepEqual(record.attempts.map((a) => [a.worker, a.model, a.outcome]), [
        [W, missing, "model_not_found"],
        [W, good, "ok"],
      ]);
      assert.equal(record.answer?.trim(), "The second target answered.");
      const fallbacks = ofType(await events(w, record.id), "run.fallback");
      assert.deepEqual(
        fallbacks.map((f) => [f.from, f.to, f.reason]),
        [[`${W} (${missing})`, `${W} (${good})`, "model_not_found"]],
      );
    });
  }

  if (runs("continue")) {
    Deno.test(`${W}: run --continue follows up in the same worker session`, async () => {
      await using w = await world({
        chat: {
          turns: [{ answer: "First answer." }],
          followup: [{ answer: "Follow-up answer." }],
        },
      });
      const first = await runJson(w, ["-W", W, "-m", b.model("chat"), "First question"]);
      assert.equal(first.code, 0, first.stderr);
      assert.equal(first.record.answer?.trim(), "First answer.");
      const session = first.record.attempts[0]?.sessionId;
      assert.ok(session, "the first run recorded its worker session");

      const next = await runJson(w, ["--continue", first.record.id, "next"]);
      assert.equal(next.code, 0, `${next.stderr} ${next.record.message}`);
      assert.equal(next.record.answer?.trim(), "Follow-up answer.");
      assert.deepEqual(next.record.attempts.map((a) => a.worker), [W]);
      assert.equal(next.record.continues?.run, first.record.id);
      assert.equal(next.record.continues?.sessionId, session);
      assert.equal(next.record.attempts[0]?.sessionId, session);
    });
  }
}
