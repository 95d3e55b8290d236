/**
 * OpenCode's models: `opencode models --verbose` prints, for every model it can use (its own
 * free models plus the providers in the user's config), a `provider/model` line followed by a
 * pretty-printed JSON object whose `variants` keys are the effort levels `--variant` accepts.
 */
import type { Runner } from "../../sys/mod.ts";
import type { ModelInfo } from "../types.ts";
import { type Flavour, OPENCODE } from "./flavour.ts";

const ID_LINE = /^[A-Za-z0-9][\w.@-]*\/\S+$/;

function variantsOf(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    if (typeof value !== "object" || value === null) return [];
    const variants = (value as { variants?: unknown }).variants;
    if (typeof variants !== "object" || variants === null || Array.isArray(variants)) return [];
    return Object.keys(variants);
  } catch (error) {
    if (error instanceof SyntaxError) return [];
    throw error;
  }
}

/**
 * Parses `opencode models` output (pure): plain lists give ids only, `--verbose` lists also
 * give each model's variants as efforts.
 */
export function parseOpencodeModels(text: string): ModelInfo[] {
  const models: ModelInfo[] = [];
  let current: { id: string; json: string[] } | null = null;
  const flush = () => {
    if (current === null) return;
    const efforts = current.json.length > 0 ? variantsOf(current.json.join("\n")) : [];
    models.push({ id: current.id, efforts, source: "cli" });
    current = null;
  };
  for (const line of text.split("\n")) {
    if (current !== null && current.json.length > 0 && !/^}\s*$/.test(current.json.at(-1) ?? "")) {
      current.json.push(line);
      continue;
    }
    const trimmed = line.trim();
    if (trimmed === "") continue;
    if (current !== null && trimmed === "{") {
      current.json.push(line);
      continue;
    }
    if (ID_LINE.test(trimmed)) {
      flush();
      current = { id: trimmed, json: [] };
    }
  }
  flush();
  return models;
}

/** Asks the installed `opencode` for its models (quiet, no catalogue fetch, stdin closed). */
export async function opencodeModels(
  runner: Runner,
  env: Record<string, string>,
  flavour: Flavour = OPENCODE,
): Promise<ModelInfo[]> {
  const out = await runner.run([flavour.binary, "models", "--verbose"], {
    env: { ...env, ...flavour.quietEnv },
    stdin: { kind: "null" },
  });
  return out.code === 0 ? parseOpencodeModels(out.stdout) : [];
}
