/**
 * Kilo's `run --format json` lines are OpenCode's, line for line (checked on kilo 7.7.7 against
 * the scripted model server: `step_start`, `text`, `tool_use`, `step_finish` with the same
 * `part.tokens` and `part.cost`, `error`), and so are its logged stderr errors: one parser.
 */
export {
  parseOpencodeLine as parseKiloLine,
  parseOpencodeStderr as parseKiloStderr,
} from "../opencode/parse.ts";
