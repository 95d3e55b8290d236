/**
 * Prompts: how to use Pitroom for a job (research, implement, review, crew), each a short text
 * shipped with the binary, with the job as its one argument. The skills add theirs here.
 */
import { z } from "zod/v4";
import type { McpServer, StandardSchemaWithJSON } from "./sdk.ts";
import research from "./prompts/research.md" with { type: "text" };
import implement from "./prompts/implement.md" with { type: "text" };
import review from "./prompts/review.md" with { type: "text" };
import crew from "./prompts/crew.md" with { type: "text" };

/** One prompt: its name, what it is for, its text (the job is appended). */
export interface PitroomPrompt {
  name: string;
  description: string;
  text: string;
}

/** The prompts the server offers. */
export const PROMPTS: readonly PitroomPrompt[] = [
  {
    name: "research",
    description: "Answer a question about the code with workers reading",
    text: research,
  },
  {
    name: "implement",
    description: "Make a change with a worker editing in a private copy",
    text: implement,
  },
  { name: "review", description: "Get a worker's review of a change, then weigh it", text: review },
  {
    name: "crew",
    description: "Split work into independent tasks for several workers at once",
    text: crew,
  },
];

/** The one argument of every prompt, as the SDK takes it (a schema that gives its JSON Schema). */
const ARGS = (() => {
  const schema = z.object({
    job: z.string().optional().describe("the question, change or work"),
  });
  const json = (io: "input" | "output") => () =>
    z.toJSONSchema(schema, { target: "draft-7", io }) as Record<string, unknown>;
  return {
    "~standard": {
      ...schema["~standard"],
      jsonSchema: { input: json("input"), output: json("output") },
    },
  } as unknown as StandardSchemaWithJSON<{ job?: string }>;
})();

/** Registers every prompt. */
export function registerPrompts(
  server: McpServer,
  prompts: readonly PitroomPrompt[] = PROMPTS,
): void {
  for (const prompt of prompts) {
    server.registerPrompt(prompt.name, {
      title: prompt.name,
      description: prompt.description,
      argsSchema: ARGS,
    }, ({ job }: { job?: string | undefined }) => ({
      messages: [{
        role: "user" as const,
        content: {
          type: "text" as const,
          text: job ? `${prompt.text.trimEnd()}\n\n${job}` : prompt.text,
        },
      }],
    }));
  }
}
