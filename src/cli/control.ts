/**
 * `pitroom stop RUN` and `pitroom revert RUN`.
 */
import { createEngine } from "../engine/mod.ts";
import type { CommandRun } from "./command.ts";
import { printJson } from "./output.ts";
import { safe, shortList } from "./safe.ts";
import { UsageError } from "../sys/errors.ts";

/** Stops runs: the named ones or a group's live ones (queued runs too), side by side. */
export const stopCommand: CommandRun = async ({ sys, flags, args }) => {
  const group = flags.group as string | undefined;
  if (group !== undefined && args.length > 0) {
    throw new UsageError("Name runs or a group (-g), not both");
  }
  if (group === undefined && args.length === 0) {
    throw new UsageError("Name the run to stop", { hint: "pitroom stop RUN (or -g NAME)" });
  }
  const records = await createEngine(sys).stop(group !== undefined ? { group } : { runs: args });
  if (flags.json) {
    printJson(sys, group === undefined && records.length === 1 ? records[0] : records);
  } else if (records.length === 0) sys.out.stderr(`Nothing to stop in group "${group}"\n`);
  else {
    sys.out.stdout(
      records.map((r) => `${r.id}  ${r.state}${r.outcome ? ` (${r.outcome})` : ""}\n`).join(""),
    );
  }
  return 0;
};

/** Reverts a run's changes (with `--all` also those no tool call of its worker made). */
export const revertCommand: CommandRun = async ({ sys, flags, args }) => {
  const all = flags.all === true;
  const record = await createEngine(sys).revert(args[0]!, { all, force: flags.force === true });
  const others = record.changes?.others ?? [];
  const unrevertable = record.changes?.left ?? [];
  const stayed = new Set(unrevertable.map((f) => f.path));
  const files = [...(record.changes?.files ?? []), ...(all ? others : [])].filter((f) =>
    !stayed.has(f.path)
  );
  const left = all ? [] : others;
  const repo = record.repoRoot ?? record.cwd;
  if (flags.json) {
    printJson(sys, {
      id: record.id,
      repo,
      reverted: files.map((f) => f.path),
      leftAlone: left.map((f) => f.path),
      ...(unrevertable.length > 0 ? { notReverted: unrevertable } : {}),
    });
    return unrevertable.length > 0 ? 3 : 0;
  }
  // Named always: `revert last` typed inside another repository reverts this one.
  sys.out.stdout(
    `reverted ${files.length} file(s) of ${record.id} in ${safe(repo)}:\n${
      shortList(files.map((f) => f.path))
    }`,
  );
  if (left.length > 0) {
    sys.out.stdout(
      `left alone ${left.length} file(s) changed while the run worked, not by a tool the worker called:\n${
        shortList(left.map((f) => f.path))
      }`,
    );
    sys.out.stderr(`undo those too with \`pitroom revert ${record.id} --all\`\n`);
  }
  if (unrevertable.length > 0) {
    sys.out.stdout(
      `not reverted: ${unrevertable.length} file(s) where the worker's changes cannot be taken out without yours:\n${
        unrevertable.map((f) =>
          `  ${safe(f.path)}: ${safe(f.why)}${
            f.kept ? ` (versions kept in ${safe(f.kept)})` : ""
          }\n`
        ).join("")
      }`,
    );
    return 3;
  }
  return 0;
};
