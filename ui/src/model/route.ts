/** The page's addresses (pure): `#live`, `#history`, `#stats`, and `#<run-id>` opens that run. */

/** A tab of the page. */
export type Tab = "live" | "history" | "stats";

/** Where the address points. */
export interface Route {
  tab: Tab;
  run: string | null;
}

const RUN_ID = /^\d{8}-\d{6}-[0-9a-f]{4}$/;

/** The route of a location hash. */
export function parseHash(hash: string): Route {
  const h = decodeURIComponent(hash.replace(/^#/, ""));
  if (h === "history" || h === "stats" || h === "live") return { tab: h, run: null };
  const [tab, run] = h.split("/", 2);
  if ((tab === "history" || tab === "live") && run && RUN_ID.test(run)) return { tab, run };
  if (RUN_ID.test(h)) return { tab: "live", run: h };
  return { tab: "live", run: null };
}

/** The hash of a route: a run on Live is just its id. */
export function hashOf(route: Route): string {
  if (route.run === null) return `#${route.tab}`;
  return route.tab === "live" ? `#${route.run}` : `#${route.tab}/${route.run}`;
}
