/**
 * The JSON API (mounted at `/api`): reads through the engine (runs, one run's report, events and
 * patch, the history's search, stats and savings, the tiles' summary, the models) and the two
 * writes, Stop and Discard. Run ids are full ids only (`YYYYMMDD-HHMMSS-xxxx`): a bad one is
 * 400 `bad_id`, an unknown one 404 `no_run`. A run whose folder was cleaned is answered from the
 * history (`kept: true`).
 */
import { type Context, Hono } from "hono";
import type { Engine, KeptRun, OutcomeClass, RunReport, SearchFilter } from "../../engine/mod.ts";
import { isRunId, OUTCOME_CLASSES, stepEvents } from "../../engine/present.ts";
import { PitroomError, UsageError } from "../../sys/errors.ts";
import { parseDuration } from "../../sys/duration.ts";
import type {
  EventsResponse,
  HistoryResponse,
  ModelsResponse,
  RunResponse,
  RunsResponse,
  SavingsResponse,
  StatsResponse,
  SummaryResponse,
  WriteResponse,
} from "./api_types.ts";
import { cardOf } from "./card.ts";
import { apiError } from "./errors.ts";

/** Snippet marks of history hits: private-use characters no task contains. */
export const SNIPPET_MARKS: [string, string] = ["\uE000", "\uE001"];

const DAY_MS = 86_400_000;
/** How long one listing of the models is reused. */
const MODELS_FOR_MS = 60_000;

/** A run as the API finds it: on disk (reconciled), or kept by the history. */
type Found = { report: RunReport; kept: KeptRun | null };

/** The API routes. */
export function apiRoutes(engine: Engine, options: { recent: number; now(): number }): Hono {
  const api = new Hono();
  const { now } = options;
  /** `since`: a duration back from now (`7d`), or `all` (null). */
  const sinceParam = (value: string): number | null =>
    value === "all" ? null : now() - parseDuration(value, "since");

  /** The run of `:id`, or an error answer. */
  async function find(c: Context): Promise<Found | Response> {
    const id = c.req.param("id") ?? "";
    if (!isRunId(id)) {
      return apiError(c, 400, "bad_id", `"${id}" is not a run id (YYYYMMDD-HHMMSS-xxxx)`);
    }
    try {
      const found = await engine.found(id);
      if (found.report.id === id) return found;
    } catch (error) {
      if (!(error instanceof UsageError)) throw error;
    }
    return apiError(c, 404, "no_run", `No run "${id}"`);
  }

  api.get("/runs", async (c) => {
    const group = c.req.query("group");
    const recent = intParam(c.req.query("recent"), "recent", { min: 0, max: 500 }) ??
      options.recent;
    // The dashboard shows every repository's runs.
    const runs = group === undefined
      ? await engine.list({ recent, all: true })
      : await engine.list({ group, all: true });
    // Newest first: by creation time (ids of the same second do not sort by time).
    const cards = runs.map((run) => cardOf(run, now())).sort((a, b) =>
      b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1)
    );
    const body: RunsResponse = { now: now(), runs: cards };
    return c.json(body);
  });

  api.get("/runs/:id", async (c) => {
    const found = await find(c);
    if (found instanceof Response) return found;
    const body: RunResponse = {
      card: cardOf(found.report, now()),
      report: found.report,
      kept: found.kept !== null,
    };
    return c.json(body);
  });

  api.get("/runs/:id/events", async (c) => {
    const found = await find(c);
    if (found instanceof Response) return found;
    const since = intParam(c.req.query("since"), "since", { min: 0 }) ?? 0;
    const events = found.kept === null
      ? await engine.events(found.report.id, { since })
      : stepEvents(found.kept.steps).slice(since);
    const body: EventsResponse = {
      run: found.report.id,
      events,
      next: since + events.length,
      kept: found.kept !== null,
    };
    return c.json(body);
  });

  api.get("/runs/:id/patch", async (c) => {
    const found = await find(c);
    if (found instanceof Response) return found;
    let patch: string | null;
    if (found.kept !== null) patch = found.kept.patch;
    else {
      patch = await engine.patch(found.report.id).catch((error) => {
        if (error instanceof Error && "code" in error && error.code === "no_patch") return null;
        throw error;
      });
    }
    if (patch === null) {
      return apiError(c, 404, "no_patch", `Run "${found.report.id}" changed no files`);
    }
    c.header("Content-Type", "text/x-diff; charset=utf-8");
    return c.body(patch);
  });

  api.get("/history", async (c) => {
    const q = (name: string) => {
      const v = c.req.query(name)?.trim();
      return v === undefined || v === "" ? undefined : v;
    };
    const filter: SearchFilter = {};
    const text = q("q");
    if (text !== undefined) filter.text = text;
    for (const key of ["model", "worker", "group"] as const) {
      const v = q(key);
      if (v !== undefined) filter[key] = v;
    }
    const state = q("state");
    if (state !== undefined) Object.assign(filter, stateFilter(state));
    const since = sinceParam(q("since") ?? "all");
    if (since !== null) filter.since = since;
    const limit = intParam(q("limit"), "limit", { min: 1, max: 200 }) ?? 20;
    const offset = intParam(q("offset"), "offset", { min: 0 }) ?? 0;
    const hits = await engine.history.search(filter, {
      limit: limit + 1,
      offset,
      marks: SNIPPET_MARKS,
    });
    // Each hit with its card, so History names a run as Live does (a review as "Review of ...").
    const page = await Promise.all(
      hits.slice(0, limit).map(async (hit) => {
        const found = await engine.found(hit.id).catch((error) => {
          // A record gone or damaged since it was indexed: the hit stays, without a card.
          if (error instanceof PitroomError) return null;
          throw error;
        });
        return { ...hit, card: found === null ? null : cardOf(found.report, now()) };
      }),
    );
    const body: HistoryResponse = {
      hits: page,
      offset,
      limit,
      more: hits.length > limit,
    };
    return c.json(body);
  });

  api.get("/stats", async (c) => {
    const body: StatsResponse = await engine.history.stats({
      since: sinceParam(c.req.query("since") ?? "30d"),
    });
    return c.json(body);
  });

  api.get("/savings", async (c) => {
    const body: SavingsResponse = await engine.savings({
      since: sinceParam(c.req.query("since") ?? "7d"),
    });
    return c.json(body);
  });

  api.get("/summary", async (c) => {
    const at = now();
    const live = await engine.list({ recent: 0, all: true });
    const midnight = new Date(at);
    midnight.setHours(0, 0, 0, 0);
    const today = await engine.history.stats({ since: midnight.getTime() });
    const body: SummaryResponse = {
      now: at,
      running: live.filter((r) => r.state === "running").length,
      queued: live.filter((r) => r.state === "queued").length,
      finishedToday: today.total.runs,
      savedThisWeek: await engine.savedSince(at - 7 * DAY_MS),
    };
    return c.json(body);
  });

  // Listing models asks the worker CLIs (seconds): one answer serves a minute of requests.
  let models: { at: number; answer: Promise<ModelsResponse> } | null = null;
  api.get("/models", async (c) => {
    if (models === null || now() - models.at > MODELS_FOR_MS) {
      const answer = engine.models();
      models = { at: now(), answer };
      answer.catch(() => (models = null));
    }
    const body: ModelsResponse = await models.answer;
    return c.json(body);
  });

  api.post("/runs/:id/stop", async (c) => {
    const found = await find(c);
    if (found instanceof Response) return found;
    const { report } = found;
    if (found.kept !== null || (report.state !== "running" && report.state !== "queued")) {
      return apiError(
        c,
        409,
        "not_running",
        `Run "${report.id}" is ${report.state}: nothing to stop`,
      );
    }
    const [stopped] = await engine.stop({ runs: [report.id] });
    const body: WriteResponse = { card: cardOf(stopped ?? (await engine.get(report.id)), now()) };
    return c.json(body);
  });

  api.post("/runs/:id/discard", async (c) => {
    const found = await find(c);
    if (found instanceof Response) return found;
    const card = cardOf(found.report, now());
    if (found.kept !== null || !card.canDiscard) {
      return apiError(
        c,
        409,
        "not_discardable",
        `Run "${card.id}" is not a finished isolate run whose patch is neither applied nor discarded`,
      );
    }
    const body: WriteResponse = { card: cardOf(await engine.discard(card.id), now()) };
    return c.json(body);
  });

  return api;
}

/** An integer query parameter in bounds, or undefined when absent. */
function intParam(
  value: string | undefined,
  name: string,
  bounds: { min: number; max?: number },
): number | undefined {
  if (value === undefined || value === "") return undefined;
  const n = Number(value);
  if (!Number.isInteger(n) || n < bounds.min || (bounds.max !== undefined && n > bounds.max)) {
    const range = bounds.max === undefined
      ? `at least ${bounds.min}`
      : `${bounds.min}..${bounds.max}`;
    throw new UsageError(`Query parameter "${name}" must be a whole number ${range}: "${value}"`);
  }
  return n;
}

/** `state`: done, problem, lost, or an outcome class. */
function stateFilter(value: string): Pick<SearchFilter, "state" | "outcome"> {
  if (value === "done" || value === "problem" || value === "lost") return { state: value };
  if ((OUTCOME_CLASSES as readonly string[]).includes(value)) {
    return { outcome: value as OutcomeClass };
  }
  throw new UsageError(
    `Query parameter "state" must be done, problem, lost or an outcome: "${value}"`,
  );
}
