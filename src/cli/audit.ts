/**
 * `pitroom audit RUN [-W WORKER] [--json] [--bg]`: another worker and model re-checks a finished
 * read answer (engine.audit); prints the audited run's verdict lines, or the audit run's id with
 * `--bg`, or `{run, audit, background, record}` with `--json`.
 */
import { engineFor } from "./engine_for.ts";
import type { CommandRun } from "./command.ts";
import type { AUDIT_FLAGS } from "./audit_command.ts";
import { printJson } from "./output.ts";
import { auditLines } from "./audit_lines.ts";

/** Audits a run. */
export const auditCommand: CommandRun<typeof AUDIT_FLAGS> = async ({ sys, flags, args }) => {
  const engine = engineFor(sys, flags);
  const stop = new AbortController();
  const onSignal = () => stop.abort(new Error("interrupted"));
  Deno.addSignalListener("SIGINT", onSignal);
  try {
    const outcome = await engine.audit({
      run: args[0]!,
      ...(flags.worker === undefined ? {} : { worker: flags.worker }),
      ...(flags.bg === true ? { background: true } : {}),
    }, { signal: stop.signal });
    if (flags.json) printJson(sys, outcome);
    else if (outcome.background) sys.out.stdout(`${outcome.audit}\n`);
    else {
      sys.out.stdout(`run ${outcome.run} · audited by run ${outcome.audit}\n`);
      sys.out.stdout(auditLines(outcome.record).slice(1).join("\n") + "\n");
    }
    if (outcome.background) return 0;
    return outcome.record.audit?.state === "done" ? 0 : 1;
  } finally {
    Deno.removeSignalListener("SIGINT", onSignal);
  }
};
