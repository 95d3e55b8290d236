/**
 * `"network": "isolated"`: the loopback ports a worker's configuration names, the argv of both
 * ways (pasta attached to bubblewrap's namespace as root, pasta's own namespaces as a user), and
 * the real thing: run in a network namespace of its own with a routable interface (a veth pair), since
 * pasta refuses to work without one, as in the CI's loopback-only `unshare -n`. There a sandboxed
 * command and a real codex worker (or every CLI `PITROOM_NETWORK_WORKERS` names) reach the
 * forwarded port and not the host's other loopback services, as root and as an unprivileged user; on the host's network (the control) they do;
 * and when the process that started a sandbox is killed, the worker and pasta end with it.
 */
import assert from "node:assert/strict";
import {
  loopbackPorts,
  networkArgv,
  networkBwrapOptions,
} from "../../src/confine/sandbox/network.ts";
import { findOnPath } from "../../src/workers/_detect.ts";
import { pitroomArgv } from "../support/pitroom.ts";

Deno.test("loopbackPorts() finds the loopback ports named as a base URL or host, and Ollama's", () => {
  assert.deepEqual(
    loopbackPorts([
      "ANTHROPIC_BASE_URL=http://127.0.0.1:4100",
      '{"provider":{"x":{"options":{"baseURL":"http://localhost:4200/v1"}}}}',
      'base_url = "http://[::1]:4300/v1"',
      "OLLAMA_HOST=http://127.0.0.1",
      "endpoint: https://127.0.0.2:4400",
      // Not a base URL: a link in a README, an MCP server, a remote host.
      "see http://127.0.0.1:4500/docs",
      'url = "http://127.0.0.1:4600/mcp"',
      "OPENAI_BASE_URL=https://api.openai.com/v1",
    ]),
    [80, 4100, 4200, 4300, 4400, 11434],
  );
});

Deno.test("networkArgv(): a user's runs start in pasta's namespaces; root's attach pasta to one made first", () => {
  const wrap = {
    dir: "/p/.net",
    ports: [11434, 4100],
    pasta: "/usr/bin/pasta",
    setpriv: "/usr/bin/setpriv",
  };
  const user = networkArgv(["bwrap", "--unshare-user", "--", "w"], { ...wrap, asRoot: false });
  assert.deepEqual(user.slice(0, 5), [
    "/usr/bin/setpriv",
    "--pdeathsig",
    "KILL",
    "--",
    "/usr/bin/pasta",
  ]);
  assert.deepEqual(user.slice(user.indexOf("-T"), user.indexOf("-T") + 3), [
    "-T",
    "11434,4100",
    "--",
  ]);
  assert.ok(user.includes("--no-map-gw") && user.includes("none"), "no inbound ports, no gateway");
  const root = networkArgv(["bwrap", "--", "w"], { ...wrap, setpriv: null, asRoot: true });
  assert.equal(root[0], "sh");
  assert.deepEqual(root.slice(3, 8), [
    "pitroom-network",
    "/p/.net",
    "/usr/bin/pasta",
    root[6],
    "0",
  ]);
  assert.match(root[6]!, /-T 11434,4100$/);
  assert.deepEqual(root.slice(8), ["", "bwrap", "--", "w"]);
  assert.deepEqual(networkBwrapOptions({ asRoot: true, uid: 0, gid: 0 }), []);
  assert.deepEqual(networkBwrapOptions({ asRoot: false, uid: 1000, gid: 100 }), [
    "--unshare-user",
    "--uid",
    "1000",
    "--gid",
    "100",
  ]);
});

const env = Deno.env.toObject();
/**
 * The real CLIs run with an isolated network: codex (the quickest) unless
 * `PITROOM_NETWORK_WORKERS` names others (`opencode,codex,claude,gemini` for all four).
 */
const WORKERS = (env.PITROOM_NETWORK_WORKERS ?? "codex").split(",").filter((w) => w !== "");
const canTry = Deno.uid() === 0 && ["unshare", "ip", "pasta", "bwrap", "setpriv", "curl"].every(
  (p) => findOnPath(p, env) !== null,
);

Deno.test({
  name: "an isolated worker reaches its forwarded port, not the host's other loopback services",
  ignore: !canTry,
  fn: async () => {
    const [deno, ...args] = pitroomArgv();
    // Everything before the program's path: deno, `run` and its flags.
    const inner = [deno!, ...args.slice(0, -1)];
    const script = new URL("./_network_inner.ts", import.meta.url).pathname;
    // A namespace of the test's own, with an interface (a veth pair) and a default route for pasta.
    const setup = [
      "ip link set lo up",
      "ip link add pitroom0 type veth peer name pitroom1",
      "ip link set pitroom1 up",
      "ip addr add 10.77.0.2/24 dev pitroom0",
      "ip link set pitroom0 up",
      "ip route add default via 10.77.0.1",
      'exec "$@"',
    ].join(" && ");
    const out = await new Deno.Command("unshare", {
      args: ["-n", "sh", "-c", setup, "sh", ...inner, script, WORKERS.join(",")],
      stdin: "null",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    const err = new TextDecoder().decode(out.stderr);
    assert.equal(out.code, 0, err);
    const r = JSON.parse(text.trim().split("\n").at(-1)!);
    for (const side of ["root", "user"]) {
      const seen = r[side].text as string;
      assert.match(seen, /forwarded-reached/, `${side}: ${seen}`);
      assert.match(seen, new RegExp(`unreachable ${r.ports.host}`), `${side}: ${seen}`);
      assert.doesNotMatch(seen, /host-reached/, `${side}: ${seen}`);
      assert.match(seen, /pitroom0\s+UNKNOWN\s+10\.77\.0\.2/, `${side}: the namespace's interface`);
    }
    assert.ok(r.kill.running > 0, "the sleeping worker ran");
    assert.deepEqual(r.kill.left, [], "a killed Pitroom leaves no worker and no pasta");
    const control = r[`${WORKERS[0]}-host`];
    assert.equal(control.outcome, "ok", JSON.stringify(control));
    assert.equal(control.hostHits, 1, "the control: on the host's network the fetch lands");
    for (const worker of WORKERS) {
      assert.equal(r[worker].outcome, "ok", `${worker}: ${JSON.stringify(r[worker])}`);
      assert.equal(r[worker].hostHits, 0, `${worker}: ${JSON.stringify(r[worker])}`);
      assert.ok(
        r[worker].notes.some((n: string) => /network of its own: .*port/.test(n)),
        `${worker}: ${JSON.stringify(r[worker].notes)}`,
      );
    }
  },
});
