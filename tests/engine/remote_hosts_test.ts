/**
 * The pieces of runs on hosts that need no host: the config's host entries (a bad one is one line
 * naming the key), the shell lines sent over SSH, the wire's frames, and what comes back written
 * into a copy only as plain paths inside it (never `..`, `.git` or through a link).
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { hostConfig, serveCommand, sshArgv } from "../../src/engine/core/hosts.ts";
import { FrameReader, FrameWriter } from "../../src/engine/remote/frames.ts";
import { badReturnedPath, returnedOf, writeReturned } from "../../src/engine/remote/back.ts";
import { exampleManifest, podManifest, podName } from "../../src/engine/remote/manifest.ts";
import { jobManifest } from "../../src/engine/remote/cluster.ts";
import { dockerRun, engineReason } from "../../src/engine/remote/engines.ts";
import { type SeccompProfile, seccompText } from "../../src/engine/remote/seccomp.ts";
import { tempDir } from "../support/temp.ts";

Deno.test("a host entry is checked: each bad key is refused in one line naming it", () => {
  const ok = hostConfig({ box: { ssh: "me@box", port: 2222, env: { PATH: "/x" } } }, "box");
  assert.equal(ok.kind, "ssh");
  const bad = (entry: unknown, name = "box") => {
    try {
      hostConfig({ box: entry }, name);
    } catch (error) {
      return (error as Error).message;
    }
    return "accepted";
  };
  assert.match(bad({ ssh: "-oProxyCommand=touch /tmp/x" }), /"ssh" should be a destination/);
  assert.match(bad({ ssh: "me@box; rm -rf ~" }), /"ssh" should be a destination/);
  assert.match(bad({ ssh: "me@box", port: 70000 }), /"port" should be a port number/);
  assert.match(bad({ ssh: "me@box", options: ["-oProxyCommand=x"] }), /"options" should be/);
  assert.match(bad({ ssh: "me@box", env: { "A B": "x" } }), /"env.A B"/);
  assert.match(bad({ ssh: "me@box", container: { image: "x" } }), /not both/);
  assert.match(bad({ container: { image: "a b" } }), /"container.image"/);
  assert.match(bad("me@box"), /should be an object/);
  assert.match(bad({ ssh: "me@box" }, "nope"), /Unknown host "nope"/);
  assert.match(bad({ ssh: "me@box" }, "../x"), /Bad host name/);
});

Deno.test("the SSH command quotes every value and keeps the host's folder for its state", () => {
  const host = hostConfig({
    box: { ssh: "me@box", dir: "~/work dir", env: { A: "it's", PITROOM_STATE_DIR: "/elsewhere" } },
  }, "box");
  assert.equal(host.kind, "ssh");
  if (host.kind !== "ssh") return;
  const line = serveCommand(host);
  assert.equal(
    line,
    `mkdir -p ~/'work dir' && cd ~/'work dir' && exec env A='it'\\''s' PITROOM_STATE_DIR="$PWD/state" pitroom host serve`,
  );
  const argv = sshArgv(host, line);
  assert.deepEqual(argv.slice(-3), ["--", "me@box", line]);
  assert.ok(argv.includes("BatchMode=yes"));
});

Deno.test("frames carry messages and exact bytes, and a cut-off stream is an error", async () => {
  const pipe = new TransformStream<Uint8Array, Uint8Array>();
  const writer = new FrameWriter(pipe.writable);
  const reader = new FrameReader(pipe.readable);
  const bytes = new Uint8Array([0, 10, 255, 10, 13]);
  const sent = (async () => {
    await writer.send({ t: "a", x: "line\nbreak" });
    await writer.send({ t: "file", p: "b" }, bytes);
    await writer.send({ t: "done" });
    await writer.close();
  })();
  assert.deepEqual((await reader.next())?.msg, { t: "a", x: "line\nbreak" });
  const file = await reader.next();
  assert.deepEqual(file?.bytes, bytes);
  assert.equal((await reader.next())?.msg.t, "done");
  assert.equal(await reader.next(), null);
  await sent;
  const cut = new ReadableStream<Uint8Array>({
    start(c) {
      c.enqueue(new TextEncoder().encode('{"t":"file","n":10}\nabc'));
      c.close();
    },
  });
  await assert.rejects(new FrameReader(cut).next(), /ended inside a message's bytes/);
});

Deno.test("returned files: only plain paths inside the copy, never through a link", async () => {
  for (const path of ["../x", "/etc/passwd", "a/../../x", ".git/config", "a/.GIT/x", "", "a//b"]) {
    assert.notEqual(badReturnedPath(path), null, path);
    assert.throws(() => returnedOf({ t: "file", p: path, m: "100644" }, new Uint8Array()));
  }
  assert.throws(() => returnedOf({ t: "file", p: "a", m: "040000" }), /bad mode/);
  // A name that is not UTF-8 (as vcs/ reads it: each such byte a lone surrogate) or a link to a
  // target that is not: refused naming it, never written under a changed name.
  for (const t of ["file", "gone"]) {
    assert.throws(
      () => returnedOf({ t, p: "dir/bad\udce9.txt", m: "100644" }, new Uint8Array()),
      /the worker made "dir\/bad\\xe9\.txt", a name that is not UTF-8/,
    );
  }
  assert.throws(
    () => returnedOf({ t: "file", p: "l", m: "120000" }, new Uint8Array([0x62, 0xe9])),
    /the link "l" to a target that is not UTF-8/,
  );
  assert.equal(
    returnedOf({ t: "file", p: "l", m: "120000" }, new Uint8Array([0x62])).mode,
    "120000",
  );
  await using copy = await tempDir();
  await using outside = await tempDir();
  await Deno.writeTextFile(join(outside.path, "victim"), "keep\n");
  await Deno.symlink(outside.path, join(copy.path, "link"));
  await Deno.writeTextFile(join(copy.path, "old.txt"), "old\n");
  const enc = (s: string) => new TextEncoder().encode(s);
  await writeReturned(copy.path, [
    { path: "link/victim", mode: null },
    { path: "link/new", mode: "100755", bytes: enc("#!/bin/sh\n") },
    { path: "old.txt", mode: null },
    { path: "dir/file.txt", mode: "100644", bytes: enc("x\n") },
  ]);
  // The link in the way became a folder of the copy; nothing outside changed.
  assert.equal(await Deno.readTextFile(join(outside.path, "victim")), "keep\n");
  assert.equal((await Deno.lstat(join(copy.path, "link"))).isDirectory, true);
  assert.equal((await Deno.stat(join(copy.path, "link/new"))).mode! & 0o777, 0o755);
  assert.equal(await Deno.stat(join(copy.path, "old.txt")).catch(() => null), null);
  assert.equal(await Deno.readTextFile(join(copy.path, "dir/file.txt")), "x\n");
});

Deno.test("a container host's manifest is a Pod that never restarts, the copy mounted", async () => {
  const text = await exampleManifest({
    pod: { container: { image: "localhost/w:1", mounts: ["/usr"] } },
  }, "pod");
  const pod = JSON.parse(text);
  assert.equal(pod.kind, "Pod");
  assert.equal(pod.spec.restartPolicy, "Never");
  assert.equal(pod.spec.hostNetwork, true);
  assert.equal(pod.spec.containers[0].image, "localhost/w:1");
  const mounts = pod.spec.containers[0].volumeMounts;
  assert.ok(
    mounts.some((m: { mountPath: string; readOnly?: boolean }) =>
      m.mountPath === "/usr" && m.readOnly
    ),
  );
  assert.ok(
    mounts.some((m: { mountPath: string; readOnly?: boolean }) =>
      m.mountPath === "/COPY" && !m.readOnly
    ),
  );
  await assert.rejects(exampleManifest({ box: { ssh: "me@box" } }, "box"), /SSH host/);
});

Deno.test("frames read the same whatever the chunks: one byte at a time, or many in one", async () => {
  const pipe = new TransformStream<Uint8Array, Uint8Array>();
  const writer = new FrameWriter(pipe.writable);
  const payload = Uint8Array.from({ length: 3000 }, (_, i) => (i * 7) % 256);
  const sending = (async () => {
    await writer.send({ t: "a" });
    await writer.send({ t: "b", p: "x" }, payload);
    await writer.send({ t: "c" });
    await writer.close();
  })();
  const whole = new Uint8Array(await new Response(pipe.readable).arrayBuffer());
  await sending;
  for (const size of [1, 7, whole.length]) {
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < whole.length; i += size) c.enqueue(whole.slice(i, i + size));
        c.close();
      },
    });
    const reader = new FrameReader(stream);
    assert.equal((await reader.next())?.msg.t, "a");
    assert.deepEqual((await reader.next())?.bytes, payload);
    assert.equal((await reader.next())?.msg.t, "c");
    assert.equal(await reader.next(), null);
  }
});

Deno.test("a container run's pod: its box at the copy's path, stores read-only, secrets covered", () => {
  const host = hostConfig({ pod: { container: { image: "w:1", mounts: ["/usr"] } } }, "pod");
  assert.equal(host.kind, "container");
  if (host.kind !== "container") return;
  const pod = podManifest(host, {
    name: podName("20261205-1200-ab", 2),
    launch: { argv: ["codex", "exec", "-"], env: { A: "1" }, cwd: "/s/copies/R", state: ["/h"] },
    promptFile: "/s/runs/R/p/prompt.txt",
    writable: [{ from: "/s/runs/R/p/box", at: "/s/copies/R" }, "/s/runs/R/p"],
    readOnly: ["/repo/.git/objects", "/usr"],
    hidden: { files: ["/s/copies/R/.env"], empty: "/s/runs/R/p/empty" },
  });
  assert.equal(pod.metadata.name, "pitroom-20261205-1200-ab-2");
  const spec = pod.spec as unknown as {
    volumes: { name: string; hostPath: { path: string; type: string } }[];
    containers: {
      volumeMounts: { name: string; mountPath: string; readOnly?: boolean }[];
      env: { name: string; value: string }[];
      command: string[];
    }[];
  };
  const at = (path: string) => {
    const m = spec.containers[0]!.volumeMounts.find((v) => v.mountPath === path)!;
    return { ...m, from: spec.volumes.find((v) => v.name === m.name)!.hostPath };
  };
  // The box is mounted where the local copy is: the worker's paths are the local ones.
  assert.deepEqual(at("/s/copies/R").from, { path: "/s/runs/R/p/box", type: "Directory" });
  assert.equal(at("/s/copies/R").readOnly, undefined);
  assert.equal(at("/h").readOnly, undefined);
  assert.equal(at("/repo/.git/objects").readOnly, true);
  assert.equal(at("/usr").readOnly, true);
  assert.deepEqual(at("/s/copies/R/.env").from, { path: "/s/runs/R/p/empty", type: "File" });
  assert.equal(at("/s/copies/R/.env").readOnly, true);
  // /usr named twice is mounted once.
  assert.equal(spec.containers[0]!.volumeMounts.filter((v) => v.mountPath === "/usr").length, 1);
  assert.deepEqual(spec.containers[0]!.command.slice(-3), ["codex", "exec", "-"]);
  assert.ok(spec.containers[0]!.env.some((e) => e.name === "PITROOM_PROMPT"));
});

Deno.test("a cluster host's Job: the pod's spec with emptyDir folders and no host paths", () => {
  const host = hostConfig({
    k: { container: { image: "w:1", engine: "kubernetes", namespace: "ci", mounts: ["/usr"] } },
  }, "k");
  assert.equal(host.kind === "container" && host.engine, "kubernetes");
  assert.equal(host.kind === "container" && host.namespace, "ci");
  if (host.kind !== "container") return;
  const pod = podManifest({ ...host, mounts: [] }, {
    name: "pitroom-r-1",
    launch: { argv: ["codex", "exec"], env: {}, cwd: "/c" },
    promptFile: "/p/prompt.txt",
    writable: ["/p"],
  });
  const job = jobManifest(pod, { root: "/c", privateDir: "/p", deadlineS: 100 }) as {
    kind: string;
    spec: {
      backoffLimit: number;
      template: {
        spec: Record<string, unknown> & { volumes: unknown[]; containers: { command: string[] }[] };
      };
    };
  };
  assert.equal(job.kind, "Job");
  assert.equal(job.spec.backoffLimit, 0);
  const spec = job.spec.template.spec;
  assert.equal(spec.restartPolicy, "Never");
  assert.equal(spec.hostNetwork, undefined);
  assert.doesNotMatch(JSON.stringify(spec), /hostPath/);
  assert.deepEqual(spec.volumes, [{ name: "copy", emptyDir: {} }, {
    name: "private",
    emptyDir: {},
  }]);
  const c = spec.containers[0]!;
  assert.deepEqual(c.command.slice(-2), ["codex", "exec"]);
  assert.match(c.command[2]!, /\.shipped.*\.exit.*\.fetched/);
  assert.throws(
    () => hostConfig({ k: { container: { image: "w", engine: "k8s" } } }, "k"),
    /"container.engine" should be "podman", "docker" or "kubernetes"/,
  );
  assert.throws(
    () => hostConfig({ k: { container: { image: "w", namespace: "Bad_NS" } } }, "k"),
    /"container.namespace"/,
  );
});

Deno.test("a docker host runs the pod's container: mounts, env file, network, labels, command", () => {
  const host = hostConfig(
    { d: { container: { image: "w:1", engine: "docker", mounts: ["/usr"], env: { K: "v" } } } },
    "d",
  );
  assert.equal(host.kind, "container");
  if (host.kind !== "container") return;
  const manifest = podManifest(host, {
    name: podName("R", 1),
    launch: {
      argv: ["codex", "exec", "-"],
      env: { A: "1=2", LINES: "one\ntwo" },
      cwd: "/s/copies/R",
    },
    promptFile: "/p/prompt.txt",
    writable: [{ from: "/p/box", at: "/s/copies/R" }, "/p, odd"],
    readOnly: ["/repo/.git/objects"],
    hidden: { files: ["/s/copies/R/.env"], empty: "/p/empty" },
  });
  const call = dockerRun(manifest, {
    file: "/p/pod.json",
    names: { pod: "pitroom-r-1", worker: "pitroom-r-1-worker" },
    labels: { "pitroom.run": "R" },
    envFile: "/p/pod.env",
    seccompFile: "/p/pod.seccomp.json",
    user: "1000:1000",
  });
  const flags = (name: string) => call.args.flatMap((a, i) => call.args[i - 1] === name ? [a] : []);
  assert.deepEqual(call.args.slice(0, 4), ["run", "-d", "--name", "pitroom-r-1-worker"]);
  assert.deepEqual(flags("--label"), ["app=pitroom-worker", "pitroom.run=R"]);
  assert.deepEqual(flags("--network"), ["host"]);
  assert.deepEqual(flags("--user"), ["1000:1000"]);
  // The worker CLI's own sandbox makes a user namespace, which docker's default seccomp refuses:
  // Pitroom's own profile, never none.
  assert.deepEqual(flags("--security-opt"), ["seccomp=/p/pod.seccomp.json"]);
  assert.ok(!call.args.some((a) => a.includes("unconfined")), call.args.join(" "));
  assert.deepEqual(flags("--workdir"), ["/s/copies/R"]);
  assert.deepEqual(flags("--mount"), [
    "type=bind,source=/p/box,target=/s/copies/R",
    'type=bind,"source=/p, odd","target=/p, odd"',
    "type=bind,source=/usr,target=/usr,readonly",
    "type=bind,source=/repo/.git/objects,target=/repo/.git/objects,readonly",
    "type=bind,source=/p/empty,target=/s/copies/R/.env,readonly",
  ]);
  // No value on the command line: single lines in the env file, others through the client.
  assert.ok(!call.args.some((a) => a.includes("1=2") || a.includes("one\ntwo")));
  assert.deepEqual(flags("--env-file"), ["/p/pod.env"]);
  assert.deepEqual(call.files, [
    { path: "/p/pod.env", text: "K=v\nA=1=2\nPITROOM_PROMPT=/p/prompt.txt\n" },
    { path: "/p/pod.seccomp.json", text: seccompText() },
  ]);
  assert.deepEqual(flags("--env"), ["LINES"]);
  assert.deepEqual(call.env, { LINES: "one\ntwo" });
  // The manifest's command: its first word the entrypoint, the rest after the image.
  const image = call.args.indexOf("w:1");
  assert.equal(call.args[image - 2], "--entrypoint");
  assert.equal(call.args[image - 1], "/bin/sh");
  assert.deepEqual(call.args.slice(image + 1, image + 2), ["-c"]);
  assert.deepEqual(call.args.slice(-3), ["codex", "exec", "-"]);
  // A host without the machine's network gets none.
  const none = dockerRun(
    podManifest({ ...host, network: "none" }, {
      name: "p",
      launch: { argv: ["x"], env: {}, cwd: "/c" },
      promptFile: null,
      writable: ["/c"],
    }),
    {
      file: "f",
      names: { pod: "p", worker: "p-worker" },
      labels: {},
      envFile: "e",
      seccompFile: "s",
      user: "0:0",
    },
  );
  assert.deepEqual(
    none.args.slice(none.args.indexOf("--network"), none.args.indexOf("--network") + 2),
    [
      "--network",
      "none",
    ],
  );
});

Deno.test("docker's seccomp profile: all allowed but what a worker never needs, EPERM", () => {
  const profile = JSON.parse(seccompText()) as SeccompProfile;
  assert.deepEqual(Object.keys(profile).sort(), ["architectures", "defaultAction", "syscalls"]);
  assert.equal(profile.defaultAction, "SCMP_ACT_ALLOW");
  // A 32-bit call is matched by its own numbers (x86 and x32 on x86_64, arm on arm64).
  assert.deepEqual(profile.architectures, [
    "SCMP_ARCH_X86_64",
    "SCMP_ARCH_X86",
    "SCMP_ARCH_X32",
    "SCMP_ARCH_AARCH64",
    "SCMP_ARCH_ARM",
  ]);
  for (const rule of profile.syscalls) {
    assert.deepEqual(Object.keys(rule).sort(), ["action", "errnoRet", "names"]);
    assert.equal(rule.action, "SCMP_ACT_ERRNO");
    assert.equal(rule.errnoRet, 1);
  }
  const denied = profile.syscalls.flatMap((r) => r.names);
  assert.equal(new Set(denied).size, denied.length, "a syscall is listed twice");
  for (
    const name of ["keyctl", "add_key", "request_key", "bpf", "setns", "ptrace", "io_uring_setup"]
  ) {
    assert.ok(denied.includes(name), `${name} is not denied`);
  }
  // What bubblewrap makes its sandbox with stays allowed.
  for (const name of ["unshare", "clone", "clone3", "mount", "umount2", "pivot_root"]) {
    assert.ok(!denied.includes(name), `${name} is denied`);
  }
});

Deno.test("engineReason() skips docker's closing \"See '... --help'\" line", () => {
  assert.equal(
    engineReason(
      "docker: Error response from daemon: No such image: x.\nSee 'docker run --help'.\n",
    ),
    "docker: Error response from daemon: No such image: x.",
  );
  assert.equal(engineReason("Error: no pod\n"), "Error: no pod");
  assert.equal(engineReason(""), "");
});
