/**
 * The four templates of plan execution, shipped in the binary: the implementer brief and the
 * task, fix-round and whole-branch reviewer prompts. They are the same files the
 * pitroom-driven-development skill ships (skills/pitroom-driven-development/), text-imported.
 * `{{name}}` marks a value; `fill` puts the values in. The reply's shape stands in a ```text block
 * (`deno fmt` reflows Markdown prose and would join its lines; tests/engine/templates_test.ts).
 */
import implementer from "../../../skills/pitroom-driven-development/implementer.md" with {
  type: "text",
};
import taskReviewer from "../../../skills/pitroom-driven-development/task-reviewer.md" with {
  type: "text",
};
import fixReviewer from "../../../skills/pitroom-driven-development/fix-reviewer.md" with {
  type: "text",
};
import branchReviewer from "../../../skills/pitroom-driven-development/branch-reviewer.md" with {
  type: "text",
};

/** The templates by name, as `pitroom help plan` lists them. */
export const TEMPLATES = {
  implementer: { file: "implementer.md", text: implementer, use: "brief of `run --plan`" },
  "task-reviewer": { file: "task-reviewer.md", text: taskReviewer, use: "`review RUN`" },
  "fix-reviewer": {
    file: "fix-reviewer.md",
    text: fixReviewer,
    use: "`review RUN` of a fix round",
  },
  "branch-reviewer": {
    file: "branch-reviewer.md",
    text: branchReviewer,
    use: "`review --range`",
  },
} as const;

/** A template's name. */
export type TemplateName = keyof typeof TEMPLATES;

/** The folder of the skill that ships the templates. */
export const TEMPLATE_DIR = "skills/pitroom-driven-development";

/** A template with its `{{name}}` marks replaced (an empty value reads "(none)"). */
export function fill(name: TemplateName, values: Readonly<Record<string, string>>): string {
  return TEMPLATES[name].text.replace(/\{\{(\w+)\}\}/g, (mark, key: string) => {
    if (!(key in values)) return mark;
    const value = values[key]!.trim();
    return value === "" ? "(none)" : value;
  });
}
