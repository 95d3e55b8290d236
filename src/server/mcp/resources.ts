/**
 * Resources: `pitroom://run/<id>` (a run's report, JSON) and `pitroom://run/<id>/patch` (the
 * exact diff of a run that changed files), as templates listing the latest runs. A client that
 * subscribes to one is sent `notifications/resources/updated` when the run changes state, and when
 * it changes after its end (applied, reverted, discarded, audited, reviewed: `run.changed`),
 * straight from the engine's feed; every client is sent `list_changed` when a run starts or ends (one
 * feed over every live run, which sees runs any process started: no polling).
 */
import type { Engine, FeedEvent, Subscription } from "../../engine/mod.ts";
import { UsageError } from "../../sys/errors.ts";
import { type McpServer, ResourceTemplate } from "./sdk.ts";

/** How many runs the lists show. */
export const LISTED_RUNS = 20;

const URI = /^pitroom:\/\/run\/([^/]+)(\/patch)?$/;

/** The events that change a run's state or record (and so its report resource). */
const STATE_EVENTS = new Set<FeedEvent["event"]["type"]>([
  "run.queued",
  "run.started",
  "run.fallback",
  "run.skipped",
  "run.parked",
  "run.finished",
  "run.lost",
  "run.changed",
]);

/** The resource of a run's report. */
export function runUri(id: string): string {
  return `pitroom://run/${id}`;
}

/** Options of `registerResources`. */
export interface ResourcesOptions {
  /** Follow the runs (`list_changed`, and `resources/updated` when subscribed). @default true */
  follow?: boolean;
  /** Serve `resources/subscribe` (the 2025-11-25 era; the 2026 one listens instead). @default true */
  subscribe?: boolean;
}

/** Registers the two templates; resolves to what ends their feeds. */
export function registerResources(
  server: McpServer,
  engine: Engine,
  options: ResourcesOptions = {},
): () => Promise<void> {
  server.registerResource(
    "run",
    new ResourceTemplate("pitroom://run/{id}", {
      list: async () => ({
        resources: (await engine.list({ recent: LISTED_RUNS })).reverse().map((r) => ({
          uri: runUri(r.id),
          name: r.id,
          title: `${r.state} · ${r.task.slice(0, 60)}`,
          mimeType: "application/json",
        })),
      }),
    }),
    {
      title: "Run report",
      description: "A run's report (pitroom show --json)",
      mimeType: "application/json",
    },
    async (uri: URL, vars: Record<string, string | string[]>) => {
      const { report } = await engine.found(String(vars.id));
      return {
        contents: [{ uri: uri.href, mimeType: "application/json", text: JSON.stringify(report) }],
      };
    },
  );
  server.registerResource(
    "patch",
    new ResourceTemplate("pitroom://run/{id}/patch", {
      list: async () => ({
        resources: (await engine.list({ recent: LISTED_RUNS })).reverse()
          .filter((r) => (r.changes?.files.length ?? 0) > 0)
          .map((r) => ({
            uri: `${runUri(r.id)}/patch`,
            name: `${r.id} patch`,
            title: `patch of ${r.id}: ${
              r.changes!.files.map((f) => f.path).join(", ").slice(0, 60)
            }`,
            mimeType: "text/x-diff",
          })),
      }),
    }),
    { title: "Run patch", description: "The exact diff a run made", mimeType: "text/x-diff" },
    async (uri: URL, vars: Record<string, string | string[]>) => {
      const patch = await engine.foundPatch(await engine.found(String(vars.id)));
      return { contents: [{ uri: uri.href, mimeType: "text/x-diff", text: patch }] };
    },
  );
  if (options.follow === false) return () => Promise.resolve();
  return follow(server, engine, options.subscribe ?? true);
}

function follow(server: McpServer, engine: Engine, subscribe: boolean): () => Promise<void> {
  const low = server.server;
  const subscribed = new Map<string, Subscription>();
  const notify = (send: () => Promise<void>) => {
    if (!server.isConnected()) return;
    send().catch(() => {
      // The session closed between the check and the send: nobody is left to tell.
    });
  };
  if (subscribe) serveSubscribe(low, engine, subscribed, notify);
  // Every live run, and each run started from now on by any process.
  let listening = false;
  const live = engine.subscribe({ live: true }, ({ event, replay }) => {
    if (!replay && event.type === "run.finished") notify(() => low.sendResourceListChanged());
  }, {
    onRun: () => {
      if (listening) notify(() => low.sendResourceListChanged());
    },
  });
  live.ready.then(() => (listening = true), () => undefined);
  return async () => {
    await live.close();
    await Promise.all([...subscribed.values()].map((s) => s.close()));
    subscribed.clear();
  };
}

/**
 * `resources/subscribe` and `unsubscribe`: `resources/updated` when a run changes state, or its
 * record after its end (the subscription outlives the run's end until it is unsubscribed).
 */
function serveSubscribe(
  low: McpServer["server"],
  engine: Engine,
  subscribed: Map<string, Subscription>,
  notify: (send: () => Promise<void>) => void,
): void {
  low.setRequestHandler("resources/subscribe", async ({ params }) => {
    const match = URI.exec(params.uri);
    if (match === null) {
      throw new UsageError(`Unknown resource "${params.uri}": expected pitroom://run/RUN`);
    }
    if (subscribed.has(params.uri)) return {};
    const { id } = await engine.get(match[1]!);
    const feed = engine.subscribe({ runs: [id] }, ({ event, replay }) => {
      if (replay || !STATE_EVENTS.has(event.type)) return;
      notify(() => low.sendResourceUpdated({ uri: params.uri }));
    });
    subscribed.set(params.uri, feed);
    await feed.ready;
    return {};
  });
  low.setRequestHandler("resources/unsubscribe", async ({ params }) => {
    const feed = subscribed.get(params.uri);
    subscribed.delete(params.uri);
    await feed?.close();
    return {};
  });
}
