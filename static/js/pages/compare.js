// Compare page: /compare/?a=RUN&b=RUN[&pod=ns/name]. Two finished runs side by side, as the engine
// compared them (GET /api/comparisons): the summary, each pod's place in both, the first attempt
// where they part, and one pod's weighted scores per node and plugin in both runs.

import { api, useShareToken } from "../api.js";
import { $, h, mount, notify } from "../dom.js";
import { releaseLine } from "../releases.js";
import { section, table } from "../steps/common.js";

const params = new URLSearchParams(location.search);
const [a, b] = [Number(params.get("a")), Number(params.get("b"))];
const token = params.get("token") || ""; // opened from a comparison's share link: read-only
useShareToken(token);

const UNFINISHED = new Set(["queued", "running"]);

/** A run still going (B, just started by "Try another configuration"): say so and look again. */
async function stillRunning(root, pod) {
  const runs = await Promise.all([api.run(a), api.run(b)]);
  const going = runs.find((run) => UNFINISHED.has(run.status));
  if (!going) return false;
  const progress = going.progress.cycles ? ` (${going.progress.cycle} of ${going.progress.cycles} pods)` : "";
  mount(root, h("p.compare-waiting.muted", { role: "status" }, `Waiting for run ${going.id} to finish: ${going.status}${progress}…`));
  setTimeout(() => show(pod).catch((error) => notify(error.message, "error")), 1000);
  return true;
}

async function show(pod) {
  const root = $("#compare-root");
  let result;
  try {
    if (await stillRunning(root, pod)) return;
    result = await api.comparison(a, b, pod);
  } catch (error) {
    mount(root, h("p.notice.notice-error", { role: "alert" }, error.message));
    return;
  }
  const changed = result.pods.filter((row) => row.a !== row.b);
  const place = (node, why) => (node === null ? h("span.fail", { title: why || "" }, "Pending") : node === "deleted" ? h("span.muted", "evicted") : node);
  const pods = [...new Set(result.pods.map((row) => row.pod))];
  const podSelect = h("select#compare-pod", { "aria-label": "pod", onchange: (e) => navigate(e.target.value) },
    new Option("choose a pod", ""), pods.map((name) => new Option(name, name)));
  podSelect.value = pod;
  mount(root,
    token ? h("p.readonly-banner", "Shared comparison (read-only).") : shareButton(),
    h("p.compare-summary", result.summary),
    h("p", "A: ", h("a", { href: `/runs/${a}/` }, `run ${a}`), " · B: ", h("a", { href: `/runs/${b}/` }, `run ${b}`),
      ` · attempts ${result.counts.attempts[0]} / ${result.counts.attempts[1]}`),
    releasesOf(result.releases),
    divergence(result.firstDivergence),
    section(`Pods that end differently (${changed.length})`,
      changed.length
        ? table(["pod", "A", "B"], changed.map((row) => [row.pod, place(row.a, row.aWhy), place(row.b, row.bWhy)]), "compare-pods")
        : h("p.muted", "None: every pod ends in the same place.")),
    section("One pod's scores, A → B", h("label", "Pod ", podSelect), result.scores ? scoresTable(result.scores) : null));
}

/** An unguessable read-only link to this comparison (owner of the scenario only). */
function shareButton() {
  const out = h("input.share-url", { type: "text", readonly: true, hidden: true, "aria-label": "share link" });
  const button = h("button#share-comparison", { type: "button", onclick: async () => {
    try {
      const run = await api.run(a);
      const link = await api.share(run.scenario, { run: a, compareRun: b });
      out.value = link.url;
      out.hidden = false;
      out.select();
    } catch (error) {
      notify(`Could not make a link: ${error.message}`, "error");
    }
  } }, "Share this comparison");
  return h("p", button, " ", out);
}

/** The release each run was replayed as (the server says whether they are the same). */
function releasesOf(releases) {
  if (!releases) return null;
  return h("div.compare-releases#compare-releases",
    releaseLine(releases.a, { id: "compare-release-a", lead: `A (run ${a})` }),
    releaseLine(releases.b, { id: "compare-release-b", lead: `B (run ${b})` }),
    releases.same ? null : h("p.notice.notice-info", "The two runs were replayed as different releases (or feature gates): some differences may come from the release, not the scenario. “What changes if we upgrade?” traces each to its cause."));
}

function divergence(split) {
  if (!split) return h("p.compare-divergence", "The runs never part: the same attempts with the same outcomes.");
  const side = (name, run, attempt) => attempt
    ? h("li", `${name}: `, h("a", { href: `/runs/${run}/?cycle=${attempt.cycle}&step=QueueSort` }, attempt.text))
    : h("li", `${name}: no attempt`);
  // firstDivergence.index is 0-based; people count attempts from 1 (as "(attempt 1)" and the CLI do).
  return h("div.compare-divergence", h("p", `The runs part at attempt ${split.index + 1}:`),
    h("ul", side("A", a, split.a), side("B", b, split.b)));
}

function scoresTable(scores) {
  const cell = (x) => (x.a === x.b ? String(x.a ?? "—") : `${x.a ?? "—"} → ${x.b ?? "—"}${x.difference !== null ? ` (${x.difference > 0 ? "+" : ""}${x.difference})` : ""}`);
  // One feasible node in a run: the release scored nothing there (the engine's sentence says so).
  const skipped = Object.entries(scores.skipped || {}).filter(([, why]) => why)
    .map(([side, why]) => h("p.skipped-notice", { dataset: { side } }, h("span.badge.skip", "↷ Skipped"), ` ${side.toUpperCase()}: ${why}`));
  return [...skipped, table(["node", ...scores.plugins, "total"],
    scores.nodes.map((node) => [node.node, ...scores.plugins.map((plugin) => cell(node.plugins[plugin])), cell(node.total)]), "compare-scores")];
}

function navigate(pod) {
  const query = new URLSearchParams({ a: String(a), b: String(b) });
  if (pod) query.set("pod", pod);
  history.replaceState(null, "", `${location.pathname}?${query}`);
  show(pod).catch((error) => notify(error.message, "error"));
}

$("#compare-title").textContent = `Compare run ${a} with run ${b}`;
show(params.get("pod") || "").catch((error) => notify(error.message, "error"));
