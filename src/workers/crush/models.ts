/**
 * Crush's models: `crush models` prints, when its stdout is not a terminal, one
 * `provider/model` line for every model of its configured providers and of the known ones
 * (Crush's source, `internal/cmd/models.go`). Efforts are not listed there.
 */
import type { Runner } from "../../sys/mod.ts";
import type { ModelInfo } from "../types.ts";
import { QUIET_ENV } from "./argv.ts";

const ID_LINE = /^[A-Za-z0-9][\w.@-]*\/\S+$/;

/** Parses `crush models` output (pure). */
export function parseCrushModels(text: string): ModelInfo[] {
  const seen = new Set<string>();
  const models: ModelInfo[] = [];
  for (const line of text.split("\n")) {
    const id = line.trim();
    if (!ID_LINE.test(id) || seen.has(id)) continue;
    seen.add(id);
    models.push({ id, efforts: [], source: "cli" });
  }
  return models;
}

/** Asks the installed `crush` for its models (stdin closed). */
export async function crushModels(
  runner: Runner,
  env: Record<string, string>,
): Promise<ModelInfo[]> {
  const out = await runner.run(["crush", "models"], {
    env: { ...env, ...QUIET_ENV },
    stdin: { kind: "null" },
  });
  return out.code === 0 ? parseCrushModels(out.stdout) : [];
}
