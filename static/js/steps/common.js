// Small building blocks shared by the step views.

import { h } from "../dom.js";
import { outcome, statusText } from "../runmodel.js";

export const PASS = "✓";
export const FAIL = "✗";
export const SKIP = "↷";

export function section(title, ...children) {
  return h("section.panel", h("h3", title), ...children);
}

export function note(text) {
  return h("p.note", text);
}

/** ✓ / ✗ / ↷ with the code and reasons as visible text (not colour alone). */
export function statusBadge(status) {
  if (!status || status.code === "Success") return h("span.badge.pass", `${PASS} Success`);
  if (status.code === "Skip") return h("span.badge.skip", `${SKIP} Skip`);
  return h("span.badge.fail", `${FAIL} ${statusText(status)}`);
}

/** The cycle's result line: bound node, or the FailedScheduling event text. */
export function outcomeBanner(cycle) {
  const result = outcome(cycle);
  if (!result.done) return h("p.outcome.pending", "This cycle has not finished yet…");
  if (result.error) return h("p.outcome.fail", { role: "note" }, `${FAIL} Error: ${result.error}`);
  if (result.nodeName) return h("p.outcome.pass", `${PASS} Bound to `, h("strong", result.nodeName));
  return h("p.outcome.fail.failed-scheduling", h("span.tag", `${FAIL} FailedScheduling`), " ", h("span.message", result.message || "no feasible node"));
}

/** A compact table: headers, rows of cells (strings or nodes). */
export function table(headers, rows, className = "") {
  return h(`table.data${className ? "." + className : ""}`,
    h("thead", h("tr", headers.map((x) => h("th", { scope: "col" }, x)))),
    h("tbody", rows.map((cells) => h("tr", cells.map((c, i) => (i === 0 ? h("th", { scope: "row" }, c) : h("td", c)))))));
}

export function kvList(map) {
  const entries = Object.entries(map || {});
  if (!entries.length) return h("span.muted", "—");
  return h("span.kv", entries.map(([k, v]) => h("code.label", v === "" ? k : `${k}=${v}`)));
}

/** A label key to group nodes by (zone first), from the keys the nodes carry. */
export function defaultTopologyKey(keys) {
  const preferred = ["topology.kubernetes.io/zone", "zone", "topology.kubernetes.io/region", "region", "kubernetes.io/hostname"];
  return preferred.find((k) => keys.includes(k)) || keys[0] || "";
}

export function labelKeys(nodeLabels) {
  const keys = new Set();
  for (const labels of nodeLabels.values()) for (const k of Object.keys(labels)) keys.add(k);
  return [...keys].sort();
}

export function keySelect(id, label, keys, current, onChange) {
  return h("label.inline", label, " ",
    h("select", { id, onchange: (e) => onChange(e.target.value) },
      keys.map((k) => h("option", { value: k, selected: k === current }, k))));
}

/**
 * One sentence of the engine's explanation of this cycle (GET .../explain): pick(explanation)
 * returns the sentence (or null when this step has nothing to say). Drawn as given, never composed here.
 */
export function explainLine(ctx, pick, className = "") {
  const found = ctx.explanation;
  if (found === null) return ctx.cycle.end ? h("p.explain.loading", "Reading the engine's explanation…") : null;
  if (found.error) return h("p.explain.unavailable.muted", `No explanation: ${found.error}`);
  const sentence = pick(found);
  return sentence ? h(`p.explain${className ? "." + className : ""}`, h("span.explain-tag", "Why"), " ", h("span.explain-text", sentence)) : null;
}

/**
 * One feasible node: kube-scheduler runs no PreScore / Score / NormalizeScore. The step says so
 * with the engine's sentence and folds the numbers (computed for the trace only) away. Returns
 * null when the release did score this cycle (or the explanation has not arrived).
 */
export function skippedScoring(ctx, ...numbers) {
  const scoring = ctx.explanation?.scoring;
  if (!scoring?.skipped) return null;
  return [
    section("Skipped by kube-scheduler", h("p.skipped-notice", h("span.badge.skip", `${SKIP} Skipped`), " ", scoring.sentence)),
    h("details.skipped-numbers", h("summary", "SchedLab's numbers for the trace (they decided nothing)"), ...numbers),
  ];
}
