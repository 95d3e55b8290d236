/**
 * Plan notes (`pitroom plan note PLAN "Task N: ..."`): timestamped lines kept outside the
 * repository, in the state dir under a key of the plan file's real path
 * (`plans/<key>/notes.jsonl`, one JSON object a line, appended). A note that starts with
 * `Task N:` belongs to task N; every note with `Ruling:` is a ruling.
 */
import type { HeldSys } from "../../store/state.ts";
import { writeJsonAtomic } from "../../sys/atomic.ts";
import { UsageError } from "../../sys/errors.ts";
import { join } from "../../sys/path.ts";
import type { LoadedPlan } from "./load.ts";

/** One plan note. */
export interface PlanNote {
  /** When it was noted (ms since the epoch). */
  at: number;
  text: string;
  /** The task it names (`Task N:` at its start). */
  step?: number;
  /** True when it records a ruling (`Ruling:` in it). */
  ruling: boolean;
}

const TASK_PREFIX = /^\s*task\s+(\d+)\s*:/i;

/** The folder of a plan's notes: a key of its real path. */
export async function notesDir(sys: HeldSys, planPath: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(planPath));
  const key = [...new Uint8Array(digest).slice(0, 8)]
    .map((b) => b.toString(16).padStart(2, "0")).join("");
  return join(sys.state.paths.plans, key);
}

function noteOf(at: number, text: string): PlanNote {
  const m = TASK_PREFIX.exec(text);
  return {
    at,
    text,
    ...(m ? { step: Number(m[1]) } : {}),
    ruling: /\bruling\s*:/i.test(text),
  };
}

/** Appends a note; a note naming a task the plan does not have is a usage error. */
export async function addNote(sys: HeldSys, loaded: LoadedPlan, text: string): Promise<PlanNote> {
  const clean = text.replace(/\s*\n\s*/g, " ").trim();
  if (clean === "") {
    throw new UsageError("No note given", {
      hint: `pitroom plan note ${loaded.path} "Task 1: complete"`,
    });
  }
  const note = noteOf(sys.clock.now(), clean);
  if (note.step !== undefined && !loaded.plan.tasks.some((t) => t.step === note.step)) {
    const steps = loaded.plan.tasks.map((t) => t.step).join(", ");
    throw new UsageError(`The plan has no Task ${note.step}: it has ${steps}`);
  }
  const dir = await notesDir(sys, loaded.path);
  await Deno.mkdir(dir, { recursive: true, mode: 0o700 });
  await writeJsonAtomic(join(dir, "plan.json"), { schemaVersion: 1, path: loaded.path });
  const file = await Deno.open(join(dir, "notes.jsonl"), {
    append: true,
    create: true,
    mode: 0o600,
  });
  try {
    const bytes = new TextEncoder().encode(JSON.stringify({ at: note.at, text: note.text }) + "\n");
    let written = 0;
    while (written < bytes.length) written += await file.write(bytes.subarray(written));
  } finally {
    file.close();
  }
  return note;
}

/** A plan's notes, oldest first (a line that is not a note is skipped). */
export async function readNotes(sys: HeldSys, planPath: string): Promise<PlanNote[]> {
  let text: string;
  try {
    text = await Deno.readTextFile(join(await notesDir(sys, planPath), "notes.jsonl"));
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return [];
    throw error;
  }
  const notes: PlanNote[] = [];
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      if (error instanceof SyntaxError) continue;
      throw error;
    }
    const v = value as { at?: unknown; text?: unknown };
    if (typeof v.at === "number" && typeof v.text === "string") notes.push(noteOf(v.at, v.text));
  }
  return notes;
}
