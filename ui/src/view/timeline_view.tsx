/** A run's steps with their times; while the run works it follows the live end. */
import { useEffect, useRef } from "preact/hooks";
import { clock } from "../model/format.ts";
import type { TimelineStep } from "../model/timeline.ts";

const ICON: Record<string, string> = {
  read: "read",
  search: "search",
  list: "list",
  edit: "edit",
  write: "write",
  shell: "run",
  web: "web",
  task: "task",
  other: "tool",
  text: "says",
  error: "error",
  run: "run",
};

/** The timeline; `follow` keeps the newest step in view while the run works. */
export function Timeline({ steps, follow }: { steps: TimelineStep[]; follow: boolean }) {
  const list = useRef<HTMLOListElement>(null);
  const pinned = useRef(true);
  useEffect(() => {
    const el = list.current;
    if (el && follow && pinned.current) el.scrollTop = el.scrollHeight;
  }, [steps.length, follow]);
  if (steps.length === 0) return <p class="muted">No steps yet.</p>;
  return (
    <ol
      class="timeline"
      ref={list}
      onScroll={(e) => {
        const el = e.currentTarget;
        pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24;
      }}
    >
      {steps.map((s, i) => (
        <li key={i} class={`step k-${s.kind} st-${s.status}`}>
          <time>{clock(s.time)}</time>
          <span class="kind">{ICON[s.kind] ?? s.kind}</span>
          <span class="label" title={s.label}>{s.label}</span>
          {s.status === "denied" && <span class="badge bad">denied</span>}
          {s.status === "error" && s.kind !== "run" && <span class="badge bad">failed</span>}
          {s.detail && <span class="detail">{s.detail}</span>}
        </li>
      ))}
    </ol>
  );
}
