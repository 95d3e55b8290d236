/**
 * The zod schema of a run's brief (follow/brief.ts): the MCP tools' output schemas name it, and
 * the SDK checks each result against it.
 */
import { z } from "zod/v4";
import { OUTCOME_CLASSES, RUN_STATES } from "../../events/mod.ts";
import { MODE_NAMES } from "../../workers/names.ts";

function build() {
  return z.object({
    id: z.string(),
    state: z.enum(RUN_STATES),
    outcome: z.enum(OUTCOME_CLASSES).optional(),
    exit: z.number().optional().describe(
      "when not 0: 1 failed, 3 refused, 4 timeout, 5 read-only violation, 6 verify failed",
    ),
    mode: z.enum(MODE_NAMES),
    worker: z.string().describe("the worker and model that answered"),
    time: z.string(),
    task: z.string().optional().describe("the task, clipped (listings)"),
    group: z.string().optional(),
    progress: z.string().optional().describe("a live run: steps, tool calls, last action"),
    problem: z.string().optional().describe("why the run did not end well"),
    answer: z.string().optional(),
    changed: z.array(z.string()).optional().describe(
      "files the worker changed: `M path +added -removed` (A added, M modified, D deleted)",
    ),
    refs: z.string().optional().describe("the answer's path:line references that held, of all"),
    flagged: z.array(z.string()).optional().describe(
      "claims of the answer the run or the tree contradict",
    ),
    verify: z.string().optional(),
    verdict: z.string().optional().describe("a review run's verdict"),
    reviewed: z.string().optional().describe("this run's latest review verdict"),
    audit: z.string().optional().describe("the audit of the answer: AGREE, PARTLY or DISAGREE"),
    disputed: z.array(z.string()).optional().describe("the claims the audit disputed"),
    corrected: z.string().optional().describe("the audit's correction round's answer"),
    status: z.string().optional().describe("a plan run's implementer status"),
    cached: z.string().optional(),
    denied: z.number().optional().describe("tool calls the worker's permissions refused"),
    next: z.array(z.string()).optional().describe(
      'what to do next: a tool name alone takes this run ({"run": id}; pitroom_wait {"runs": [id]})',
    ),
    receipt: z.string().optional().describe("tokens burned, returned and saved, in one line"),
  });
}

let built: ReturnType<typeof build> | undefined;

/** The schema of `RunBrief`. */
export function runBriefSchema(): ReturnType<typeof build> {
  return built ??= build();
}
