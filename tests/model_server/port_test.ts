import { join } from "node:path";
import { assertEquals } from "./_assert.ts";
import { chatBody, fold, sseChunks } from "./_chat.ts";
import { REPO_ROOT } from "../support/model_server/env_file.ts";
import { startModelServer } from "../support/model_server/fixture.ts";

Deno.test("startModelServer() serves on 127.0.0.1 and cleans up its dirs on dispose", async () => {
  let root: string;
  {
    await using server = await startModelServer({
      scenarios: { "read-answer": { turns: [{ answer: "Over the wire." }] } },
      log: true,
    });
    root = join(server.home, "..");
    assertEquals(server.url, `http://127.0.0.1:${server.port}`);
    const response = await fetch(`${server.url}/v1/chat/completions`, {
      method: "POST",
      body: JSON.stringify(chatBody({ model: "fake/read-answer" })),
    });
    assertEquals(fold(await sseChunks(response)).text, "Over the wire.");
    const logged = await server.requests();
    assertEquals(logged.map((entry) => [entry.scenario, entry.status]), [["read-answer", 200]]);
    assertEquals((await Deno.readTextFile(server.logFile!)).trim().split("\n").length, 1);
    assertEquals(server.env.HOME, server.home);
    assertEquals(
      server.env.PATH?.split(":")[0]?.endsWith(".tools/workers/node_modules/.bin"),
      true,
    );
  }
  assertEquals(await exists(root), false);
});

Deno.test("startModelServer() ends a hanging response when the client goes away", async () => {
  await using server = await startModelServer({
    scenarios: { stuck: { turns: [{ hang: true }] } },
  });
  const stop = new AbortController();
  const response = await fetch(`${server.url}/v1/chat/completions`, {
    method: "POST",
    body: JSON.stringify(chatBody({ model: "stuck" })),
    signal: stop.signal,
  });
  assertEquals(response.status, 200);
  const read = response.body!.getReader().read().then(() => "data", (e) => e.name);
  stop.abort();
  assertEquals(await read, "AbortError");
});

function killIfRunning(child: Deno.ChildProcess): void {
  try {
    child.kill("SIGKILL");
  } catch (error) {
    if (!(error instanceof TypeError)) throw error; // already exited
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return false;
    throw error;
  }
}

/** Reads lines of `stream` until one matches, failing after `timeoutMs`. */
async function waitForLine(
  stream: ReadableStream<Uint8Array>,
  options: { timeoutMs: number; what: string },
): Promise<{ line: string; rest: ReadableStreamDefaultReader<string> }> {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () =>
        reject(new Error(`timed out after ${options.timeoutMs} ms waiting for ${options.what}`)),
      options.timeoutMs,
    );
  });
  try {
    while (!buffer.includes("\n")) {
      const chunk = await Promise.race([reader.read(), timeout]);
      if (chunk.done) throw new Error(`stream ended before ${options.what}: ${buffer}`);
      buffer += chunk.value;
    }
  } finally {
    clearTimeout(timer);
  }
  return { line: buffer.slice(0, buffer.indexOf("\n")), rest: reader };
}

Deno.test("main.ts (deno task model-server) prints one listening line, writes the env file and stops on SIGTERM", async () => {
  const dir = await Deno.makeTempDir({ prefix: "ms-main-" });
  try {
    await Deno.mkdir(join(dir, "scenarios"));
    await Deno.writeTextFile(
      join(dir, "scenarios", "read-answer.json"),
      JSON.stringify({ turns: [{ answer: "Standalone." }] }),
    );
    const child = new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "-P=pitroom",
        "--quiet",
        join(REPO_ROOT, "tests/support/model_server/main.ts"),
        "--scenarios",
        join(dir, "scenarios"),
        "--port",
        "0",
        "--log",
        join(dir, "log.jsonl"),
        "--env-file",
        join(dir, "env.sh"),
      ],
      cwd: REPO_ROOT,
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const stderr = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
    const errText = (async () => {
      let text = "";
      for (let r = await stderr.read(); !r.done; r = await stderr.read()) text += r.value;
      return text;
    })();
    try {
      const { line, rest } = await waitForLine(child.stdout, {
        timeoutMs: 30_000,
        what: "the listening line",
      });
      const url = /^listening (http:\/\/127\.0\.0\.1:\d+)$/.exec(line)?.[1];
      assertEquals(typeof url, "string", line);
      const envText = await Deno.readTextFile(join(dir, "env.sh"));
      const home = /^export HOME='([^']+)'$/m.exec(envText)?.[1];
      assertEquals(await exists(join(home!, ".config", "opencode", "opencode.json")), true);
      const models = await (await fetch(`${url}/v1/models`)).json();
      assertEquals(models.data.map((m: { id: string }) => m.id), ["read-answer"]);
      const response = await fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        body: JSON.stringify(chatBody({ model: "fake/read-answer" })),
      });
      assertEquals(fold(await sseChunks(response)).text, "Standalone.");
      child.kill("SIGTERM");
      const status = await child.status;
      let more = "";
      for (let r = await rest.read(); !r.done; r = await rest.read()) more += r.value;
      assertEquals([status.code, more], [0, ""]);
      assertEquals(await exists(home!), false);
      assertEquals((await Deno.readTextFile(join(dir, "log.jsonl"))).trim().split("\n").length, 1);
      assertEquals(await errText, "");
    } finally {
      killIfRunning(child);
      await child.status;
      await errText;
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("main.ts refuses a scenarios dir that does not exist with exit 2", async () => {
  const output = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-P=pitroom",
      "--quiet",
      join(REPO_ROOT, "tests/support/model_server/main.ts"),
      "--scenarios",
      join(REPO_ROOT, "no-such-scenarios-dir"),
    ],
    cwd: REPO_ROOT,
    stdin: "null",
  }).output();
  assertEquals(output.code, 2);
  assertEquals(new TextDecoder().decode(output.stdout), "");
  assertEquals(
    new TextDecoder().decode(output.stderr).includes("scenarios dir not found"),
    true,
  );
});
