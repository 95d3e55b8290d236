/**
 * The multi-repo benchmark (benchmarks/multi-repo/) run offline: each pinned repository is
 * stood in for by a local repository made here with the files its questions grep (so the truths
 * are computed the same way), codex answers on the scripted model server (`--scripted` names
 * each question's scenario), and the merged table scores all nine questions by the eval's rules.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runBenchmark } from "../../benchmarks/multi-repo/run.ts";
import { moduleCacheEnv, pitroomArgv } from "../support/pitroom.ts";
import { tempRepo } from "../support/temp.ts";
import { world } from "./_world.ts";

const say = (answer: string) => ({ turns: [{ grep: "x" }, { answer }] });

Deno.test("multi-repo benchmark: nine questions over three checkouts, scored by the eval's rules", async () => {
  await using deno = await tempRepo({
    "cli/main.rs": "mod ast;\nmod flags;\nmod tools;\n\npub fn create_main_worker(\n) {}\n",
    "cli/tools/fmt.rs": "use deno_core::error::AnyError;\n",
    "cli/tools/lint.rs": "use deno_core::error::AnyError;\n",
    "cli/tools/mod.rs": "pub mod fmt;\n",
  });
  await using hono = await tempRepo({
    "src/hono-base.ts": "class Hono {\n  private a = 1\n  private addRoute(m: string) {}\n}\n",
    "src/middleware/cors/index.ts": "import { HTTPException } from '../../http-exception'\n",
    "src/middleware/etag/index.ts": "export const etag = 1\n",
  });
  await using go = await tempRepo({
    "src/net/http/server.go":
      "package http\n\nfunc (srv *Server) Close() error {}\nfunc (s *Server) Serve() {}\nfunc (srv *Server) shut() {}\n\nfunc ListenAndServe(addr string, handler Handler) error {}\n",
    "src/net/http/hijack.go": "type Hijacker interface{}\n",
    "src/net/http/doc.go": "// Hijacker lets a handler take over\n",
  });
  await using w = await world({
    "deno-create-main-worker": say("ANSWER: cli/main.rs:5"),
    "deno-cli-modules": say("ANSWER: 3"),
    "deno-tools-anyerror": say("ANSWER:\n- cli/tools/fmt.rs\n- cli/tools/lint.rs"),
    "hono-add-route": say("ANSWER: src/hono-base.ts:2"),
    "hono-base-privates": say("ANSWER: 3"),
    "hono-middleware-http-exception": say(
      "ANSWER:\n- src/middleware/cors/index.ts\n- src/middleware/etag/index.ts",
    ),
    "go-listen-and-serve": say("ANSWER: src/net/http/server.go:7"),
    "go-server-methods": say("ANSWER: 2"),
    "go-hijacker-files": say("It is in the server somewhere."),
    bench: say("unused"),
  });
  const result = await runBenchmark({
    workers: ["codex:fake/bench"],
    pitroom: pitroomArgv(),
    env: { NO_COLOR: "1", ...moduleCacheEnv(), ...w.env },
    local: { deno: deno.path, hono: hono.path, go: go.path },
    scripted: true,
    timeout: "120s",
  });
  assert.equal(result.questions.length, 9);
  const row = result.workers[0]!;
  assert.equal(row.worker, "codex:fake/bench");
  // A run that failed says why: its stderr, kept for failed runs (a worker's crash message).
  const failed = row.answers.filter((a) => a.outcome !== "ok").map((a) => {
    let stderr = "(no stderr.log)";
    try {
      stderr = Deno.readTextFileSync(join(w.stateDir, "runs", a.run, "stderr.log")).slice(-4000);
    } catch {
      // Not kept.
    }
    return `run ${a.run} (${a.id}) ended ${a.outcome}; its stderr:\n${stderr}`;
  });
  assert.deepEqual(Object.fromEntries(row.answers.map((a) => [a.id, a.score])), {
    "deno/create-main-worker": 1,
    "deno/cli-modules": 1,
    "deno/tools-anyerror": 1,
    // The right file, the wrong line; one private too few; an invented file (F1 2/3).
    "hono/add-route": 0.5,
    "hono/base-privates": 0,
    "hono/middleware-http-exception": 0.667,
    "go/listen-and-serve": 1,
    "go/server-methods": 1,
    "go/hijacker-files": 0,
  }, `${JSON.stringify(row.answers)}\n${failed.join("\n")}`);
  assert.deepEqual(row.byKind, {
    definition: { score: 2.5, max: 3 },
    count: { score: 2, max: 3 },
    files: { score: 1.667, max: 3 },
  });
  assert.equal(row.score, 6.167);
  assert.equal(row.max, 9);
  assert.equal(row.failures, 1);
  assert.ok(row.medianMs !== null && row.medianTokens !== null);
});
