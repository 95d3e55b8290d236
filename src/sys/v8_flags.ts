/**
 * The V8 flags every Pitroom process runs with: `deno compile` bakes them into the binary
 * (scripts/compile.ts), and a Pitroom started by `deno run` passes them on to the processes it
 * starts of itself (real.ts `selfCommand`), as the tests' and benchmarks' starts do
 * (tests/support/pitroom.ts).
 *
 * `--no-lazy` compiles every function of a module when the module is compiled, so the code cache
 * holds them all: a run calls most of the functions of the chunks it loads, each of which V8
 * would otherwise compile from source at its first call, in every process. A read run on the
 * 31,000-file tree took 14-57 ms less (benchmarks/phases/README.md, stop 43). V8 refuses a code
 * cache made under other compiler flags, so every process that loads the same modules must run
 * with the same flags, or each recompiles what the other cached.
 */
export const V8_FLAGS: readonly string[] = ["--no-lazy"];

/** `V8_FLAGS` as the one argument `deno run` and `deno compile` take them in. */
export const V8_FLAGS_ARG = `--v8-flags=${V8_FLAGS.join(",")}`;
