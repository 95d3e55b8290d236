/**
 * The config's `sandbox` setting: `"auto"` (sandbox when the machine has one, else run with a
 * warning), `"required"` (refuse without one) or `"off"`, as a string or as an object:
 * `{"mode": ..., "writable": [...], "hide": [...], "show": [...], "allowSecrets": false,
 * "network": "host", "ports": [...]}`: folders every worker may also write, more to hide from
 * workers and built-in hidden paths or names to show after all (names.ts), whether write and
 * isolate runs see the tree's secret-looking files, and the workers' network (`"host"`, or
 * `"isolated"`: a network namespace of their own, network.ts, where only the loopback ports
 * their configuration names and `ports` reach the host's loopback).
 */

/** How strictly runs are sandboxed. */
export type SandboxMode = "auto" | "required" | "off";

/** The workers' network: the host's, or a namespace of their own. */
export type NetworkMode = "host" | "isolated";

/** The resolved setting. */
export interface SandboxSetting {
  mode: SandboxMode;
  /** More folders a worker may write (`~/` allowed). */
  writable: string[];
  /** More paths (`~/` allowed) and tree name patterns to hide. */
  hide: string[];
  /** Built-in hidden paths and names to show after all. */
  show: string[];
  /** Write and isolate runs see the tree's secret-looking files (`--allow-secrets`). */
  allowSecrets: boolean;
  network: NetworkMode;
  /** More host loopback ports an isolated network forwards (a test database, say). */
  ports: number[];
}

const MODES: readonly SandboxMode[] = ["auto", "required", "off"];
const NETWORKS: readonly NetworkMode[] = ["host", "isolated"];

/** The setting when the config says nothing. */
export function defaultSandboxSetting(): SandboxSetting {
  return {
    mode: "auto",
    writable: [],
    hide: [],
    show: [],
    allowSecrets: false,
    network: "host",
    ports: [],
  };
}

function stringList(
  record: Record<string, unknown> | null,
  key: "writable" | "hide" | "show",
  warnings: string[],
  what: string,
): string[] {
  const value = record?.[key];
  if (value === undefined) return [];
  if (Array.isArray(value) && value.every((w) => typeof w === "string")) return [...value];
  warnings.push(`Config "sandbox.${key}" should be a list of ${what}: ignored`);
  return [];
}

/**
 * Reads the config's `sandbox` value; a bad one is a warning and the default (pure). The
 * writable entries are as written: `writableFolders` (writable.ts) checks them, and
 * `hiddenEntries` the hide and show entries.
 */
export function sandboxSetting(raw: unknown): { setting: SandboxSetting; warnings: string[] } {
  const warnings: string[] = [];
  const setting = defaultSandboxSetting();
  if (raw === undefined) return { setting, warnings };
  const record = typeof raw === "object" && raw !== null && !Array.isArray(raw)
    ? raw as Record<string, unknown>
    : null;
  const mode = record === null ? raw : record.mode;
  if (mode !== undefined) {
    if (MODES.includes(mode as SandboxMode)) setting.mode = mode as SandboxMode;
    else warnings.push(`Config "sandbox" should be one of ${MODES.join(", ")}: ignored`);
  }
  setting.writable = stringList(record, "writable", warnings, "folders");
  setting.hide = stringList(record, "hide", warnings, "paths or names");
  setting.show = stringList(record, "show", warnings, "paths or names");
  const allow = record?.allowSecrets;
  if (allow !== undefined) {
    if (typeof allow === "boolean") setting.allowSecrets = allow;
    else warnings.push(`Config "sandbox.allowSecrets" should be true or false: ignored`);
  }
  const network = record?.network;
  if (network !== undefined) {
    if (NETWORKS.includes(network as NetworkMode)) setting.network = network as NetworkMode;
    else warnings.push(`Config "sandbox.network" should be one of ${NETWORKS.join(", ")}: ignored`);
  }
  const ports = record?.ports;
  if (ports !== undefined) {
    if (
      Array.isArray(ports) &&
      ports.every((p) => typeof p === "number" && Number.isInteger(p) && p > 0 && p < 65536)
    ) {
      setting.ports = [...ports];
    } else {
      warnings.push(`Config "sandbox.ports" should be a list of port numbers: ignored`);
    }
  }
  return { setting, warnings };
}
