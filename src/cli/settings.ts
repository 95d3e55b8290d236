/**
 * Effective settings for commands: load the config file (with its warnings) and resolve it with
 * the environment and flags (src/engine/settings.ts does the resolving).
 */
import { resolveSettings, type SettingFlags, type Settings } from "../engine/settings.ts";
import { loadConfig, type LoadedConfig } from "../store/config.ts";
import type { Sys } from "../sys/mod.ts";

/** The loaded config file and the effective settings, with every warning of both. */
export interface LoadedSettings {
  loaded: LoadedConfig;
  settings: Settings;
  warnings: string[];
}

/** Loads the config file of `sys` and resolves the effective settings. */
export async function loadSettings(sys: Sys, flags: SettingFlags = {}): Promise<LoadedSettings> {
  const loaded = await loadConfig(sys.configPath);
  const { settings, warnings } = resolveSettings({
    config: loaded.config,
    env: sys.env,
    flags,
    configPath: sys.configPath,
    stateDir: sys.stateDir,
  });
  return { loaded, settings, warnings: [...loaded.warnings, ...warnings] };
}

/** Writes warnings to stderr, one line each. */
export function warn(sys: Sys, warnings: readonly string[]): void {
  for (const w of warnings) sys.out.stderr(`pitroom: warning: ${w}\n`);
}
