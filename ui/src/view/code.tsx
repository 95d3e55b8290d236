/** Highlighted code: tokens as spans with one class per token kind. */
import type { Token } from "../highlight/mod.ts";

/** One line's tokens. */
export function Tokens({ tokens }: { tokens: Token[] }) {
  return (
    <>
      {tokens.map((t, i) =>
        t.cls === "" ? t.text : <span key={i} class={`t-${t.cls}`}>{t.text}</span>
      )}
    </>
  );
}
