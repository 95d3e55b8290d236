/**
 * A `Sys` for tests (its state dir held, as the engine holds it): the real runner, the real clock or a fake one (tests/support/clock.ts) that
 * the test advances, a temp state dir, a chosen cwd and env, and output captured in memory.
 */
import { realSys } from "../../src/sys/real.ts";
import { type Clock, sleepOn } from "../../src/sys/mod.ts";
import { type HeldSys, holdState } from "../../src/store/state.ts";

/** A test Sys with its captured output. */
export interface TestSys extends HeldSys {
  stdoutText(): string;
  stderrText(): string;
}

/** Builds a test Sys. */
export function testSys(
  options: { stateDir: string; cwd?: string; env?: Record<string, string>; clock?: Clock },
): TestSys {
  const real = realSys();
  let out = "";
  let err = "";
  const env: Record<string, string> = {
    ...Deno.env.toObject(),
    // A long run of a test leaves no dashboard behind (a test of the live view sets it back).
    PITROOM_DASH: "0",
    ...options.env,
    PITROOM_STATE_DIR: options.stateDir,
  };
  const clock = options.clock ?? real.clock;
  const sys = holdState({
    ...real,
    clock,
    sleep: (ms, signal) => sleepOn(clock, ms, signal),
    env: { get: (n) => env[n], toObject: () => ({ ...env }) },
    stateDir: options.stateDir,
    configPath: env.PITROOM_CONFIG ?? `${options.stateDir}/no-config.json`,
    cwd: () => options.cwd ?? Deno.cwd(),
    out: {
      stdout: (t) => (out += t),
      stderr: (t) => (err += t),
      isTTY: false,
      errIsTTY: false,
      color: false,
    },
  });
  return { ...sys, stdoutText: () => out, stderrText: () => err };
}
