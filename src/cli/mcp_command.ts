/** `pitroom mcp`, declared beside its code (mcp.ts). */
import { defineCommand, flag } from "./command.ts";

export const MCP_FLAGS = {
  dir: flag.string({
    short: "d",
    value: "DIR",
    describe: "directory runs work in, and whose runs `last` means (default: current)",
  }),
  http: flag.boolean({ describe: "serve Streamable HTTP on 127.0.0.1 instead" }),
  port: flag.number({
    value: "N",
    min: 0,
    integer: true,
    describe: "with --http: the port (default 7117; 0 picks a free one)",
  }),
};

export const MCP = defineCommand({
  name: "mcp",
  summary: "serve Pitroom as MCP tools on stdio, or over HTTP on 127.0.0.1 (bearer token)",
  description: [
    "On stdio (the default) an MCP client starts `pitroom mcp` itself: register it once, e.g.",
    "`claude mcp add pitroom -- pitroom mcp`. With --http it serves Streamable HTTP at",
    "http://127.0.0.1:PORT/mcp for clients that connect to a URL: every request needs",
    "`Authorization: Bearer TOKEN` (the token is made on first start and kept in",
    "<state dir>/mcp-token, or set PITROOM_MCP_TOKEN), and a Host or Origin that is not local is",
    "refused. It prints the directory it works in and the line to register it. Runs work in DIR",
    "unless a call names another. Ending a session or the server ends the waiting, not the runs.",
    "Tools: pitroom_run, pitroom_wait, pitroom_show, pitroom_info, pitroom_apply, pitroom_discard,",
    "pitroom_revert, pitroom_stop. Resources: pitroom://run/RUN and pitroom://run/RUN/patch",
    "(subscribe for updates). Prompts: research, implement, review, crew.",
  ].join("\n"),
  flags: MCP_FLAGS,
  args: [],
  examples: [
    "claude mcp add pitroom -- pitroom mcp",
    "pitroom mcp -d ~/src/app",
    "pitroom mcp --http --port 7117",
  ],
  run: () => import("./mcp.ts").then((m) => m.mcpCommand),
});
