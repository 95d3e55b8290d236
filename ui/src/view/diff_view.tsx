/** Changed files, each a line-numbered, highlighted unified diff. */
import { useMemo } from "preact/hooks";
import { parseDiff } from "../diff.ts";
import { Tokens } from "./code.tsx";

const MARK = { add: "+", del: "-", ctx: " ", note: "" } as const;

/** The files of a patch. */
export function DiffView({ patch }: { patch: string }) {
  const files = useMemo(() => parseDiff(patch), [patch]);
  if (files.length === 0) return <p class="muted">No changes.</p>;
  return (
    <div class="diff-files">
      {files.map((f) => (
        <details class="diff-file" open key={f.path}>
          <summary>
            <span class={`status s-${f.status}`}>{f.status}</span>
            <code class="path">{f.oldPath ? `${f.oldPath} → ${f.path}` : f.path}</code>
            <span class="adds">+{f.added}</span>
            <span class="dels">-{f.removed}</span>
            {f.language && <span class="lang">{f.language}</span>}
          </summary>
          {f.binary
            ? <p class="muted">Binary file.</p>
            : (
              <table class="diff" data-language={f.language ?? ""}>
                {f.hunks.map((h, hi) => (
                  <tbody key={hi}>
                    <tr class="hunk">
                      <td colSpan={3}>{h.header}</td>
                    </tr>
                    {h.lines.map((l, li) => (
                      <tr key={li} class={`l-${l.kind}`}>
                        <td class="no">{l.old ?? ""}</td>
                        <td class="no">{l.new ?? ""}</td>
                        <td class="code">
                          <span class="mark">{MARK[l.kind]}</span>
                          <Tokens tokens={l.tokens} />
                        </td>
                      </tr>
                    ))}
                  </tbody>
                ))}
              </table>
            )}
        </details>
      ))}
    </div>
  );
}
