/**
 * `pitroom doctor [--probe]`: the engine's setup checks (engine/setup/doctor.ts) in sections (setup,
 * workers, chain and tiers, integrations: MCP registrations, skills and what is installed twice,
 * use so far), then the exact commands to run next; or JSON. Exit 3 when no worker is installed or a check failed.
 */
import { type Check, type CheckSection, createEngine, type Engine } from "../engine/mod.ts";
import { CHECK_SECTIONS, formatUsd } from "../engine/present.ts";
import { RefusedError } from "../sys/errors.ts";
import type { CommandRun } from "./command.ts";
import type { DOCTOR_FLAGS } from "./doctor_command.ts";
import { printJson, table } from "./output.ts";
import { integrationChecks } from "./doctor_integrations.ts";

const TITLES: Record<CheckSection, string> = {
  setup: "Setup",
  workers: "Workers",
  chain: "Worker chain and tiers",
  hosts: "Hosts",
  integrations: "Integrations",
  use: "Use so far",
};

/** Renders the checks for people, a table per section (pure). */
export function renderChecks(checks: readonly Check[]): string {
  const out: string[] = [];
  for (const section of CHECK_SECTIONS) {
    const mine = checks.filter((c) => (c.section ?? "setup") === section);
    if (mine.length === 0) continue;
    const rows = mine.map((c) => [
      c.status,
      c.worker ? `${c.check} ${c.worker}${c.model ? `:${c.model}` : ""}` : c.check,
      c.message + (c.version && c.check === "worker" ? ` (${c.version})` : "") +
      (c.hint && c.status !== "ok" ? ` · ${c.hint}` : ""),
    ]);
    out.push(`${TITLES[section]}\n${table(rows)}`);
  }
  return out.join("\n");
}

/** The commands that would fix or advance the setup, most useful first (pure). */
export function nextCommands(checks: readonly Check[]): string[] {
  const next: string[] = [];
  const add = (cmd: string) => next.includes(cmd) || next.push(cmd);
  if (!checks.some((c) => c.check === "worker" && c.status === "ok")) add("npm i -g opencode-ai");
  else if (checks.some((c) => c.check === "config" && /^no config file/.test(c.message))) {
    add("pitroom init --yes");
  }
  for (const c of checks) {
    if (c.status !== "ok" && c.hint && /^(pitroom|npm|apt) /.test(c.hint)) {
      add(c.hint);
    }
  }
  if (checks.some((c) => c.check === "use" && c.status === "skip")) {
    add('pitroom run "Where is the entry point of this project?"');
  }
  return next;
}

/** The history's last 30 days as checks of the "use" section. */
async function useChecks(engine: Engine): Promise<Check[]> {
  try {
    const stats = await engine.history.stats({ since: Date.now() - 30 * 86_400_000 });
    const t = stats.total;
    if (t.runs === 0) {
      return [{
        check: "use",
        section: "use",
        status: "skip",
        message: "no run in the last 30 days",
      }];
    }
    const rate = t.successRate === null ? "" : `, ${Math.round(t.successRate * 100)}% succeeded`;
    const top = stats.targets.slice(0, 3).map((r) => `${r.label} ${r.runs}`).join(", ");
    return [
      {
        check: "use",
        section: "use",
        status: "ok",
        message: `${t.runs} run${t.runs === 1 ? "" : "s"} in 30 days${rate}; saved about ${
          formatUsd(t.saved)
        }`,
      },
      ...(top
        ? [{
          check: "use",
          section: "use" as const,
          status: "ok" as const,
          message: `by worker: ${top}`,
        }]
        : []),
    ];
  } catch (error) {
    return [{
      check: "use",
      section: "use",
      status: "warn",
      message: `cannot read the history: ${error instanceof Error ? error.message : error}`,
    }];
  }
}

/** Checks the setup. */
export const doctorCommand: CommandRun<typeof DOCTOR_FLAGS> = async ({ sys, flags }) => {
  const engine = createEngine(sys);
  const checks = [
    ...await engine.doctor({ probe: flags.probe === true }),
    ...await integrationChecks(sys),
    ...await useChecks(engine),
  ];
  const next = nextCommands(checks);
  if (flags.json) printJson(sys, { checks, next });
  else {
    sys.out.stdout(renderChecks(checks));
    if (next.length > 0) sys.out.stdout(`\nNext:\n${next.map((c) => `  ${c}`).join("\n")}\n`);
  }
  const workers = checks.filter((c) => c.check === "worker");
  if (!workers.some((c) => c.status === "ok")) {
    throw new RefusedError("no_worker", "No worker CLI is installed", {
      hint: "npm i -g opencode-ai",
    });
  }
  const failed = checks.filter((c) => c.status === "error");
  if (failed.length > 0) {
    throw new RefusedError(
      "doctor_failed",
      `${failed.length} check${failed.length === 1 ? "" : "s"} failed: ${failed[0]!.message}`,
      failed[0]!.hint ? { hint: failed[0]!.hint } : {},
    );
  }
  return 0;
};
