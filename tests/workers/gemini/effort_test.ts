import { deepStrictEqual as assertEquals, throws } from "node:assert/strict";
import { geminiLaunch } from "../../../src/workers/gemini/argv.ts";
import { stripJsonComments, thinkingConfig } from "../../../src/workers/gemini/effort.ts";
import type { LaunchFile, RunSpec } from "../../../src/workers/types.ts";

const PRIVATE = "/state/runs/x/attempt-1";

function spec(fields: Partial<RunSpec> = {}): RunSpec {
  return {
    mode: "read",
    prompt: "Do it.",
    cwd: "/work/repo",
    privateDir: PRIVATE,
    web: false,
    baseEnv: { PATH: "/usr/bin", HOME: "/home/me" },
    ...fields,
  };
}

/** A fake user home: a map of paths to contents; every read is recorded. */
function userFiles(files: Record<string, string>) {
  const reads: string[] = [];
  return {
    reads,
    read: (path: string) => {
      reads.push(path);
      return files[path] ?? null;
    },
  };
}

function file(files: LaunchFile[], path: string): LaunchFile | undefined {
  return files.find((f) => f.path === path);
}

function settingsOf(files: LaunchFile[]): Record<string, unknown> {
  const found = file(files, `${PRIVATE}/gemini-home/.gemini/settings.json`);
  if (found === undefined) throw new Error("no settings.json in the launch");
  return JSON.parse(found.content);
}

Deno.test("launch() without an effort reads no user file and keeps the user's gemini home", () => {
  const home = userFiles({});
  const launch = geminiLaunch(spec({ model: "gemini-2.5-pro" }), { readUserFile: home.read });
  assertEquals(home.reads, []);
  assertEquals(launch.env.GEMINI_CLI_HOME, undefined);
  assertEquals(launch.argv.slice(-2), ["-m", "gemini-2.5-pro"]);
});

Deno.test("launch() with an effort runs a generated alias from a private home with the user's settings", () => {
  const home = userFiles({
    "/home/me/.gemini/settings.json": `{
      // the user's own choices stay
      "security": { "auth": { "selectedType": "oauth-personal" } },
      "modelConfigs": { "customAliases": { "mine": { "extends": "base" } } }
    }`,
  });
  const launch = geminiLaunch(spec({ model: "gemini-2.5-pro", effort: "low" }), {
    readUserFile: home.read,
  });
  assertEquals(launch.argv.slice(-2), ["-m", "gemini-2.5-pro-pitroom-low"]);
  assertEquals(launch.env.GEMINI_CLI_HOME, `${PRIVATE}/gemini-home`);
  assertEquals(launch.env.HOME, "/home/me");
  const settings = settingsOf(launch.files);
  assertEquals(settings.security, { auth: { selectedType: "oauth-personal" } });
  assertEquals(settings.modelConfigs, {
    customAliases: {
      mine: { extends: "base" },
      "gemini-2.5-pro-pitroom-low": {
        extends: "gemini-2.5-pro",
        modelConfig: {
          model: "gemini-2.5-pro",
          generateContentConfig: { thinkingConfig: { thinkingBudget: 1024 } },
        },
      },
    },
    customOverrides: [
      {
        match: { model: "chat-base-3" },
        modelConfig: { generateContentConfig: { thinkingConfig: { thinkingLevel: "LOW" } } },
      },
      {
        match: { model: "chat-base-2.5" },
        modelConfig: { generateContentConfig: { thinkingConfig: { thinkingBudget: 1024 } } },
      },
    ],
  });
});

Deno.test("launch() maps a Gemini 3 effort to a thinking level", () => {
  const launch = geminiLaunch(spec({ model: "gemini-3-pro-preview", effort: "high" }), {
    readUserFile: userFiles({}).read,
  });
  const aliases = (settingsOf(launch.files).modelConfigs as Record<string, unknown>)
    .customAliases as Record<string, { modelConfig: unknown }>;
  assertEquals(aliases["gemini-3-pro-preview-pitroom-high"]?.modelConfig, {
    model: "gemini-3-pro-preview",
    generateContentConfig: { thinkingConfig: { thinkingLevel: "HIGH" } },
  });
});

Deno.test("launch() copies the user's login, key and memory files owner-only from GEMINI_CLI_HOME", () => {
  const home = userFiles({
    "/cli-home/.gemini/oauth_creds.json": '{"refresh_token":"r"}',
    "/cli-home/.gemini/google_accounts.json": '{"active":"me@example.com"}',
    "/cli-home/.gemini/installation_id": "abc",
    "/cli-home/.gemini/GEMINI.md": "Be brief.",
    "/cli-home/.env": "GEMINI_API_KEY=k",
    "/home/me/.gemini/oauth_creds.json": "not this one",
  });
  const launch = geminiLaunch(
    spec({
      model: "gemini-2.5-flash",
      effort: "medium",
      baseEnv: { HOME: "/home/me", GEMINI_CLI_HOME: "/cli-home" },
    }),
    { readUserFile: home.read },
  );
  const copies = launch.files.filter((f) => f.path.startsWith(`${PRIVATE}/gemini-home/`))
    .filter((f) => !f.path.endsWith("settings.json"))
    .map((f) => [f.path.slice(`${PRIVATE}/gemini-home/`.length), f.content, f.mode]);
  assertEquals(copies, [
    [".gemini/oauth_creds.json", '{"refresh_token":"r"}', 0o600],
    [".gemini/google_accounts.json", '{"active":"me@example.com"}', 0o600],
    [".gemini/installation_id", "abc", 0o600],
    [".gemini/GEMINI.md", "Be brief.", 0o600],
    [".env", "GEMINI_API_KEY=k", 0o600],
  ]);
});

Deno.test("launch() with an effort and no -m uses GEMINI_MODEL or the settings' model", () => {
  const fromEnv = geminiLaunch(
    spec({ effort: "low", baseEnv: { HOME: "/home/me", GEMINI_MODEL: "gemini-2.5-flash" } }),
    { readUserFile: userFiles({}).read },
  );
  assertEquals(fromEnv.argv.slice(-2), ["-m", "gemini-2.5-flash-pitroom-low"]);
  const fromSettings = geminiLaunch(spec({ effort: "high" }), {
    readUserFile: userFiles({
      "/home/me/.gemini/settings.json": '{"model":{"name":"gemini-3-flash-preview"}}',
    }).read,
  });
  assertEquals(fromSettings.argv.slice(-2), ["-m", "gemini-3-flash-preview-pitroom-high"]);
});

Deno.test("launch() refuses a level the model does not take, a follow-up, and broken settings", () => {
  const read = userFiles({}).read;
  throws(
    () =>
      geminiLaunch(spec({ model: "gemini-3-pro-preview", effort: "medium" }), {
        readUserFile: read,
      }),
    /does not accept effort "medium": it accepts low, high/,
  );
  throws(
    () =>
      geminiLaunch(spec({ model: "gemini-2.5-pro", effort: "low", sessionId: "s" }), {
        readUserFile: read,
      }),
    /cannot continue a session with an effort/,
  );
  throws(
    () =>
      geminiLaunch(spec({ model: "gemini-2.5-pro", effort: "low" }), {
        readUserFile: userFiles({ "/home/me/.gemini/settings.json": "{ broken" }).read,
      }),
    /Cannot read gemini settings "\/home\/me\/.gemini\/settings.json"/,
  );
});

Deno.test("stripJsonComments() drops comments but keeps slashes inside strings", () => {
  const text = '{"url": "http://x/*y*/", // note\n /* block */ "a": "b\\"//c"}';
  assertEquals(JSON.parse(stripJsonComments(text)), { url: "http://x/*y*/", a: 'b"//c' });
});

Deno.test("thinkingConfig() refuses an effort named like an object's property (constructor, toString)", () => {
  for (const model of ["gemini-2.5-pro", "gemini-3-pro-preview"]) {
    for (const effort of ["constructor", "toString", "__proto__"]) {
      throws(() => thinkingConfig(model, effort), /does not accept effort/);
    }
  }
});
