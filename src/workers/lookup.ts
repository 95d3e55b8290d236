/**
 * A worker's backend by name: a built-in one (registry.ts), else the configured ACP worker of
 * that name (acp/), else none.
 */
import { acpBackend, type AcpWorker } from "./acp/mod.ts";
import { BACKENDS } from "./registry.ts";
import type { Backend } from "./types.ts";

/** The backend of worker `name`, given the config's own workers; undefined when there is none. */
export function backendOf(
  name: string,
  workers: Readonly<Record<string, AcpWorker>>,
): Backend | undefined {
  if (Object.hasOwn(BACKENDS, name)) return BACKENDS[name as keyof typeof BACKENDS];
  return Object.hasOwn(workers, name) ? acpBackend(name, workers[name]!) : undefined;
}
