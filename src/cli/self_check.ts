/**
 * `pitroom self-check [--json]`: run from the installed program, checks that its embedded assets
 * are present, that it runs under exactly its permission set, that the state dir is writable and
 * that git is new enough. Exit 3 when a check fails.
 */
import { createEngine, type SelfCheck } from "../engine/mod.ts";
import { RefusedError } from "../sys/errors.ts";
import { permissionMismatches } from "../sys/permissions.ts";
import { EMBEDDED_ASSETS } from "./assets.ts";
import type { CommandRun } from "./command.ts";
import type { SELF_CHECK_FLAGS } from "./self_check_command.ts";
import { printJson, table } from "./output.ts";
import { buildInfo, versionLine } from "./version.ts";

async function assetChecks(): Promise<SelfCheck[]> {
  const checks: SelfCheck[] = [];
  for (const asset of EMBEDDED_ASSETS) {
    try {
      const text = await asset.load();
      const parts = typeof text === "string" ? [text] : text;
      const bytes = parts.reduce((n, t) => n + t.length, 0);
      const ok = parts.length > 0 && parts.every((t) => t.length > 0);
      checks.push({
        check: "asset",
        ok,
        message: ok ? `${asset.name} (${bytes} bytes)` : `${asset.name} is empty`,
      });
    } catch (error) {
      checks.push({
        check: "asset",
        ok: false,
        message: `${asset.name} is missing: ${error instanceof Error ? error.message : error}`,
      });
    }
  }
  return checks;
}

function permissionCheck(): SelfCheck {
  const wrong = permissionMismatches();
  return wrong.length === 0
    ? { check: "permissions", ok: true, message: "exactly the pitroom set of deno.json" }
    : {
      check: "permissions",
      ok: false,
      message: `not the expected set: ${wrong.join("; ")}`,
      hint: "run the released binary, or `./dev pitroom` from a checkout",
    };
}

/** Checks the program itself. */
export const selfCheckCommand: CommandRun<typeof SELF_CHECK_FLAGS> = async ({ sys, flags }) => {
  const checks = [
    ...await assetChecks(),
    permissionCheck(),
    ...await createEngine(sys).selfCheck(),
  ];
  const info = buildInfo();
  if (flags.json) printJson(sys, { ...info, ok: checks.every((c) => c.ok), checks });
  else {
    sys.out.stdout(`${versionLine(info)}\n`);
    sys.out.stdout(table(checks.map((c) => [
      c.ok ? "ok" : "error",
      c.check,
      c.message + (c.hint && !c.ok ? ` · ${c.hint}` : ""),
    ])));
  }
  const failed = checks.filter((c) => !c.ok);
  if (failed.length > 0) {
    throw new RefusedError(
      "self_check_failed",
      `${failed.length} self-check${failed.length === 1 ? "" : "s"} failed: ${failed[0]!.message}`,
      failed[0]!.hint ? { hint: failed[0]!.hint } : {},
    );
  }
  return 0;
};
