/**
 * A run's panel: its verdicts in full (a review's findings, an audit's disputed claims), the task
 * (a review's, audit's or plan task's prompt folded away: it is Pitroom's, not the user's), the
 * step timeline (following the live end while it works), the answer as Markdown, the changed
 * files as highlighted diffs, the details, and Stop or Discard (each asks once more).
 */
import { useEffect, useMemo, useState } from "preact/hooks";
import { act, fetchEvents, fetchPatch, fetchRun } from "../api/client.ts";
import type { PitroomEvent, RunCard, RunReport } from "../api/types.ts";
import { isLive } from "../model/card.ts";
import { mergeEvents } from "../model/events.ts";
import { timelineOf } from "../model/timeline.ts";
import { store } from "../store.ts";
import { Details } from "./details.tsx";
import { DiffView } from "./diff_view.tsx";
import { Markdown } from "./markdown_view.tsx";
import { Timeline } from "./timeline_view.tsx";
import { VerdictBlock } from "./verdict_view.tsx";

interface Loaded {
  report: RunReport;
  events: PitroomEvent[];
  patch: string;
}

/** The panel of run `id`, whose card is `card`. */
export function Panel({ id, card }: { id: string; card: RunCard }) {
  const [data, setData] = useState<Loaded | null>(null);
  const [error, setError] = useState<string | null>(null);
  /** How many times the run changed after its end while the panel was open. */
  const [changes, setChanges] = useState(0);
  const live = isLive(card);

  useEffect(() => {
    let gone = false;
    let loaded = false;
    const early: PitroomEvent[] = [];
    const off = store.onRun(id, (ev) => {
      // Not a step of the run: what became of it since (its report is read again, below).
      if (ev.type === "run.changed") return setChanges((n) => n + 1);
      if (!loaded) early.push(ev);
      else setData((d) => d && { ...d, events: [...d.events, ev] });
    });
    const patch = card.changedFiles > 0 ? fetchPatch(id) : Promise.resolve("");
    Promise.all([fetchRun(id), fetchEvents(id), patch])
      .then(([run, events, patch]) => {
        if (gone) return;
        loaded = true;
        setData({ report: run.report, events: mergeEvents(events, early), patch });
      })
      .catch((e: unknown) => !gone && setError(String(e)));
    return () => {
      gone = true;
      off();
    };
  }, [id]);

  // When the run ends, its report and patch are final: read them again; and when it changes
  // after its end (applied, reverted, discarded, audited, reviewed).
  const ended = card.endedAt;
  const stale = data !== null && data.report.endedAt === undefined && ended !== null;
  useEffect(() => {
    if (!stale && changes === 0) return;
    let gone = false;
    const patch = card.changedFiles > 0 ? fetchPatch(id) : Promise.resolve("");
    Promise.all([fetchRun(id), patch]).then(([run, patch]) => {
      if (!gone) setData((d) => d && { ...d, report: run.report, patch });
    }).catch((e: unknown) => !gone && setError(String(e)));
    return () => void (gone = true);
  }, [stale, changes, id]);

  const steps = useMemo(() => timelineOf(data?.events ?? []), [data?.events]);
  if (error) {
    return (
      <div class="panel">
        <p class="bad">{error}</p>
      </div>
    );
  }
  if (data === null) {
    return (
      <div class="panel">
        <p class="muted">Loading…</p>
      </div>
    );
  }
  const { report } = data;
  const prompt = card.kind !== "run";
  return (
    <div class="panel">
      {card.verdicts.length > 0 && (
        <section class="verdicts-full">
          <h3>Verdict</h3>
          {card.verdicts.map((v, i) => <VerdictBlock key={i} verdict={v} self={id} />)}
        </section>
      )}
      <section>
        <h3>Task</h3>
        {prompt
          ? (
            <details class="prompt">
              <summary>
                {card.title} <span class="muted">(the prompt Pitroom gave the worker)</span>
              </summary>
              <pre class="task-text">{report.task}</pre>
            </details>
          )
          : <pre class="task-text">{report.task}</pre>}
      </section>
      <section>
        <h3>
          Steps <span class="muted">{steps.length}</span>
        </h3>
        <Timeline steps={steps} follow={live} />
      </section>
      {(report.answer || (report.message && report.outcome !== "ok")) && (
        <section class="result">
          <h3>Result</h3>
          {report.message && report.outcome !== "ok" && <p class="bad">{report.message}</p>}
          {report.answer && <Markdown text={report.answer} class="answer" />}
        </section>
      )}
      {data.patch !== "" && (
        <section>
          <h3>Changed files</h3>
          <DiffView patch={data.patch} />
        </section>
      )}
      <section>
        <h3>Details</h3>
        <Details report={report} card={card} now={Date.now()} />
      </section>
      <div class="actions">
        {card.canStop && <Confirm id={id} action="stop" label="Stop" />}
        {card.canDiscard && <Confirm id={id} action="discard" label="Discard" />}
        <a class="link" href={`#${id}`}>Link to this run</a>
      </div>
    </div>
  );
}

/** A write button that asks once more. */
function Confirm({ id, action, label }: { id: string; action: "stop" | "discard"; label: string }) {
  const [step, setStep] = useState<"idle" | "ask" | "busy" | "done">("idle");
  const [error, setError] = useState<string | null>(null);
  if (step === "ask") {
    return (
      <span class="confirm" role="group">
        <span>{action === "stop" ? "Stop this run?" : "Discard this run's copy?"}</span>
        <button
          type="button"
          class="danger"
          data-confirm={action}
          onClick={() => {
            setStep("busy");
            act(id, action).then(() => setStep("done")).catch((e: unknown) => {
              setError(String(e));
              setStep("idle");
            });
          }}
        >
          Yes, {label.toLowerCase()}
        </button>
        <button type="button" onClick={() => setStep("idle")}>Cancel</button>
      </span>
    );
  }
  return (
    <>
      <button
        type="button"
        class="danger"
        data-action={action}
        disabled={step === "busy" || step === "done"}
        onClick={() => setStep("ask")}
      >
        {step === "done" ? `${label} sent` : label}
      </button>
      {error && <span class="bad">{error}</span>}
    </>
  );
}
