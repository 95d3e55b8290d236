/**
 * The shapes the page reads: the dashboard's HTTP contract (src/server/dash/api_types.ts, whose
 * run shapes are the run record's own), imported type-only so nothing of the server enters the
 * bundle.
 */
export type {
  ApiEvent as PitroomEvent,
  ApiReport as RunReport,
  EventsResponse,
  HistoryHit,
  HistoryResponse,
  RunCard,
  RunResponse,
  StatsResponse as Stats,
  StatsRow,
  StreamMessages,
  SummaryResponse,
} from "../../../src/server/dash/api_types.ts";
