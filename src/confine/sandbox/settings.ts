/**
 * The config's `sandbox` setting: `"auto"` (sandbox when the machine has one, else run with a
 * warning), `"required"` (refuse without one) or `"off"`, as a string or as
 * `{"mode": ..., "writable": [...]}` with folders every worker may also write.
 */

/** How strictly runs are sandboxed. */
export type SandboxMode = "auto" | "required" | "off";

/** The resolved setting. */
export interface SandboxSetting {
  mode: SandboxMode;
  /** More folders a worker may write (`~/` allowed). */
  writable: string[];
}

const MODES: readonly SandboxMode[] = ["auto", "required", "off"];

/**
 * Reads the config's `sandbox` value; a bad one is a warning and `auto` (pure). The writable
 * entries are as written: `writableFolders` (writable.ts) checks them.
 */
export function sandboxSetting(raw: unknown): { setting: SandboxSetting; warnings: string[] } {
  const warnings: string[] = [];
  const setting: SandboxSetting = { mode: "auto", writable: [] };
  if (raw === undefined) return { setting, warnings };
  const record = typeof raw === "object" && raw !== null && !Array.isArray(raw)
    ? raw as Record<string, unknown>
    : null;
  const mode = record === null ? raw : record.mode;
  if (mode !== undefined) {
    if (MODES.includes(mode as SandboxMode)) setting.mode = mode as SandboxMode;
    else warnings.push(`Config "sandbox" should be one of ${MODES.join(", ")}: ignored`);
  }
  const writable = record?.writable;
  if (writable !== undefined) {
    if (Array.isArray(writable) && writable.every((w) => typeof w === "string")) {
      // Each entry is checked against the disk (a relative one included) by `writableFolders`.
      setting.writable = [...writable];
    } else {
      warnings.push(`Config "sandbox.writable" should be a list of folders: ignored`);
    }
  }
  return { setting, warnings };
}
