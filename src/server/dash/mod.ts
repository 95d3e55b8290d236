/**
 * server/dash/: the live dashboard's server (README.md here tells the request flow, the routes,
 * the stream and the guards). `createDashboardApp` is the app that does not listen;
 * `ensureDashboard` starts one detached (or finds the live one) and resolves with its address,
 * for the MCP server; `pitroom dash` (src/cli/dash.ts) serves, starts and stops it. A long run
 * reaches only the light side, which loads no server: record.ts (is one live, its address) and
 * launch.ts (start one without waiting).
 */
export { type Activity, createDashboardApp, type DashboardOptions } from "./app.ts";
export {
  DEFAULT_IDLE_MS,
  ensureDashboard,
  type EnsureOptions,
  runDashboard,
  startDetached,
  stopDashboard,
} from "./detach.ts";
export { liveDashboard, liveLink } from "./record.ts";
export { DEFAULT_PORT } from "./serve.ts";
export type * from "./api_types.ts";
