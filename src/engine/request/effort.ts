/**
 * Checking `--effort` against what a worker's model accepts, before a run starts.
 */
import { UsageError } from "../../sys/errors.ts";
import type { ModelInfo } from "../../workers/types.ts";

/** Options of `checkEffort`. */
export interface EffortOptions {
  /** The worker's name, for the message. */
  worker?: string;
}

/**
 * Returns the effort level (trimmed, lowercase) when `model` accepts it; throws a UsageError when
 * the model has no effort levels or the level is not one it accepts. A model the list does not
 * know (or the worker's default model, `undefined`) is checked against the levels any listed
 * model accepts; an empty list cannot be checked and lets the level through.
 */
export function checkEffort(
  models: readonly ModelInfo[],
  model: string | undefined,
  effort: string,
  options: EffortOptions = {},
): string {
  const level = effort.trim().toLowerCase();
  const of = options.worker === undefined ? "" : ` of ${options.worker}`;
  if (level === "") {
    throw new UsageError("Effort level is empty", { hint: "use `effort: low`, medium or high" });
  }
  const known = model === undefined ? undefined : models.find((m) => m.id === model);
  if (known !== undefined) {
    if (known.efforts.length === 0) {
      throw new UsageError(`Model "${known.id}"${of} has no effort levels`, {
        hint: "leave out `effort`",
      });
    }
    if (!known.efforts.includes(level)) {
      throw new UsageError(
        `Model "${known.id}"${of} does not accept effort "${effort}": it accepts ${
          known.efforts.join(", ")
        }`,
        { hint: `use \`effort: ${known.defaultEffort ?? known.efforts[0]}\`` },
      );
    }
    return level;
  }
  if (models.length === 0) return level;
  const any = [...new Set(models.flatMap((m) => m.efforts))];
  const which = model === undefined ? `The default model${of}` : `Model "${model}"${of}`;
  if (any.length === 0) {
    throw new UsageError(`${which} has no effort levels`, { hint: "leave out `effort`" });
  }
  if (!any.includes(level)) {
    throw new UsageError(
      `${which} does not accept effort "${effort}": its models accept ${any.join(", ")}`,
      { hint: "see the levels per model with `pitroom models`" },
    );
  }
  return level;
}
