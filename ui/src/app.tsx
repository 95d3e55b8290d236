/**
 * The dashboard page: mounted into `#app` of the page the server sends. Three tabs with
 * addresses (`#live`, `#history`, `#stats`); `#<run-id>` opens that run's card as a panel. The
 * live data comes from one event stream (store.ts); the views are in view/, their pure logic in
 * model/, the highlighter in highlight/. The page first claims its session's key (api/client.ts);
 * without one, or once the dashboard refuses it, it says how to get a fresh address.
 */
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import { onDenied, signIn } from "./api/client.ts";
import { hashOf, parseHash, type Route, type Tab } from "./model/route.ts";
import { parseChoice, THEME_KEY, themeOf, toggled } from "./model/theme.ts";
import { HistoryView } from "./view/history_view.tsx";
import { LiveView } from "./view/live_view.tsx";
import { StatsView } from "./view/stats_view.tsx";

const TABS: Array<[Tab, string]> = [["live", "Live"], ["history", "History"], ["stats", "Stats"]];

function useRoute(): [Route, (r: Route) => void] {
  const [route, setRoute] = useState(() => parseHash(location.hash));
  useEffect(() => {
    const on = () => setRoute(parseHash(location.hash));
    addEventListener("hashchange", on);
    return () => removeEventListener("hashchange", on);
  }, []);
  return [route, (r) => {
    location.hash = hashOf(r);
  }];
}

const dark = matchMedia("(prefers-color-scheme: dark)");

function useTheme(): [string, () => void] {
  const [choice, setChoice] = useState(() => parseChoice(localStorage.getItem(THEME_KEY)));
  const [systemDark, setSystemDark] = useState(dark.matches);
  useEffect(() => {
    const on = () => setSystemDark(dark.matches);
    dark.addEventListener("change", on);
    return () => dark.removeEventListener("change", on);
  }, []);
  const theme = themeOf(choice, systemDark);
  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);
  return [theme, () => {
    const next = toggled(theme);
    localStorage.setItem(THEME_KEY, next);
    setChoice(next);
  }];
}

/** What the page shows when the dashboard does not let it in. */
function Denied() {
  return (
    <main class="denied" data-denied>
      <h1>This page has no pass for the dashboard</h1>
      <p>
        The dashboard restarted, or this browser was never let in. Run <code>pitroom dash</code>
        {" "}
        in a terminal and open the address it prints: each address lets one browser in, once.
      </p>
    </main>
  );
}

function useDenied(): boolean {
  const [denied, setDenied] = useState(false);
  useEffect(() => onDenied(() => setDenied(true)), []);
  return denied;
}

function App() {
  const denied = useDenied();
  const [route, go] = useRoute();
  const [theme, toggle] = useTheme();
  const open = (run: string | null) => go({ tab: route.tab, run });
  return (
    <>
      <header class="bar">
        <span class="brand">Pitroom</span>
        <nav class="tabs">
          {TABS.map(([tab, name]) => (
            <a
              key={tab}
              href={`#${tab}`}
              class={route.tab === tab ? "on" : ""}
              aria-current={route.tab === tab ? "page" : undefined}
            >
              {name}
            </a>
          ))}
        </nav>
        <button
          type="button"
          class="theme"
          data-theme-toggle
          aria-label={`Switch to ${toggled(theme as "light" | "dark")} theme`}
          onClick={toggle}
        >
          {theme === "dark" ? "☀" : "☾"}
        </button>
      </header>
      {denied ? <Denied /> : (
        <main>
          {route.tab === "live" && <LiveView open={route.run} onOpen={open} />}
          {route.tab === "history" && <HistoryView open={route.run} onOpen={open} />}
          {route.tab === "stats" && <StatsView />}
        </main>
      )}
    </>
  );
}

const root = document.getElementById("app");
if (root) {
  void signIn().then((ok) => render(ok ? <App /> : <Denied />, root));
}
