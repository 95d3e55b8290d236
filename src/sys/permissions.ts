/**
 * The permission set the program runs under, as the runtime reports it. The expected set is the
 * `pitroom` set of deno.json (a test keeps the two equal): everything it needs granted, and the
 * network only on loopback, no FFI.
 */

/** One permission the program must have, or must not have. */
export interface PermissionProbe {
  label: string;
  descriptor: Deno.PermissionDescriptor;
  granted: boolean;
}

/** What `deno.json`'s `pitroom` set grants, as descriptors to query. */
export const EXPECTED_PERMISSIONS: readonly PermissionProbe[] = [
  { label: "read", descriptor: { name: "read" }, granted: true },
  { label: "write", descriptor: { name: "write" }, granted: true },
  { label: "run", descriptor: { name: "run" }, granted: true },
  { label: "env", descriptor: { name: "env" }, granted: true },
  { label: "sys", descriptor: { name: "sys" }, granted: true },
  { label: "net 127.0.0.1", descriptor: { name: "net", host: "127.0.0.1" }, granted: true },
  {
    label: "net (any other host)",
    descriptor: { name: "net", host: "example.com" },
    granted: false,
  },
  { label: "net (all)", descriptor: { name: "net" }, granted: false },
  { label: "ffi", descriptor: { name: "ffi" }, granted: false },
];

/** The permissions that differ from the expected set: `label: state, want granted|not granted`. */
export function permissionMismatches(
  query: (d: Deno.PermissionDescriptor) => Deno.PermissionState = (d) =>
    Deno.permissions.querySync(d).state,
): string[] {
  const wrong: string[] = [];
  for (const p of EXPECTED_PERMISSIONS) {
    const state = query(p.descriptor);
    if ((state === "granted") !== p.granted) {
      wrong.push(`${p.label}: ${state}, want ${p.granted ? "granted" : "not granted"}`);
    }
  }
  return wrong;
}
