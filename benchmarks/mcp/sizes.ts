/**
 * What each MCP tool hands a client, in bytes and tokens (4 bytes a token): the whole result
 * (`JSON.stringify` of the `CallToolResult`, its text and its structured content), and the part a
 * model is given of it (Claude Code and Codex give their model the structured content's JSON,
 * Gemini CLI the text: tests/e2e/mcp_clients_test.ts). One session per client kind against the
 * real `pitroom mcp`: `claude-code` and a generic client.
 *
 * Every tool is called over real runs (codex implements, claude reviews and audits, on the
 * scripted model); a result that is an error fails the measurement. Protocol-level only, so the
 * same script measures any version of the server: run on main before a change, it writes the
 * baseline the MCP benchmark prints beside today's figures (results/sizes-main.json).
 *
 *   deno run -P=pitroom benchmarks/mcp/sizes.ts [--out FILE]
 */
import { parseArgs } from "node:util";
import type { World } from "../../tests/server/mcp/_world.ts";
import { stdioClient, world } from "../../tests/server/mcp/_world.ts";
import { checkFigures, machine, NoFigure } from "../_figures.ts";

/** The read answer the measured read run gives (about what a real one is: a few claims with refs). */
export const READ_ANSWER = [
  "The retry policy is defined in src/app.ts:1 as the exported constant `answer`.",
  "",
  "- src/app.ts:1 exports `answer = 41`; nothing else in the file.",
  "- README.md:1 is the title only and says nothing about retries.",
  "- No other file of the repository imports src/app.ts, so the value is used nowhere yet.",
  "",
  "Open question: whether the retry count should come from the environment instead.",
].join("\n");

/** The scenarios the measured runs play (codex ids are `fake/<name>`, claude's the bare name). */
export const SIZE_SCENARIOS = {
  "size-read": { turns: [{ read: "src/app.ts" }, { answer: READ_ANSWER }] },
  "size-write": {
    turns: [
      { edit: { path: "src/app.ts", old: "41", new: "42" } },
      { answer: "Set the answer to 42 in src/app.ts." },
    ],
  },
  "size-isolate": {
    turns: [
      { write: { path: "src/extra.ts", content: "export const extra = 1;\n" } },
      { answer: "Added src/extra.ts." },
    ],
  },
  "size-hang": { turns: [{ hang: true }] },
  "size-review": {
    turns: [{
      answer: [
        "SPEC: PASS",
        "QUALITY: APPROVED",
        "",
        "Findings:",
        "- Minor: src/app.ts:1 the constant could carry a comment.",
      ].join("\n"),
    }],
  },
  "size-audit": { turns: [{ answer: "AUDIT: AGREE\nDISPUTED: none" }] },
};

/** One tool's result, measured. */
export interface Measured {
  tool: string;
  /** What the call was (`read run`, `write run`, ...). */
  call: string;
  /** The whole result: `JSON.stringify` of the `CallToolResult`, UTF-8 bytes. */
  bytes: number;
  /** Its text content, UTF-8 bytes. */
  textBytes: number;
  /** Its structured content as JSON, UTF-8 bytes. */
  structuredBytes: number;
}

/** The client kinds measured: one that reads the structured content, one generic. */
export const CLIENTS = ["claude-code", "generic"] as const;

const encoder = new TextEncoder();
const bytesOf = (text: string) => encoder.encode(text).length;

function measure(tool: string, call: string, result: Record<string, unknown>): Measured {
  if (result.isError === true) {
    throw new Error(`${tool} (${call}) answered an error: ${JSON.stringify(result.content)}`);
  }
  const content = (result.content ?? []) as { type: string; text?: string }[];
  const text = content.filter((c) => c.type === "text").map((c) => c.text ?? "").join("\n");
  return {
    tool,
    call,
    bytes: bytesOf(JSON.stringify(result)),
    textBytes: bytesOf(text),
    structuredBytes: result.structuredContent === undefined
      ? 0
      : bytesOf(JSON.stringify(result.structuredContent)),
  };
}

// deno-lint-ignore no-explicit-any
type Loose = any;

/** The id of the one run a run-starting result carries. */
function runId(result: Loose): string {
  const id = result.structuredContent?.runs?.[0]?.id;
  if (typeof id !== "string") throw new Error(`no run id in ${JSON.stringify(result)}`);
  return id;
}

/** Calls every tool once as the client `name`, over runs it starts; one result each. */
export async function measureTools(w: World, name: string): Promise<Measured[]> {
  await using c = await stdioClient(w, { clientName: name });
  const call = async (tool: string, args: Record<string, unknown>) =>
    (await c.client.callTool({ name: tool, arguments: args })) as Loose;
  const codex = (scenario: string, extra: Record<string, unknown> = {}) => ({
    // A task of its own per client: the second would otherwise come from the answer cache.
    task: `Where is the retry policy defined? (${name})`,
    worker: "codex",
    model: `fake/${scenario}`,
    ...extra,
  });
  const out: Measured[] = [];

  const read = await call("pitroom_run", codex("size-read"));
  out.push(measure("pitroom_run", "read run", read));
  const readId = runId(read);
  const write = await call("pitroom_run", codex("size-write", { mode: "write" }));
  out.push(measure("pitroom_run", "write run", write));
  const writeId = runId(write);
  const isolate = await call("pitroom_run", codex("size-isolate", { mode: "isolate" }));
  const isolateId = runId(isolate);

  out.push(measure("pitroom_wait", "read run", await call("pitroom_wait", { runs: [readId] })));
  out.push(measure("pitroom_show", "read run", await call("pitroom_show", { run: readId })));
  out.push(measure("pitroom_info", "runs", await call("pitroom_info", { topic: "runs" })));
  out.push(measure("pitroom_info", "savings", await call("pitroom_info", { topic: "savings" })));
  out.push(
    measure("pitroom_apply", "isolate run", await call("pitroom_apply", { run: isolateId })),
  );
  out.push(
    measure("pitroom_discard", "isolate run", await call("pitroom_discard", { run: isolateId })),
  );
  out.push(
    measure(
      "pitroom_review",
      "write run",
      await call("pitroom_review", { run: writeId, worker: "claude", model: "size-review" }),
    ),
  );
  out.push(
    measure("pitroom_revert", "write run", await call("pitroom_revert", { run: writeId })),
  );
  out.push(
    measure(
      "pitroom_audit",
      "read run",
      await call("pitroom_audit", { run: readId, worker: "claude:size-audit" }),
    ),
  );
  // The next client's runs start from the same tree: the applied copy is taken back.
  const undone = await call("pitroom_revert", { run: isolateId });
  if (undone.isError === true) throw new Error(`revert: ${JSON.stringify(undone.content)}`);
  const hang = await call("pitroom_run", codex("size-hang", { waitSeconds: 0 }));
  out.push(
    measure("pitroom_stop", "a running run", await call("pitroom_stop", { runs: [runId(hang)] })),
  );
  return out;
}

/** One tool call's sizes, as kept: bytes and tokens of the whole result and of what a model reads. */
export interface Sized {
  call: string;
  bytes: number;
  tokens: number;
  /** The part the client gives its model: the structured content (claude-code) or the text. */
  modelBytes: number;
  modelTokens: number;
}

/** Every tool's sizes, by client kind then `tool (call)`. */
export type Sizes = Record<string, Record<string, Sized>>;

const tokens = (bytes: number) => Math.ceil(bytes / 4);

/** The sizes of every tool for every client kind, measured in one world. */
export async function measureSizes(log: (line: string) => void = () => {}): Promise<Sizes> {
  await using w = await world(SIZE_SCENARIOS);
  const sizes: Sizes = {};
  for (const name of CLIENTS) {
    log(`  sizes: calling every tool as ${name}`);
    const measured = await measureTools(w, name);
    sizes[name] = Object.fromEntries(measured.map((m) => {
      const model = name === "claude-code" ? m.structuredBytes : m.textBytes;
      return [`${m.tool} (${m.call})`, {
        call: m.call,
        bytes: m.bytes,
        tokens: tokens(m.bytes),
        modelBytes: model,
        modelTokens: tokens(model),
      }];
    }));
  }
  if (Object.values(sizes).every((s) => Object.keys(s).length === 0)) {
    throw new NoFigure("sizes: no tool was measured");
  }
  return checkFigures(sizes);
}

/** The table of sizes beside a baseline's (`-` where the baseline has no such call). */
export function sizesTable(now: Sizes, before: Sizes | null): string[] {
  const lines: string[] = [];
  for (const [client, calls] of Object.entries(now)) {
    lines.push(`  ${client}: bytes (tokens) of the whole result, then what its model reads`);
    for (const [key, s] of Object.entries(calls)) {
      const was = before?.[client]?.[key];
      const then = was === undefined
        ? ""
        : ` · main ${was.bytes} (${was.tokens}), model ${was.modelBytes}`;
      lines.push(
        `    ${key.padEnd(34)} ${
          String(s.bytes).padStart(5)
        } (${s.tokens}), model ${s.modelBytes}${then}`,
      );
    }
  }
  return lines;
}

if (import.meta.main) {
  const { values } = parseArgs({ args: Deno.args, options: { out: { type: "string" } } });
  const loadavgBefore = Deno.loadavg();
  const sizes = await measureSizes((line) => console.error(line));
  const result = {
    schemaVersion: 1,
    date: new Date().toISOString(),
    machine: machine(loadavgBefore),
    sizes,
  };
  const text = JSON.stringify(result, null, 2) + "\n";
  if (values.out) await Deno.writeTextFile(values.out, text);
  console.log(sizesTable(sizes, null).join("\n"));
}
