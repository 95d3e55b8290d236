/**
 * A dashboard test's world: an engine world (a repository, a temp state dir, the fake backend)
 * with the engine and the dashboard app over it, and helpers to make runs and send requests the
 * way the page does (a local Host, the session's cookie and key; for a write, the page's Origin).
 * `enter(app, door)` lets a client in the way a browser comes in (a one-time token, then the key).
 *
 * The fake worker plays by its task: `wait:<name>` waits until the file `<name>` appears in the
 * world's gate folder (`release(name)` makes it), `edit:<path>` writes a file, and every task
 * answers `answer to <task>`.
 */
import { join } from "node:path";
import { createEngine, type RunReport } from "../../../src/engine/mod.ts";
import type { Hono } from "hono";
import { createDashboardApp, type DashboardOptions } from "../../../src/server/dash/app.ts";
import { KEY_HEADER, type SessionResponse } from "../../../src/server/dash/api_types.ts";
import { Door } from "../../../src/server/dash/door.ts";
import type { FakeStep } from "../../support/fake_backend.ts";
import { engineWorld } from "../../support/engine_world.ts";
import { tempDir, tempRepo, waitFor } from "../../support/temp.ts";

/** The port the app believes it listens on. */
export const PORT = 7878;
/** The page's Host. */
export const HOST = `127.0.0.1:${PORT}`;
/** The key of the test app's door. */
export const KEY = "0123456789abcdef0123456789abcdef";

/** A door with `KEY` (and the real clock unless `now` is given). */
export function testDoor(now: () => number = Date.now): Door {
  return new Door({
    key: KEY,
    now,
    randomHex: (n) =>
      [...crypto.getRandomValues(new Uint8Array(n))].map((b) => b.toString(16).padStart(2, "0"))
        .join(""),
  });
}

/** A client that came in: its cookie (`name=value`) and its session's key. */
export interface Pass {
  cookie: string;
  key: string;
}

/** Comes in as a browser does: spends a new token at `/`, then claims the session's key. */
export async function enter(app: Hono, door: Door, host = HOST): Promise<Pass> {
  const res = await app.request(`/?token=${await door.mint()}`, { headers: { host } });
  await res.body?.cancel();
  const cookie = /^([^;]+)/.exec(res.headers.get("set-cookie") ?? "")?.[1];
  if (res.status !== 200 || cookie === undefined) throw new Error(`not let in: ${res.status}`);
  const claim = await app.request("/api/session", {
    method: "POST",
    headers: { host, origin: `http://${host}`, cookie },
  });
  if (claim.status !== 200) throw new Error(`no key: ${await claim.text()}`);
  return { cookie, key: (await claim.json() as SessionResponse).key };
}

/** The headers of a request with `pass`. */
export function passHeaders(pass: Pass): Record<string, string> {
  return { cookie: pass.cookie, [KEY_HEADER.toLowerCase()]: pass.key };
}

/** Makes a world; `options` go to the app. */
export async function dashWorld(options: Partial<DashboardOptions> = {}) {
  const gates = await tempDir("pitroom-gates-");
  const repo = await tempRepo({
    "src/app.ts": "export const answer = 41;\n",
    "README.md": "# app\n",
  });
  const world = await engineWorld(repo, (spec) => stepsFor(spec.prompt, gates.path));
  const engine = createEngine(world.sys, { backends: () => world.backend });
  const stop = new AbortController();
  const door = options.door ?? testDoor();
  const app = createDashboardApp(engine, {
    door,
    port: PORT,
    signal: stop.signal,
    ...options,
  });
  const pass = await enter(app, door);
  const running = new Set<Promise<RunReport>>();
  const send = (
    path: string,
    method: string,
    base: Record<string, string>,
    headers: Record<string, string | null>,
  ) => {
    const all: Record<string, string | null> = { ...base };
    for (const [k, v] of Object.entries(headers)) all[k.toLowerCase()] = v;
    const sent = Object.fromEntries(
      Object.entries(all).filter((e): e is [string, string] => e[1] !== null),
    );
    return Promise.resolve(app.request(path, { method, headers: sent }));
  };
  return {
    ...world,
    engine,
    app,
    door,
    pass,
    gates: gates.path,
    /** Runs a task to its end in this process. */
    async run(task: string, mode: "read" | "write" | "isolate" = "read"): Promise<RunReport> {
      return await engine.run({ task, mode, worker: "opencode" });
    },
    /** Starts a task in this process and resolves once its worker runs; `done` is its end. */
    async begin(task: string, mode: "read" | "isolate" = "read") {
      const before = new Set((await engine.list({ recent: 1000 })).map((r) => r.id));
      const done = engine.run({ task, mode, worker: "opencode" });
      running.add(done);
      let id = "";
      await waitFor(async () => {
        const found = (await engine.list({ recent: 1000 })).find((r) => !before.has(r.id));
        if (found === undefined) return false;
        id = found.id;
        return (await engine.get(id)).attempts[0]?.workerPid !== undefined;
      }, { timeoutMs: 20_000, what: `the worker of "${task}" to start` });
      return { id, done };
    },
    /** Lets `wait:<name>` workers go on. */
    async release(name: string): Promise<void> {
      await Deno.writeTextFile(join(gates.path, name), "");
    },
    /** A GET the way the page sends it (override or drop a header with `headers`). */
    get(path: string, headers: Record<string, string | null> = {}): Promise<Response> {
      return send(path, "GET", { host: HOST, ...passHeaders(pass) }, headers);
    },
    /** A POST the way the page sends it (override or drop a header with `headers`). */
    post(path: string, headers: Record<string, string | null> = {}): Promise<Response> {
      const page = { host: HOST, origin: `http://${HOST}`, ...passHeaders(pass) };
      return send(path, "POST", page, headers);
    },
    async [Symbol.asyncDispose]() {
      stop.abort();
      // Every run still going is stopped and ends before the folders are removed.
      const live = (await engine.list({ recent: 0 })).map((r) => r.id);
      if (live.length > 0) await engine.stop({ runs: live });
      await Promise.allSettled([...running]);
      await world[Symbol.asyncDispose]();
      await gates[Symbol.asyncDispose]();
    },
  };
}

/** The world's type. */
export type DashWorld = Awaited<ReturnType<typeof dashWorld>>;

function stepsFor(prompt: string, gates: string): FakeStep[] {
  const steps: FakeStep[] = [{ tool: "read", target: "src/app.ts" }];
  for (const m of prompt.matchAll(/\bwait:(\w+)/g)) {
    steps.push({ step: true }, { waitFile: join(gates, m[1]!) });
  }
  for (const m of prompt.matchAll(/\bedit:([\w./]+)/g)) {
    steps.push({ writeFile: m[1]!, content: `edited by the worker\n` });
  }
  steps.push({ answer: "the answer is 41, in src/app.ts:1" });
  return steps;
}
