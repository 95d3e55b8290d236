/**
 * sandbox/: the OS sandbox every worker launch runs in.
 *
 * Data flow: the engine's attempt reads the config's `sandbox` setting (`settings.ts`), then
 * `sandboxLaunch` (`launch.ts`) finds the machine's mechanism (`detect.ts`: bubblewrap on
 * Linux, sandbox-exec on macOS), works out what the worker may write (`plan.ts`: its tree minus
 * `.git` unless the run only reads, the CLI's own state folders, caches, `sandbox.writable`,
 * a private temp folder; `writable.ts` checks the config's folders and refuses `/` and the
 * user's home) and wraps the launch's argv (`bwrap.ts`, `seatbelt.ts`, both pure).
 * With bubblewrap the worker and everything it starts live in a PID namespace that ends with
 * the sandbox, so killing the process group ends them all. `links.ts` finds links in a tree
 * that lead out of it, for runs without a sandbox.
 */
export { bwrapArgv, bwrapProbe } from "./bwrap.ts";
export { detectSandbox, type SandboxKind } from "./detect.ts";
export { type SandboxInput, sandboxLaunch, type SandboxUse } from "./launch.ts";
export { escapingLinks } from "./links.ts";
export { expandHome, type PlanInput, planSandbox, type SandboxPlan, treeRoot } from "./plan.ts";
export { sandboxExecArgv, seatbeltProfile } from "./seatbelt.ts";
export { type SandboxMode, type SandboxSetting, sandboxSetting } from "./settings.ts";
export { checkedSandboxSetting, type WritableFolders, writableFolders } from "./writable.ts";
