/** The dashboard page: mounted into `#app` of the page the server sends. */
import { render } from "preact";

function App() {
  return <main>Pitroom</main>;
}

const root = document.getElementById("app");
if (root) render(<App />, root);
