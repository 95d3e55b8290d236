/**
 * The Tasks extension (`io.modelcontextprotocol/tasks`, 2026-07-28) for the tools that start
 * runs: `pitroom_run` (one task or a crew), `pitroom_review`, `pitroom_audit`. A call from a
 * client that declares the extension starts its runs (as a call with `waitSeconds: 0`) and
 * answers at once with a task handle while any of them is going; a call whose runs all ended at
 * once (a cached answer, a refusal) answers plainly. The task is its runs: its id names them
 * (task_id.ts), and `tasks/get` reads their records in the state dir, so any server process
 * answers for any task, across reconnects and restarts. While they go the status message is the
 * progress line of a plain call (follow.ts); once all ended the task is `completed` with the
 * result a plain call would have given (`cancelled` when every run was stopped). `tasks/cancel`
 * stops the runs; `tasks/update` has nothing to answer (no task waits for input).
 */
import { z } from "zod/v4";
import type { Engine, RunReport } from "../../engine/mod.ts";
import { isFinal, viewOf } from "../../engine/present.ts";
import { DamagedRecord } from "../../sys/errors.ts";
import type { Clock } from "../../sys/mod.ts";
import { CLIENT_CAPABILITIES_KEY, TASKS_EXTENSION } from "./discover.ts";
import { progressMessage } from "./follow.ts";
import { type McpServer, ProtocolError, ProtocolErrorCode, type ServerContext } from "./sdk.ts";
import { decodeTaskId, encodeTaskId, type TaskSpec } from "./task_id.ts";
import {
  type CallHook,
  type ContextOf,
  errorResult,
  extraOf,
  finish,
  type HandingOver,
  type ToolContext,
} from "./tool.ts";
import type { McpToolName } from "./tool_names.ts";
import { runsAnswer } from "./tools/_runs.ts";
import { TOOLS } from "./tools/mod.ts";

/** The tools whose calls may become tasks. */
export const TASK_TOOLS: ReadonlySet<McpToolName> = new Set([
  "pitroom_run",
  "pitroom_review",
  "pitroom_audit",
]);

/** How often a client should ask (the progress line changes every few seconds). */
export const POLL_INTERVAL_MS = 1000;

/** How long a finished audit's verdict may take to reach the audited run (as audit.ts waits). */
const AUDIT_SETTLE_MS = 10_000;

/**
 * A task's answer once its runs ended: what its tool answers when its wait ended (run.ts,
 * review.ts, audit.ts), from the runs the task names.
 */
async function answerOf(
  spec: TaskSpec,
  runs: RunReport[],
  ctx: ToolContext,
): Promise<HandingOver<unknown>> {
  if (spec.tool === "pitroom_audit" && runs.length === 2) {
    const [audited, audit] = runs as [RunReport, RunReport];
    const settled = await ctx.engine.auditSettled(audited.id, audit.id, {
      timeoutMs: AUDIT_SETTLE_MS,
      signal: ctx.extra.signal,
    });
    return await runsAnswer(ctx, [settled, audit], {
      detail: { [audited.id]: "verdict", [audit.id]: "verdict" },
    });
  }
  return await runsAnswer(ctx, runs, {
    ...(spec.group === undefined ? {} : { group: spec.group }),
    ...(spec.warnings === undefined ? {} : { warnings: spec.warnings }),
  });
}

/** What the task layer needs. */
export interface TaskDeps {
  engine: Engine;
  clock: Clock;
  key: () => Promise<CryptoKey>;
  contextOf: ContextOf;
}

type Status = "working" | "completed" | "failed" | "cancelled";

/** True when the request declares the Tasks extension in its per-request capabilities. */
export function declaresTasks(request: ServerContext): boolean {
  const caps = request.mcpReq.envelope?.[CLIENT_CAPABILITIES_KEY as never] as
    | { extensions?: Record<string, unknown> }
    | undefined;
  const ext = caps?.extensions?.[TASKS_EXTENSION];
  return typeof ext === "object" && ext !== null;
}

const iso = (ms: number) => new Date(ms).toISOString();

/**
 * A task's state from its runs' reports: `cancelled` when every run it started (`going`, else
 * all) was stopped.
 */
function taskState(taskId: string, runs: readonly RunReport[], now: number, going?: string[]) {
  const ended = runs.filter((r) => isFinal(r.state));
  const done = ended.length === runs.length;
  const started = going === undefined ? runs : runs.filter((r) => going.includes(r.id));
  const status: Status = !done
    ? "working"
    : started.length > 0 && started.every((r) => r.outcome === "stopped")
    ? "cancelled"
    : "completed";
  const createdAt = Math.min(...runs.map((r) => r.createdAt));
  const lastUpdatedAt = done ? Math.max(...runs.map((r) => r.endedAt ?? r.createdAt)) : now;
  return {
    taskId,
    status,
    statusMessage: progressMessage(runs.map(viewOf), new Set(ended.map((r) => r.id)), now),
    createdAt: iso(createdAt),
    lastUpdatedAt: iso(Math.max(createdAt, lastUpdatedAt)),
    ttlMs: null,
    pollIntervalMs: POLL_INTERVAL_MS,
  };
}

/** Registers `tasks/get`, `tasks/update` and `tasks/cancel`; gives the hook that makes tasks. */
export function registerTasks(server: McpServer, deps: TaskDeps): { onCall: CallHook } {
  const tool = (spec: TaskSpec) => TOOLS.find((t) => t.name === spec.tool)!;

  /** The task an id names, and its runs' reports (a run cleaned since is read from the history). */
  const lookUp = async (taskId: string): Promise<{ spec: TaskSpec; runs: RunReport[] }> => {
    const spec = await decodeTaskId(taskId, await deps.key());
    if (spec === null) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Failed to retrieve task: no task "${taskId.slice(0, 80)}"`,
      );
    }
    const runs: RunReport[] = [];
    for (const id of spec.runs) {
      try {
        runs.push((await deps.engine.found(id)).report);
      } catch (error) {
        if (error instanceof DamagedRecord) continue;
        throw new ProtocolError(
          ProtocolErrorCode.InvalidParams,
          `Failed to retrieve task: its run "${id}" is gone (${
            error instanceof Error ? error.message : String(error)
          })`,
        );
      }
    }
    if (runs.length === 0) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        "Failed to retrieve task: its runs are gone",
      );
    }
    return { spec, runs };
  };

  const requireCapability = (request: ServerContext) => {
    if (declaresTasks(request)) return;
    throw new ProtocolError(
      ProtocolErrorCode.MissingRequiredClientCapability,
      "Missing required client capability",
      {
        requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } },
      },
    );
  };

  const TaskIdParams = z.object({ taskId: z.string() }).passthrough();
  const Open = z.object({}).passthrough();

  server.server.setRequestHandler(
    "tasks/get",
    { params: TaskIdParams, result: Open },
    (async ({ taskId }: { taskId: string }, request: ServerContext) => {
      requireCapability(request);
      const { spec, runs } = await lookUp(taskId);
      const now = deps.clock.now();
      const state = taskState(taskId, runs, now, spec.going);
      if (state.status !== "completed") return state;
      // The result a plain call would have given once its runs ended (handed over as it).
      const ctx = deps.contextOf({
        ...extraOf(request),
        sendNotification: () => Promise.resolve(),
      });
      let result;
      try {
        result = await finish(tool(spec), await answerOf(spec, runs, ctx), ctx);
      } catch (error) {
        result = errorResult(error);
      }
      // The result as the call itself would have carried it on this protocol.
      return { ...state, result: { ...result, resultType: "complete" } };
    }) as never,
  );

  server.server.setRequestHandler(
    "tasks/cancel",
    { params: TaskIdParams, result: Open },
    (async ({ taskId }: { taskId: string }, request: ServerContext) => {
      requireCapability(request);
      const { runs } = await lookUp(taskId);
      const going = runs.filter((r) => !isFinal(r.state)).map((r) => r.id);
      if (going.length > 0) await deps.engine.stop({ runs: going });
      return {};
    }) as never,
  );

  server.server.setRequestHandler(
    "tasks/update",
    { params: TaskIdParams, result: Open },
    (async ({ taskId }: { taskId: string }, request: ServerContext) => {
      requireCapability(request);
      // No Pitroom task asks for input: every response is for a request it never made.
      await lookUp(taskId);
      return {};
    }) as never,
  );

  const onCall: CallHook = async (tool, input, ctx, request) => {
    if (!TASK_TOOLS.has(tool.name) || !declaresTasks(request)) return undefined;
    let answered;
    try {
      answered = await tool.call({ ...input, waitSeconds: 0 }, ctx);
    } catch (error) {
      return errorResult(error) as Record<string, unknown>;
    }
    // An error, or runs that all ended at once (a cached answer, a refusal): a plain answer.
    if (!("render" in answered) || answered.runs.every((r) => isFinal(r.state))) {
      return await finish(tool, answered, ctx) as Record<string, unknown>;
    }
    const runs = [...answered.runs];
    const shown = answered.render(runs).result as { group?: string; warnings?: string[] };
    const going = runs.filter((r) => !isFinal(r.state)).map((r) => r.id);
    const spec: TaskSpec = {
      tool: tool.name,
      runs: runs.map((r) => r.id),
      ...(going.length === runs.length ? {} : { going }),
      ...(shown.group === undefined ? {} : { group: shown.group }),
      ...(shown.warnings === undefined ? {} : { warnings: shown.warnings }),
    };
    const taskId = await encodeTaskId(spec, await deps.key());
    return { resultType: "task", ...taskState(taskId, runs, deps.clock.now(), spec.going) };
  };

  return { onCall };
}
