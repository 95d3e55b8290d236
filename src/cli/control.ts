/**
 * `pitroom stop RUN` and `pitroom revert RUN`.
 */
import type { RunReport } from "../engine/mod.ts";
import { placeOf } from "../engine/present.ts";
import { engineFor } from "./engine_for.ts";
import type { CommandRun } from "./command.ts";
import type { REVERT_FLAGS, STOP_FLAGS } from "./control_command.ts";
import { printJson, sayDamaged } from "./output.ts";
import { safe, shortList } from "./safe.ts";
import { type DamagedRecord, UsageError } from "../sys/errors.ts";

/** Stops runs: the named ones or a group's live ones (queued runs too), side by side. */
export const stopCommand: CommandRun<typeof STOP_FLAGS> = async ({ sys, flags, args }) => {
  const group = flags.group;
  if (group !== undefined && args.length > 0) {
    throw new UsageError("Name runs or a group (-g), not both");
  }
  if (group === undefined && args.length === 0) {
    throw new UsageError("Name the run to stop", { hint: "pitroom stop RUN (or -g NAME)" });
  }
  const records = await engineFor(sys, flags).stop(
    group !== undefined ? { group } : { runs: args },
  );
  if (flags.json) {
    const out = records.map((r) => ({ ...r, repo: placeOf(r) }));
    printJson(sys, group === undefined && out.length === 1 ? out[0] : out);
  } else if (records.length === 0) sys.out.stderr(`Nothing to stop in group "${group}"\n`);
  else {
    // Named always: a full id reaches a run of another repository.
    sys.out.stdout(
      records.map((r) =>
        `${r.id}  ${r.state}${r.outcome ? ` (${r.outcome})` : ""}  in ${safe(placeOf(r))}\n`
      ).join(""),
    );
  }
  return 0;
};

/** Reverts a run's changes (with `--all` also those no tool call of its worker made). */
export const revertCommand: CommandRun<typeof REVERT_FLAGS> = async ({ sys, flags, args }) => {
  const all = flags.all === true;
  const damaged: DamagedRecord[] = [];
  let record: RunReport;
  try {
    record = await engineFor(sys, flags).revert(args[0]!, {
      all,
      force: flags.force === true,
      onDamaged: (d) => damaged.push(d),
    });
  } finally {
    // The run's run.json is damaged: it is undone from its patch, and that is said first.
    sayDamaged(sys, damaged, { failed: false, otherwise: 0 });
  }
  const from = damaged.length > 0 ? " from its patch" : "";
  const others = record.changes?.others ?? [];
  const unrevertable = record.changes?.left ?? [];
  const stayed = new Set(unrevertable.map((f) => f.path));
  const files = [...(record.changes?.files ?? []), ...(all ? others : [])].filter((f) =>
    !stayed.has(f.path)
  );
  // A file the user changed too is reverted (the worker's lines) and keeps the user's lines.
  const left = all ? [] : others.filter((f) => f.shared === undefined);
  const keptYours = all ? [] : others.filter((f) => f.shared !== undefined && !stayed.has(f.path));
  const repo = placeOf(record);
  if (flags.json) {
    printJson(sys, {
      id: record.id,
      repo,
      ...(from ? { fromPatch: true } : {}),
      reverted: files.map((f) => f.path),
      leftAlone: left.map((f) => f.path),
      ...(keptYours.length > 0 ? { keptYours: keptYours.map((f) => f.path) } : {}),
      ...(unrevertable.length > 0 ? { notReverted: unrevertable } : {}),
    });
    return unrevertable.length > 0 ? 3 : 0;
  }
  // Named always: a full id reaches a run of another repository.
  sys.out.stdout(
    `reverted ${files.length} file(s) of ${record.id} in ${safe(repo)}${from}:\n${
      shortList(files.map((f) => f.path))
    }`,
  );
  if (keptYours.length > 0) {
    sys.out.stdout(
      `kept your own edits in ${keptYours.length} of them (you changed them too while the run worked):\n${
        shortList(keptYours.map((f) => f.path))
      }`,
    );
  }
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
