/**
 * The layout of a private worker home: where HOME, the XDG dirs and TMPDIR of a worker run live
 * inside one directory. `env_file.ts` creates it; dialects write their CLI's config into it.
 */
import { join } from "node:path";

/** The env vars that place a worker's files inside `home`. */
export interface WorkerDirs {
  HOME: string;
  XDG_CONFIG_HOME: string;
  XDG_DATA_HOME: string;
  XDG_STATE_HOME: string;
  XDG_CACHE_HOME: string;
  TMPDIR: string;
}

/** The directories of the private worker home `home` (not created). */
export function workerDirs(home: string): WorkerDirs {
  return {
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
    XDG_DATA_HOME: join(home, ".local", "share"),
    XDG_STATE_HOME: join(home, ".local", "state"),
    XDG_CACHE_HOME: join(home, ".cache"),
    TMPDIR: join(home, "tmp"),
  };
}
