/**
 * The seccomp profile a docker host's worker container runs with (`--security-opt
 * seccomp=FILE`; docker's client reads the file). Docker's own default refuses the user namespace
 * a worker CLI's sandbox (codex's bubblewrap) makes inside the container, and no profile at all
 * leaves the kernel's whole syscall surface open to a hostile worker. This one allows every
 * syscall but those a worker never needs that reach kernel state a namespace does not confine;
 * they fail with EPERM, as a refused call does anywhere else.
 *
 * Allowed on purpose: `unshare`, `clone`, `clone3`, `mount`, `umount2`, `pivot_root` (bubblewrap
 * makes its namespaces and its root with them; inside the container they act only in the new
 * user namespace it owns, as docker's dropped capabilities refuse them on the container's own),
 * and `personality`: its risky flags (no address randomisation, executable data) weaken only the
 * worker's own processes, the kernel clears them on a set-uid exec, and a rule on its argument
 * would have to keep the query value and 32-bit personas working (not worth a fragile rule).
 */

/**
 * The syscalls refused, in groups, each with what it reaches that the container's namespaces do
 * not confine. A name one architecture lacks is skipped on it.
 */
export const DENIED: readonly (readonly string[])[] = [
  // The kernel keyring is not namespaced: it can hold the user's secrets.
  ["add_key", "keyctl", "request_key"],
  // Programs run in the kernel, and events that observe the kernel and other processes.
  ["bpf", "perf_event_open"],
  // Stalls the kernel mid-copy at the caller's will: a building block of kernel exploits.
  ["userfaultfd"],
  // A second way into the kernel whose requests seccomp does not see; programs fall back.
  ["io_uring_setup", "io_uring_enter", "io_uring_register"],
  // Replace, load or unload kernel code, or restart the machine.
  [
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    "create_module",
    "reboot",
  ],
  // Opens a file by its handle, around the container's mounts.
  ["open_by_handle_at", "name_to_handle_at"],
  // Joins another process's namespaces: bubblewrap makes namespaces, it never joins one.
  ["setns"],
  // Reads and writes other processes' memory and files (the worker CLI's, with its keys).
  ["ptrace", "process_vm_readv", "process_vm_writev", "pidfd_getfd"],
  // The machine's clock is one for all namespaces (the 64-bit-time calls of 32-bit builds too).
  [
    "settimeofday",
    "stime",
    "clock_settime",
    "clock_settime64",
    "clock_adjtime",
    "clock_adjtime64",
    "adjtimex",
  ],
  // The machine's process accounting, swap, kernel log and disk quotas.
  ["acct", "swapon", "swapoff", "syslog", "quotactl", "quotactl_fd"],
  // Hardware I/O ports.
  ["iopl", "ioperm"],
  // Watches file accesses across a whole mount or filesystem.
  ["fanotify_init"],
  // Obsolete interfaces no program of today calls.
  [
    "lookup_dcookie",
    "nfsservctl",
    "uselib",
    "ustat",
    "sysfs",
    "_sysctl",
    "vm86",
    "vm86old",
  ],
];

/** EPERM: what a refused syscall returns. */
export const DENIED_ERRNO = 1;

/**
 * Every syscall convention the filter covers: a 32-bit call (x86's `int 0x80`, x32, arm on
 * arm64) is matched by its own numbers, so it cannot slip past the list.
 */
export const ARCHITECTURES = [
  "SCMP_ARCH_X86_64",
  "SCMP_ARCH_X86",
  "SCMP_ARCH_X32",
  "SCMP_ARCH_AARCH64",
  "SCMP_ARCH_ARM",
] as const;

/** The profile as docker reads it. */
export interface SeccompProfile {
  defaultAction: "SCMP_ACT_ALLOW";
  architectures: string[];
  syscalls: { names: string[]; action: "SCMP_ACT_ERRNO"; errnoRet: number }[];
}

/** The profile (pure). */
export function seccompProfile(): SeccompProfile {
  return {
    defaultAction: "SCMP_ACT_ALLOW",
    architectures: [...ARCHITECTURES],
    syscalls: DENIED.map((names) => ({
      names: [...names],
      action: "SCMP_ACT_ERRNO",
      errnoRet: DENIED_ERRNO,
    })),
  };
}

/** The profile's file text. */
export function seccompText(): string {
  return JSON.stringify(seccompProfile(), null, 2) + "\n";
}
