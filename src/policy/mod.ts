/**
 * policy/: what Pitroom decides as data, read by the layers that enforce it. `floor.ts` is the
 * worker floor every run keeps (no git history, ref or index changes, no privilege escalation,
 * no publishing, no recursive Pitroom, no recursive deletion): the guard (vcs/guard*.ts) turns
 * it into shims and hooks, each backend (workers/*\/argv.ts) into its CLI's own rules. Nothing
 * here imports anything of ours, so `workers/` and `vcs/` may both read it.
 */
export * from "./floor.ts";
