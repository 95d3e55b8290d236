/** The theme (pure): the system's choice unless the person picked one, remembered by the page. */

/** What the page stores. */
export type ThemeChoice = "light" | "dark" | null;

/** The key the choice is kept under in localStorage. */
export const THEME_KEY = "pitroom.theme";

/** The theme to show. */
export function themeOf(choice: ThemeChoice, systemDark: boolean): "light" | "dark" {
  return choice ?? (systemDark ? "dark" : "light");
}

/** The stored choice, from what localStorage holds. */
export function parseChoice(stored: string | null): ThemeChoice {
  return stored === "light" || stored === "dark" ? stored : null;
}

/** What the toggle picks: the other theme than the one shown. */
export function toggled(shown: "light" | "dark"): "light" | "dark" {
  return shown === "dark" ? "light" : "dark";
}
