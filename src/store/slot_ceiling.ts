/**
 * The hard ceiling on parallel workers (the slot files `slots/0` .. `slots/29`), in a leaf of its
 * own: the settings clamp `maxParallel` to it on every command's path, which the slot queue
 * (slots.ts) is not on.
 */
export const MAX_PARALLEL_CEILING = 30;
