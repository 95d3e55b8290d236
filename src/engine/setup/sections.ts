/** The sections of `doctor`, in the order it shows them (a leaf: the faces name them). */
export const CHECK_SECTIONS = [
  "setup",
  "workers",
  "chain",
  "hosts",
  "integrations",
  "use",
] as const;
export type CheckSection = typeof CHECK_SECTIONS[number];
