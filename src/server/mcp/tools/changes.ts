/**
 * What becomes of a run's changes: `pitroom_apply` (an isolate run's patch into the tree, or a
 * group's in order), `pitroom_discard` (an isolate run's copy) and `pitroom_revert` (exactly a
 * run's own edits undone).
 */
import { BriefSchema } from "./_runs.ts";
import { z } from "zod/v4";
import type { Applied } from "../../../engine/mod.ts";
import { placeOf, runBrief } from "../../../engine/present.ts";
import { UsageError } from "../../../sys/errors.ts";
import { defineTool } from "../tool.ts";

const AppliedResult = z.object({
  id: z.string(),
  repo: z.string().describe("the repository the patch was applied to"),
  applied: z.array(z.string()).describe("written from the patch onto unchanged files"),
  merged: z.array(z.string()).describe("patched into files changed since the run started"),
  already: z.array(z.string()).describe("already as the patch leaves them"),
  deleted: z.array(z.string()),
  skipped: z.array(z.string()).describe("submodule changes, left alone"),
});

function appliedOf({ record, report }: Applied): z.input<typeof AppliedResult> {
  return { id: record.id, repo: placeOf(record), ...report };
}

/** At most 20 names, then how many more. */
function names(paths: readonly string[]): string {
  const more = paths.length > 20 ? ` and ${paths.length - 20} more` : "";
  return `${paths.slice(0, 20).join(", ")}${more}`;
}

function appliedLine(a: z.input<typeof AppliedResult>): string {
  const files = [...a.applied, ...a.merged];
  const already = a.already.length > 0
    ? `; ${a.already.length} already there${files.length === 0 ? `: ${names(a.already)}` : ""}`
    : "";
  return `applied ${a.id} in ${a.repo}: ${files.length} file(s)${
    files.length ? `: ${names(files)}` : ""
  }${already}`;
}

export const applyTool = defineTool({
  name: "pitroom_apply",
  title: "Apply an isolate run's patch",
  description: [
    "Write the changes an isolate run made in its private copy into the working tree, checked",
    "first (nothing is written when a file changed under the patch). With group: the group's",
    "finished isolate runs in order, stopping at the first that does not apply.",
  ].join(" "),
  input: z.object({
    run: z.string().optional().describe(
      "run id (or a unique part of it, or `last`, among the server's repository's runs)",
    ),
    group: z.string().optional().describe("apply this group's finished isolate runs"),
    allowDelete: z.boolean().optional().describe("apply deletions too"),
  }),
  output: z.object({
    applied: z.array(AppliedResult),
    failed: z.object({ run: z.string(), message: z.string() }).optional(),
    notApplied: z.array(z.string()).optional(),
    live: z.array(z.string()).optional(),
  }),
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: true,
    openWorldHint: false,
  },
  async call({ run, group, allowDelete }, ctx) {
    const options = { allowDelete: allowDelete === true };
    if ((run === undefined) === (group === undefined)) {
      throw new UsageError("Name a run or a group to apply", {
        hint: 'pitroom_apply {"run": "last"}',
      });
    }
    if (run !== undefined) {
      const applied = appliedOf(await ctx.engine.apply(run, options));
      return { result: { applied: [applied] }, text: appliedLine(applied) };
    }
    const result = await ctx.engine.applyGroup(group!, options);
    const applied = result.applied.map(appliedOf);
    const lines = applied.map(appliedLine);
    if (applied.length === 0 && !result.failed) lines.push(`nothing to apply in group "${group}"`);
    if (result.failed) {
      lines.push(`stopped at ${result.failed.run}: ${result.failed.error.message}`);
    }
    if (result.notApplied.length > 0) lines.push(`not applied yet: ${result.notApplied.join(" ")}`);
    if (result.live.length > 0) {
      lines.push(`still running (apply them later): ${result.live.join(" ")}`);
    }
    return {
      result: {
        applied,
        ...(result.failed
          ? { failed: { run: result.failed.run, message: result.failed.error.message } }
          : {}),
        notApplied: result.notApplied,
        live: result.live,
      },
      text: lines.join("\n"),
      ...(result.failed ? { isError: true } : {}),
    };
  },
});

export const discardTool = defineTool({
  name: "pitroom_discard",
  title: "Discard an isolate run's copy",
  description: "Remove an isolate run's private copy; its patch stays (pitroom_show with patch).",
  input: z.object({ run: z.string().describe("run id (or a unique part of it, or `last`)") }),
  output: z.object({ run: BriefSchema }),
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  async call({ run }, ctx) {
    const report = await ctx.engine.discard(run);
    return {
      result: { run: runBrief(report, ctx.clock.now(), { detail: "line" }) },
      text: `discarded the copy of ${report.id} (of ${placeOf(report)}; its patch stays)`,
    };
  },
});

export const revertTool = defineTool({
  name: "pitroom_revert",
  title: "Revert a run's changes",
  description: [
    "Undo exactly the files a finished run's worker changed in the working tree (with all: also",
    "files changed while it worked that no tool call of the worker made).",
  ].join(" "),
  input: z.object({
    run: z.string().describe("run id (or a unique part of it, or `last`)"),
    all: z.boolean().optional().describe("also undo the files no tool call of the worker made"),
    force: z.boolean().optional().describe(
      "revert although HEAD or the index moved during the run",
    ),
  }),
  output: z.object({
    id: z.string(),
    repo: z.string(),
    reverted: z.array(z.string()),
    leftAlone: z.array(z.string()),
    keptYours: z.array(z.string()).optional().describe(
      "files the user changed too while it worked: the worker's lines went, the user's stay",
    ),
    notReverted: z.array(
      z.object({ path: z.string(), why: z.string(), kept: z.string().optional() }),
    )
      .optional().describe("files whose worker changes could not be taken out without the user's"),
  }),
  annotations: {
    readOnlyHint: false,
    destructiveHint: true,
    idempotentHint: true,
    openWorldHint: false,
  },
  async call({ run, all, force }, ctx) {
    const record = await ctx.engine.revert(run, { all: all === true, force: force === true });
    const others = record.changes?.others ?? [];
    const notReverted = record.changes?.left ?? [];
    const stayed = new Set(notReverted.map((f) => f.path));
    const reverted = [...(record.changes?.files ?? []), ...(all ? others : [])].map((f) => f.path)
      .filter((path) => !stayed.has(path));
    const leftAlone = all ? [] : others.filter((f) => f.shared === undefined).map((f) => f.path);
    const keptYours = all
      ? []
      : others.filter((f) => f.shared !== undefined && !stayed.has(f.path)).map((f) => f.path);
    const repo = placeOf(record);
    const lines = [
      `reverted ${reverted.length} file(s) of ${record.id} in ${repo}: ${names(reverted)}`,
    ];
    if (notReverted.length > 0) {
      lines.push(
        `not reverted (the worker's changes cannot be taken out without the user's): ${
          notReverted.map((f) => `${f.path} (${f.why})`).join(", ")
        }; their versions are kept in the run folder`,
      );
    }
    if (keptYours.length > 0) {
      lines.push(`kept the user's own edits in: ${names(keptYours)}`);
    }
    if (leftAlone.length > 0) {
      lines.push(
        `left alone (changed while it worked, not by the worker): ${leftAlone.join(", ")}; ` +
          `undo those too with pitroom_revert {"run": "${record.id}", "all": true}`,
      );
    }
    return {
      result: {
        id: record.id,
        repo,
        reverted,
        leftAlone,
        ...(keptYours.length > 0 ? { keptYours } : {}),
        ...(notReverted.length > 0 ? { notReverted } : {}),
      },
      text: lines.join("\n"),
      ...(notReverted.length > 0 ? { isError: true } : {}),
    };
  },
});
