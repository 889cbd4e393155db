// "Try another configuration": edit the run's KubeSchedulerConfiguration (or start from one of the
// server's presets),
// run the same scenario with it (a new version; a demo is forked first) and open the comparison of
// the two runs. The server checks the configuration and runs it; this only edits text.

import { api } from "./api.js";
import { h, notify } from "./dom.js";

export function tryConfigControl(run) {
  const text = h("textarea#try-config-text", { rows: 18, spellcheck: "false", "aria-label": "KubeSchedulerConfiguration" });
  const problems = h("ul.try-config-problems.errors");
  const origin = h("p.muted.try-config-origin");
  let presets = {};
  const preset = h("select#try-config-preset", { "aria-label": "start from", onchange: (e) => {
    if (e.target.value) text.value = presets[e.target.value];
  } }, new Option("Start from…", ""));
  const go = h("button#try-config-run", { type: "button", onclick: () => submit() }, "Run and compare");
  const dialog = h("dialog#try-config-dialog", { "aria-label": "try another configuration" },
    h("h2", "Try another configuration"),
    origin,
    h("p", preset),
    text,
    problems,
    h("p.actions", go, " ", h("button", { type: "button", onclick: () => dialog.close() }, "Cancel")));
  document.body.append(dialog);

  async function open() {
    try {
      const current = await api.runConfig(run.id);
      text.value = current.config;
      presets = current.presets;
      preset.replaceChildren(new Option("Start from…", ""), ...Object.keys(presets).map((name) => new Option(name, name)));
      origin.textContent = current.fromScenario
        ? `The configuration of version ${run.version}. Change it, then run the same scenario with it.`
        : `Version ${run.version} has no configuration: these are the release's defaults. Change them, then run.`;
      problems.replaceChildren();
      dialog.showModal();
    } catch (error) {
      notify(error.message, "error");
    }
  }

  async function submit() {
    go.disabled = true;
    problems.replaceChildren();
    try {
      const started = await api.tryConfig(run.id, text.value);
      location.href = `/compare/?a=${run.id}&b=${started.id}`;
    } catch (error) {
      const found = error.details?.errors || [];
      problems.replaceChildren(...(found.length ? found : [{ message: error.message }]).map((p) =>
        h("li", p.line ? `line ${p.line}: ` : "", p.object ? `${p.object}: ` : "", p.path ? `${p.path}: ` : "", p.message)));
      go.disabled = false;
    }
  }

  return h("button#try-config", { type: "button", onclick: open }, "Try another configuration");
}
