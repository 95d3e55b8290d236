/**
 * `--effort` through the real gemini 0.61.0: a recording proxy in front of the scripted model
 * server keeps each request body, so the test sees the `generationConfig.thinkingConfig` the CLI
 * really sent for the generated alias (and that the user's own settings file stayed as it was).
 */
import { deepStrictEqual as assertEquals, ok } from "node:assert/strict";
import { join } from "node:path";
import { geminiBackend } from "../../../src/workers/gemini/mod.ts";
import { driveBackend } from "../../support/backend_harness.ts";
import { type RunningModelServer, startModelServer } from "../../support/model_server/fixture.ts";
import { tempDir, tempRepo } from "../../support/temp.ts";

interface Seen {
  path: string;
  body: Record<string, unknown>;
}

/** A loopback proxy to `server` that records the path and JSON body of each request. */
function recordingProxy(server: RunningModelServer) {
  const seen: Seen[] = [];
  const stop = new AbortController();
  const proxy = Deno.serve(
    { hostname: "127.0.0.1", port: 0, signal: stop.signal, onListen: () => {} },
    async (request) => {
      const url = new URL(request.url);
      const text = await request.text();
      seen.push({ path: url.pathname, body: text === "" ? {} : JSON.parse(text) });
      const answer = await fetch(`${server.url}${url.pathname}${url.search}`, {
        method: request.method,
        headers: request.headers,
        ...(text === "" ? {} : { body: text }),
      });
      return new Response(answer.body, { status: answer.status, headers: answer.headers });
    },
  );
  return {
    url: `http://127.0.0.1:${proxy.addr.port}`,
    seen,
    async [Symbol.asyncDispose]() {
      stop.abort();
      await proxy.finished;
    },
  };
}

async function runWithEffort(model: string, effort: string) {
  await using server = await startModelServer({
    scenarios: { thinking: { turns: [{ read: "a.txt" }, { answer: "a.txt says hello." }] } },
  });
  await using proxy = recordingProxy(server);
  await using repo = await tempRepo({ "a.txt": "hello\n" });
  await using priv = await tempDir("pitroom-gemini-effort-");
  const userSettings = join(server.home, ".gemini", "settings.json");
  const before = await Deno.readTextFile(userSettings);
  const run = await driveBackend(geminiBackend, {
    mode: "read",
    prompt: "[[scenario:thinking]] Read a.txt.",
    cwd: repo.path,
    privateDir: priv.path,
    web: false,
    model,
    effort,
    baseEnv: { ...server.env, GOOGLE_GEMINI_BASE_URL: proxy.url },
  }, { timeoutMs: 60_000 });
  assertEquals(await Deno.readTextFile(userSettings), before);
  const chats = proxy.seen.filter((s) => s.path.endsWith(":streamGenerateContent"));
  return { run, chats };
}

function thinkingOf(seen: Seen): unknown {
  const config = seen.body.generationConfig as Record<string, unknown> | undefined;
  return config?.thinkingConfig;
}

Deno.test("gemini with effort low on a 2.5 model sends a 1024-token thinking budget", async () => {
  const { run, chats } = await runWithEffort("gemini-2.5-pro", "low");
  assertEquals(run.outcome.class, "ok", run.stderr.join("\n"));
  assertEquals(run.outcome.message, "a.txt says hello.");
  assertEquals(chats.length, 2);
  for (const chat of chats) {
    assertEquals(chat.path, "/v1beta/models/gemini-2.5-pro:streamGenerateContent");
    assertEquals(thinkingOf(chat), { includeThoughts: true, thinkingBudget: 1024 });
  }
});

Deno.test("gemini with effort low on a Gemini 3 model sends thinking level LOW, even after the CLI swaps the model", async () => {
  const { run, chats } = await runWithEffort("gemini-3-pro-preview", "low");
  assertEquals(run.outcome.class, "ok", run.stderr.join("\n"));
  ok(chats.length > 0);
  for (const chat of chats) {
    ok(/\/models\/gemini-3/.test(chat.path), chat.path);
    assertEquals(thinkingOf(chat), { includeThoughts: true, thinkingLevel: "LOW" });
  }
});
