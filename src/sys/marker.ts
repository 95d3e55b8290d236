/**
 * The recursion marker: set in every worker's environment (to the run id); Pitroom refuses to run
 * under it, so a worker cannot start Pitroom even by absolute path. A leaf, so the CLI checks it
 * before it loads anything else (src/cli/main.ts); confine/floor.ts keeps it with the floor.
 */
export const RECURSION_MARKER = "PITROOM_INSIDE_RUN";
