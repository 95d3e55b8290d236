/**
 * A run's panel: the task, the step timeline (following the live end while it works), the result,
 * the changed files as highlighted diffs, the details, and Stop or Discard (each asks once more).
 */
import { useEffect, useMemo, useState } from "preact/hooks";
import { act, fetchEvents, fetchPatch, fetchReport } from "../api/client.ts";
import type { PitroomEvent, RunReport } from "../api/types.ts";
import { type Card, isLive } from "../model/card.ts";
import { timelineOf } from "../model/timeline.ts";
import { store } from "../store.ts";
import { Details } from "./details.tsx";
import { DiffView } from "./diff_view.tsx";
import { Timeline } from "./timeline_view.tsx";

interface Loaded {
  report: RunReport;
  events: PitroomEvent[];
  patch: string;
}

/** The panel of run `id`; `card` is its live card when Live has one. */
export function Panel({ id, card }: { id: string; card: Card | null }) {
  const [data, setData] = useState<Loaded | null>(null);
  const [error, setError] = useState<string | null>(null);
  const live = card ? isLive(card) : data ? isLiveReport(data.report) : false;

  useEffect(() => {
    let gone = false;
    const pending: PitroomEvent[] = [];
    let loaded = false;
    const off = store.onRun(id, (ev) => {
      if (!loaded) pending.push(ev);
      else setData((d) => d && { ...d, events: [...d.events, ev] });
    });
    Promise.all([fetchReport(id), fetchEvents(id), fetchPatch(id)])
      .then(([report, events, patch]) => {
        if (gone) return;
        loaded = true;
        // Events that came while loading and that the loaded list does not have yet.
        const known = new Set(events.map((e) => JSON.stringify(e)));
        const extra = pending.filter((e) => !known.has(JSON.stringify(e)));
        setData({ report, events: [...events, ...extra], patch });
      })
      .catch((e: unknown) => !gone && setError(String(e)));
    return () => {
      gone = true;
      off();
    };
  }, [id]);

  // When the run ends, its report and patch are final: read them again.
  const ended = card?.endedAt ?? null;
  useEffect(() => {
    if (ended === null || data === null || data.report.endedAt !== undefined) return;
    let gone = false;
    Promise.all([fetchReport(id), fetchPatch(id)]).then(([report, patch]) => {
      if (!gone) setData((d) => d && { ...d, report, patch });
    }).catch((e: unknown) => !gone && setError(String(e)));
    return () => void (gone = true);
  }, [ended, data === null]);

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
  const pending = card?.pending ?? false;
  return (
    <div class="panel">
      <section>
        <h3>Task</h3>
        <pre class="task-text">{report.task}</pre>
      </section>
      <section>
        <h3>
          Steps <span class="muted">{steps.length}</span>
        </h3>
        <Timeline steps={steps} follow={live} />
      </section>
      {(report.answer || report.message) && (
        <section>
          <h3>Result</h3>
          {report.message && report.outcome !== "ok" && <p class="bad">{report.message}</p>}
          {report.answer && <pre class="answer">{report.answer}</pre>}
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
        <Details report={report} skipped={card?.skipped ?? []} />
      </section>
      <div class="actions">
        {live && <Confirm id={id} action="stop" label="Stop" />}
        {!live && pending && <Confirm id={id} action="discard" label="Discard" />}
        <a class="link" href={`#${id}`}>Link to this run</a>
      </div>
    </div>
  );
}

function isLiveReport(r: RunReport): boolean {
  return r.state === "queued" || r.state === "running";
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
