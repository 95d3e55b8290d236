/**
 * engine/eval/: `pitroom eval QUESTIONS.json`, bounded questions with exact truths scored
 * against several workers at once. questions.ts reads and checks the file and computes each
 * truth (literal, or `git grep` at the start); run.ts starts one crew of read runs per worker
 * in the background host and waits for them; answer.ts reads each reply's `ANSWER:` line and
 * score.ts scores it (definition 1 or 0.5 for the right file, count exact, files by F1).
 */
export {
  type EvalAnswer,
  type EvalEngine,
  type EvalOptions,
  type EvalResult,
  type EvalRow,
  median,
  runEval,
  type Scored,
} from "./run.ts";
export {
  type BoundQuestion,
  parseQuestions,
  QUESTION_KINDS,
  type QuestionKind,
  QuestionsFileSchema,
  questionsJsonSchema,
  type Truth,
} from "./questions.ts";
export { type Answered, evalTask, parseAnswered } from "./answer.ts";
export { f1, scoreAnswer } from "./score.ts";
