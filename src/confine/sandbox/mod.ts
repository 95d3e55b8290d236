/**
 * sandbox/: the OS sandbox every worker launch (and every verify command) runs in.
 *
 * Data flow: the engine's seam (confine/sandboxing.ts) reads the config's `sandbox` setting
 * (`settings.ts`, checked by `writable.ts`) and names what the launch must not see; then
 * `sandboxLaunch` (`launch.ts`) finds the machine's mechanism (`detect.ts`: bubblewrap on Linux,
 * sandbox-exec on macOS), works out what the worker may write and what it may not see (`plan.ts`:
 * its tree minus `.git` unless the run only reads, the CLI's own state folders, caches,
 * `sandbox.writable`, a private temp folder; the hidden paths replaced by empty ones, with what
 * the launch needs inside them shown again, parents first) and wraps the launch's argv
 * (`bwrap.ts`, `seatbelt.ts`, both pure). With bubblewrap the worker and everything it starts
 * live in a PID namespace that ends with the sandbox, so killing the process group ends them all.
 * `tmp.ts` finds what the private `/tmp` must show again (the tree, HOME, a CLI or its interpreter
 * reached through a link into `/tmp`); a program the sandbox would hide is refused before it
 * starts. `names.ts` reads `sandbox.hide`/`show` entries, `paths.ts` holds the path checks, `links.ts`
 * finds links in a tree that lead out of it, for runs without a sandbox.
 */
export { bwrapArgv, bwrapProbe } from "./bwrap.ts";
export { detectNetwork, detectSandbox, type NetworkKind, type SandboxKind } from "./detect.ts";
export { loopbackPorts } from "./network.ts";
export { type SandboxInput, sandboxLaunch, type SandboxUse } from "./launch.ts";
export { escapingLinks } from "./links.ts";
export { isPathEntry, matchesName } from "./names.ts";
export {
  expandHome,
  hiddenHolder,
  type PlanInput,
  type PlanMount,
  planMounts,
  planSandbox,
  type SandboxPlan,
  treeRoot,
} from "./plan.ts";
export { sandboxExecArgv, seatbeltProfile } from "./seatbelt.ts";
export {
  defaultSandboxSetting,
  type NetworkMode,
  type SandboxMode,
  type SandboxSetting,
  sandboxSetting,
} from "./settings.ts";
export {
  checkedSandboxSetting,
  type HiddenEntries,
  hiddenEntries,
  type WritableFolders,
  writableFolders,
} from "./writable.ts";
