/**
 * Damaged records are named, never mistaken. Each file of a finished run (run.json, its events
 * file, its raw stream, patch.diff, returned.jsonl, and a cleaned run's history row) is damaged
 * in turn (cut
 * short, bytes flipped, emptied, the wrong JSON type, missing) and every reading command runs
 * over it: the CLI's `status`, `ls`, `show` (plain, --patch, --events, --json), `wait`, `watch
 * --json`, `history`, `history import` and the `revert`/`apply`/`discard` refusals (in-process
 * through `main`), the MCP show tool and resources (an in-memory client), the dashboard's run
 * routes (`app.request`). None may crash ("unexpected error", a stack), answer "still going"
 * (75) or leave a documented exit code; every one that reads the damaged file names it in one
 * line. In-process, so the whole matrix takes seconds.
 */
import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { main } from "../../src/cli/main.ts";
import { createEngine } from "../../src/engine/mod.ts";
import { createDashboardApp } from "../../src/server/dash/app.ts";
import { enter, HOST, passHeaders, PORT, testDoor } from "../server/dash/_world.ts";
import { createMcpServer } from "../../src/server/mcp/mod.ts";
import { rowidOf } from "../../src/store/history/row.ts";
import { statePaths } from "../../src/store/paths.ts";
import { Exit } from "../../src/sys/errors.ts";
import { engineWorld } from "../support/engine_world.ts";
import { testSys } from "../support/sys.ts";
import { tempRepo } from "../support/temp.ts";
import { Client, InMemoryTransport } from "../server/mcp/_sdk.ts";

const DOCUMENTED = new Set<number>(Object.values(Exit));

/** How a file is damaged: its new bytes, or null to remove it. */
type Damage = (bytes: Uint8Array, name: string) => Uint8Array | null;

const gzip = async (text: string) =>
  new Uint8Array(
    await new Response(
      new Blob([text]).stream().pipeThrough(new CompressionStream("gzip")),
    ).arrayBuffer(),
  );
const text = (t: string) => new TextEncoder().encode(t);

/** A byte flipped where it is always damage: a record's state, a gzip body, a patch line. */
function flipped(bytes: Uint8Array, name: string): Uint8Array {
  const out = bytes.slice();
  const at = name === "run.json"
    ? new TextDecoder().decode(bytes).indexOf('"state"') + 9
    : Math.floor(bytes.length / 2);
  out[at]! ^= 0x04;
  return out;
}

const WRONG_TYPE: Record<string, Uint8Array> = {
  "run.json": text('["a run record", "in an array"]\n'),
  "patch.diff": text('{"patch": "a JSON object instead of a diff"}\n'),
};

/** A byte flipped near the end: in a gzip file its checksum, after every event was read. */
function flippedAtEnd(bytes: Uint8Array): Uint8Array {
  const out = bytes.slice();
  out[bytes.length - 6]! ^= 0x04;
  return out;
}

const DAMAGES: Record<string, Damage | "gzip-array"> = {
  "cut short": (b) => b.subarray(0, Math.floor(b.length / 2)),
  "bytes flipped": flipped,
  "bytes flipped at the end": flippedAtEnd,
  emptied: () => new Uint8Array(),
  "the wrong JSON type": "gzip-array",
  missing: () => null,
};

/** The world: a finished write run (reverted since) and a cleaned read run the history keeps. */
async function damageWorld() {
  const repo = await tempRepo({ "a.txt": "hi\n" });
  const w = await engineWorld(
    repo,
    (spec) =>
      spec.prompt.includes("edit a.txt")
        ? [{ writeFile: "a.txt", content: "changed\n" }, { answer: "did" }]
        : [{ tool: "read", target: "a.txt" }, { answer: "read it" }],
  );
  const engine = createEngine(w.sys, { backends: () => w.backend });
  const write = await engine.run({ task: "edit a.txt", mode: "write", worker: "opencode" });
  // Reverted: revert, apply and discard each refuse it, and nothing a case does writes the tree.
  await engine.revert(write.id);
  // Handed over twice: its receipt counts what returned.jsonl says.
  await engine.handedOver([{ id: write.id, bytes: 1234 }], { via: "cli", what: "wait" });
  await engine.handedOver([{ id: write.id, bytes: 321 }], { via: "mcp", what: "pitroom_wait" });
  const cleaned = await engine.run({ task: "read a.txt", mode: "read", worker: "opencode" });
  await Deno.remove(w.paths.run(cleaned.id).dir, { recursive: true });
  const mcp = createMcpServer(engine, { dir: repo.path, version: "test", clock: w.sys.clock });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcp.server.connect(serverSide);
  const client = new Client({ name: "damage-test", version: "1" });
  await client.connect(clientSide);
  const stop = new AbortController();
  const door = testDoor();
  const app = createDashboardApp(engine, { door, port: PORT, signal: stop.signal });
  const pass = await enter(app, door);
  return {
    ...w,
    engine,
    write: write.id,
    cleaned: cleaned.id,
    client,
    app,
    pass,
    async [Symbol.asyncDispose]() {
      stop.abort();
      await client.close();
      await mcp.close();
      await w[Symbol.asyncDispose]();
    },
  };
}

type World = Awaited<ReturnType<typeof damageWorld>>;

/** The state dir's files a case may change (the history) and the damaged one, to put back. */
async function keep(paths: string[]): Promise<() => Promise<void>> {
  const saved = new Map<string, Uint8Array | null>();
  for (const p of paths) saved.set(p, await Deno.readFile(p).catch(() => null));
  return async () => {
    for (const [p, bytes] of saved) {
      if (bytes === null) await Deno.remove(p).catch(() => undefined);
      else await Deno.writeFile(p, bytes);
    }
  };
}

interface Outcome {
  what: string;
  code: number;
  out: string;
  err: string;
}

async function cli(w: World, args: string[]): Promise<Outcome> {
  const sys = testSys({ stateDir: w.sys.stateDir, cwd: w.repo.path });
  const code = await main(args, sys);
  return { what: `pitroom ${args.join(" ")}`, code, out: sys.stdoutText(), err: sys.stderrText() };
}

async function mcpShow(w: World, run: string): Promise<Outcome> {
  const result = await w.client.callTool({
    name: "pitroom_show",
    arguments: { run, patch: true, events: true },
  });
  const textOut = (result.content as { text: string }[]).map((c) => c.text).join("\n");
  const structured = JSON.stringify(result.structuredContent ?? {});
  return { what: "pitroom_show", code: result.isError ? 1 : 0, out: structured, err: textOut };
}

async function mcpWait(w: World, run: string): Promise<Outcome> {
  const result = await w.client.callTool({
    name: "pitroom_wait",
    arguments: { runs: [run], timeoutSeconds: 20 },
  });
  const textOut = (result.content as { text: string }[]).map((c) => c.text).join("\n");
  return { what: "pitroom_wait", code: result.isError ? 1 : 0, out: "", err: textOut };
}

async function mcpResource(w: World, uri: string): Promise<Outcome> {
  try {
    const read = await w.client.readResource({ uri });
    return { what: uri, code: 0, out: JSON.stringify(read.contents), err: "" };
  } catch (error) {
    return {
      what: uri,
      code: 1,
      out: "",
      err: error instanceof Error ? error.message : String(error),
    };
  }
}

async function dash(w: World, path: string): Promise<Outcome> {
  const res = await w.app.request(path, { headers: { host: HOST, ...passHeaders(w.pass) } });
  const body = await res.text();
  return { what: `GET ${path}`, code: res.status >= 500 ? 99 : 0, out: body, err: body };
}

/** Every reading command over run `id`. */
async function everything(w: World, id: string): Promise<Outcome[]> {
  const out: Outcome[] = [];
  for (
    const args of [
      ["status"],
      ["status", id],
      ["ls"],
      ["show", id],
      ["show", id, "--patch"],
      ["show", id, "--events"],
      ["show", id, "--json"],
      ["wait", id, "--timeout", "20"],
      ["watch", id, "--json", "--timeout", "20"],
      ["history", "a.txt"],
      ["history", "import"],
      ["revert", id],
      ["apply", id],
      ["discard", id],
    ]
  ) out.push(await cli(w, args));
  out.push(await mcpShow(w, id));
  out.push(await mcpWait(w, id));
  out.push(await mcpResource(w, `pitroom://run/${id}`));
  out.push(await mcpResource(w, `pitroom://run/${id}/patch`));
  for (const tail of ["", "/events", "/patch"]) out.push(await dash(w, `/api/runs/${id}${tail}`));
  return out;
}

/** Which outcomes must name the damaged file. */
function mustName(file: string, damage: string, what: string): boolean {
  const show = what.startsWith(`pitroom show`);
  switch (file) {
    case "run.json":
      // A folder without run.json at all is a run being created, to a list.
      if (damage === "missing" && /^pitroom (status|ls)$/.test(what)) return false;
      return /^pitroom (status|ls|show|wait|watch|revert|apply|discard|history import)/.test(
        what,
      ) ||
        what === "pitroom_show" || what === "pitroom_wait";
    case "events.jsonl.gz":
      return (show && !/--patch|--json/.test(what)) ||
        /^pitroom (wait|watch|history import)/.test(what) ||
        what === "pitroom_show" || what === "pitroom_wait";
    case "patch.diff":
      return /--patch$|^pitroom history import$|^pitroom_show$|\/patch$/.test(what);
    case "history.db":
      return show || what === "pitroom_show" || what.startsWith("pitroom://");
    default:
      return false;
  }
}

function check(file: string, damage: string, o: Outcome): void {
  const where = `${file} ${damage}: ${o.what} (exit ${o.code})\n${o.err}${o.out.slice(0, 400)}`;
  assert.ok(DOCUMENTED.has(o.code), `undocumented exit: ${where}`);
  assert.notEqual(o.code, Exit.stillRunning, `still going: ${where}`);
  assert.doesNotMatch(o.err + o.out, /unexpected error|\n\s+at \S+:\d+|"internal"/, where);
  if (mustName(file, damage, o.what)) {
    assert.match(o.err + o.out, new RegExp(`${file.replace(".", "\\.")} is damaged`), where);
  }
}

Deno.test("every file of a finished run damaged in every way: named, never a crash or 'still going'", async () => {
  await using w = await damageWorld();
  const paths = statePaths(w.sys.stateDir);
  const history = [paths.history, `${paths.history}-wal`, `${paths.history}-shm`];
  const run = paths.run(w.write);
  const files = {
    "run.json": run.record,
    "events.jsonl.gz": run.eventsGz,
    "stream.jsonl.gz": run.streamGz,
    "patch.diff": run.patch,
    "returned.jsonl": run.returned,
  };
  for (const [file, path] of Object.entries(files)) {
    for (const [damage, how] of Object.entries(DAMAGES)) {
      const putBack = await keep([path, ...history]);
      const bytes = await Deno.readFile(path);
      const damaged = how === "gzip-array"
        ? WRONG_TYPE[file] ?? (await gzip('["not", "an", "event"]\n'))
        : how(bytes, file);
      if (damaged === null) await Deno.remove(path);
      else await Deno.writeFile(path, damaged);
      for (const o of await everything(w, w.write)) check(file, damage, o);
      await putBack();
    }
  }
  // A cleaned run's history row: its record cut short, flipped, emptied, the wrong type, gone.
  const n = rowidOf(w.cleaned);
  const rows: Record<string, (db: DatabaseSync, record: string) => void> = {
    "cut short": (db, r) =>
      db.prepare("UPDATE run_docs SET record = ? WHERE n = ?").run(r.slice(0, r.length / 2), n),
    "bytes flipped": (db, r) =>
      db.prepare("UPDATE run_docs SET record = ? WHERE n = ?").run(`[${r.slice(1)}`, n),
    emptied: (db) => db.prepare("UPDATE run_docs SET record = '' WHERE n = ?").run(n),
    "the wrong JSON type": (db) =>
      db.prepare("UPDATE run_docs SET record = '[1, 2]' WHERE n = ?").run(n),
    missing: (db) => db.prepare("DELETE FROM run_docs WHERE n = ?").run(n),
  };
  for (const [damage, how] of Object.entries(rows)) {
    const putBack = await keep(history);
    const db = new DatabaseSync(paths.history);
    try {
      const { record } = db.prepare("SELECT record FROM run_docs WHERE n = ?").get(n) as {
        record: string;
      };
      how(db, record);
    } finally {
      db.close();
    }
    for (const o of await everything(w, w.cleaned)) check("history.db", damage, o);
    await putBack();
  }
  // Nothing ended as an unexpected error: no crash log was left.
  const logs = await Array.fromAsync(Deno.readDir(paths.logs)).catch(() => []);
  assert.deepEqual(logs.filter((e) => e.name.startsWith("crash-")).map((e) => e.name), []);
});
