/** The kinds of an eval question, in table order (a leaf: the faces name them, without zod). */
export const QUESTION_KINDS = ["definition", "count", "files"] as const;
