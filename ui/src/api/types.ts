/**
 * The shapes the page reads: the dashboard's HTTP contract (src/server/dash/api_types.ts, whose
 * run shapes are the run record's own), imported type-only so nothing of the server enters the
 * bundle.
 */
export type {
  ApiBadge,
  ApiDisposition,
  ApiEvent as PitroomEvent,
  ApiPoint,
  ApiReport as RunReport,
  ApiVerdict,
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
