import { render } from "preact";
import "./app.css";
import { App } from "./shell";
import { onLinkClick } from "./router";

document.addEventListener("click", onLinkClick);
render(<App />, document.getElementById("app")!);
