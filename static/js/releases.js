// Releases (issue 48): the line that names the release an answer was computed with, and the editor's
// selector — "as the dump says (v1.3X: where)" or any supported release, newest first, plus
// kube-scheduler's --feature-gates. The server chooses and words the release (ReleaseChoice's
// sentence); this module only draws what it is given, as text.

import { api } from "./api.js";
import { h } from "./dom.js";

let supported = null;

/** The supported releases, newest first (GET /api/releases, asked once per page). */
export function releases() {
  supported ??= api.releases().catch((error) => {
    supported = null;
    throw error;
  });
  return supported;
}

/**
 * "Replayed as v1.36.3 — replayed as kube-scheduler v1.36.3 (asked for; the dump says …)": the
 * release an answer used and why. `choice` is a ReleaseOut (null: unknown, nothing is drawn).
 */
export function releaseLine(choice, { id = null, lead = "Release" } = {}) {
  if (!choice) return null;
  const gates = Object.entries(choice.featureGates || {});
  return h(`p.release-line${id ? `#${id}` : ""}`, { dataset: { release: choice.release, source: choice.source } },
    h("span.release-tag", lead), " ",
    h("strong.release-version", choice.version), " ",
    h("span.release-sentence", `— ${choice.sentence}`),
    gates.length ? h("span.release-gates.muted", ` · --feature-gates=${gates.map(([name, on]) => `${name}=${on}`).join(",")}`) : null);
}

/** The selector's first option: what the dump says, with where it says it. */
export function dumpLabel(dump) {
  if (!dump) return "as the dump says";
  if (dump.source === "default") return `as the dump says (it does not say: ${dump.release}, the default)`;
  const where = dump.where ? `: ${dump.where}` : "";
  return `as the dump says (${dump.release}${where})`;
}

/**
 * The release selector: a select (as the dump says, then every supported release) and the
 * --feature-gates field, with the server's refusal shown under them. `state` holds {release, gates}
 * ("" and "" = as the dump says, the release's defaults); onChange(state) after each change.
 */
export function releaseSelector(state, { onChange }) {
  const select = h("select#release-select", { "aria-label": "release to replay", onchange: () => {
    state.release = select.value;
    onChange(state);
  } }, h("option", { value: "" }, dumpLabel(null)));
  const gates = h("input#feature-gates", { type: "text", value: state.gates || "", placeholder: "A=true,B=false", size: 28,
    "aria-label": "kube-scheduler --feature-gates", spellcheck: "false",
    onchange: () => {
      state.gates = gates.value.trim();
      onChange(state);
    } });
  const error = h("p.release-error.fail#release-error", { role: "alert", hidden: true });
  const known = h("details.release-gates-known", h("summary.small", "Gates of this release"), h("ul.plain.small.gate-list"));
  const el = h("div.release-selector",
    h("label.inline", "Replay as ", select),
    h("label.inline", "--feature-gates ", gates),
    error, known);
  releases().then((list) => {
    select.append(...list.map((r) => h("option", { value: r.name }, `${r.name} (${r.version})${r.default ? " · the default" : ""}`)));
    select.value = state.release || "";
    showGates();
  }, () => {});
  let dump = null;
  const showGates = () => {
    if (!supported) return;
    supported.then((list) => {
      const name = select.value || dump?.release;
      const found = list.find((r) => r.name === name);
      known.querySelector("summary").textContent = found ? `Gates of ${found.name}` : "Gates of this release";
      known.querySelector("ul").replaceChildren(...(found?.gates || []).map((g) => h("li", h("code", g.name),
        ` ${g.default ? "on" : "off"} by default · ${g.stage}${g.locked ? " · locked" : ""}`)));
    }, () => {});
  };
  select.addEventListener("change", showGates);
  return {
    el,
    /** The dump's own choice (the validation's dumpRelease): the first option says it. */
    setDump(choice) {
      dump = choice;
      select.options[0].textContent = dumpLabel(choice);
      showGates();
    },
    /** A gate turned on in the --feature-gates field (its other gates kept), as if typed there. */
    turnOn(gate) {
      const others = gates.value.split(",").map((g) => g.trim()).filter((g) => g && g.split("=")[0].trim() !== gate);
      gates.value = [...others, `${gate}=true`].join(",");
      state.gates = gates.value;
      onChange(state);
    },
    /** The server refused the release or a gate (release_invalid), or null to clear. */
    setError(message) {
      error.hidden = !message;
      error.textContent = message || "";
      gates.setAttribute("aria-invalid", message ? "true" : "false");
    },
  };
}

/** The query a run or a validation carries for a selector's state (nothing for "as the dump says"). */
export function asked(state) {
  const out = {};
  if (state.release) out.release = state.release;
  if (state.gates) out.featureGates = state.gates;
  return out;
}
