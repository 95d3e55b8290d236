/**
 * Effective settings: load the config file (with its warnings) and resolve it with the
 * environment and flags (settings.ts does the resolving), the sandbox's writable folders checked
 * against the disk. Read once per command or run.
 */
import type { HeldSys } from "../../store/state.ts";
import { resolveSettings, type SettingFlags } from "./settings.ts";
import type { Settings } from "./settings.ts";
import { loadConfig, type LoadedConfig } from "../../store/config.ts";
import { checkedSandboxSetting } from "../../confine/sandbox/mod.ts";

/** The loaded config file and the effective settings, with every warning of both. */
export interface LoadedSettings {
  loaded: LoadedConfig;
  settings: Settings;
  warnings: string[];
}

/** Loads the config file (of `sys`, or `configPath`) and resolves the effective settings. */
export async function loadSettings(
  sys: HeldSys,
  flags: SettingFlags = {},
  configPath: string = sys.configPath,
): Promise<LoadedSettings> {
  const loaded = await loadConfig(configPath);
  const { settings, warnings } = resolveSettings({
    config: loaded.config,
    env: sys.env,
    flags,
    configPath,
    stateDir: sys.stateDir,
  });
  const sandbox = await checkedSandboxSetting(loaded.config.sandbox, sys.env.get("HOME"));
  return { loaded, settings, warnings: [...loaded.warnings, ...warnings, ...sandbox.warnings] };
}
