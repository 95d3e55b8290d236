/** `pitroom status` and `pitroom ls`, declared beside their code (status.ts). */
import { ALL_FLAG, defineCommand, flag, JSON_FLAG, RUN_SELECTION, SCOPE_FLAG } from "./command.ts";

export const STATUS_FLAGS = {
  group: flag.string({ short: "g", value: "NAME", describe: "only this group" }),
  json: JSON_FLAG,
  dir: SCOPE_FLAG,
  all: ALL_FLAG,
};

export const STATUS = defineCommand({
  name: "status",
  summary: "show runs and their state",
  flags: STATUS_FLAGS,
  args: [{ ...RUN_SELECTION, variadic: true }],
  examples: ["pitroom status", "pitroom status 20261130-101500-3f2a --json"],
  run: () => import("./status.ts").then((m) => m.statusCommand),
});

export const LS_FLAGS = {
  running: flag.boolean({ describe: "only queued and running runs" }),
  group: flag.string({ short: "g", value: "NAME", describe: "only this group" }),
  limit: flag.number({
    short: "n",
    value: "N",
    default: 20,
    min: 1,
    integer: true,
    describe: "at most this many",
  }),
  json: JSON_FLAG,
  dir: SCOPE_FLAG,
  all: ALL_FLAG,
};

export const LS = defineCommand({
  name: "ls",
  summary: "list runs, newest first",
  flags: LS_FLAGS,
  args: [],
  examples: ["pitroom ls", "pitroom ls --running --json"],
  run: () => import("./status.ts").then((m) => m.lsCommand),
});
