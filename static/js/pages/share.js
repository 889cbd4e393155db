// Read-only shared link: /share/<token>[?cycle=&step=]. No login; offers "Fork to edit".

import { api, useShareToken } from "../api.js";
import { $, h, mount, notify, pageData } from "../dom.js";
import { mountClusterView } from "../clusterview.js";
import { createEditor } from "../editor.js";
import { releaseLine } from "../releases.js";
import { changeStepFromQuery, mountRun, positionFromQuery } from "../run.js";

const token = pageData().shareToken;

async function forkToEdit(shared) {
  const name = `${shared.scenario.name} (fork)`;
  try {
    let created;
    try {
      created = await api.forkShare(token, name);
    } catch (error) {
      if (error.status !== 404 && error.status !== 405) throw error;
      created = await api.createScenario(name, shared.version.text); // no fork-by-token endpoint yet
    }
    location.href = `/scenarios/${created.id}/`;
  } catch (error) {
    notify(`Could not fork: ${error.message}`, "error");
  }
}

function actions(shared) {
  return () => h("span.actions",
    h("button#fork-share", { type: "button", onclick: () => forkToEdit(shared) }, "Fork to edit"),
    h("a.button", { href: api.exportUrl(shared.scenario.id, shared.version.number), download: "" }, "Export YAML"),
    shared.run ? h("a.button#trace-link", { href: api.traceUrl(shared.run.id), download: `trace-run-${shared.run.id}.json` }, "Download trace JSON") : null);
}

async function start() {
  useShareToken(token);
  let shared;
  try {
    shared = await api.resolveShare(token);
  } catch (error) {
    mount($("#share-root"), h("p.notice.notice-error", error.message));
    return;
  }
  if (shared.upgrade) { // an upgrade comparison's link: its result page, read-only
    location.replace(`/upgrades/${shared.upgrade}/?token=${encodeURIComponent(token)}`);
    return;
  }
  if (shared.compareRun && shared.run) {
    location.replace(`/compare/?a=${shared.run.id}&b=${shared.compareRun}&token=${encodeURIComponent(token)}`);
    return;
  }
  const title = `${shared.scenario.name} · v${shared.version.number}${shared.run ? ` · run ${shared.run.id}` : ""}`;
  $("#share-title").textContent = title;
  document.title = `${title} · SchedLab (shared)`;
  const yamlBox = h("div.yaml-readonly");
  const clusterBox = h("div#cluster-root");
  const runBox = h("div#run-root");
  mount($("#share-root"),
    shared.run ? runBox : [h("div.run-status", actions(shared)()), releaseLine(shared.release, { id: "share-release", lead: "Replayed as" })],
    h("details.panel#shared-cluster", { open: !shared.run }, h("summary", "Cluster"), clusterBox),
    h("details.panel#shared-yaml", h("summary", "Scenario YAML (read-only)"), yamlBox));
  createEditor(yamlBox, { text: shared.version.text, readOnly: true });
  // The cluster is drawn when first shown (with a run it starts collapsed, and the run view goes first).
  const clusterPanel = $("#shared-cluster");
  let clusterDrawn = false;
  const drawCluster = () => {
    if (clusterDrawn || !clusterPanel.open) return;
    clusterDrawn = true;
    mountClusterView(clusterBox, { scenarioId: shared.scenario.id, version: shared.version.number, text: shared.version.text, runId: shared.run?.id ?? null })
      .catch((e) => notify(e.message, "error"));
  };
  clusterPanel.addEventListener("toggle", drawCluster);
  drawCluster();
  if (shared.run) {
    const initial = positionFromQuery(location.search) || positionFromQuery(`?${shared.step || ""}`);
    // A link to a step of a run with steps (?changeStep=K) opens the cluster at the end of that step.
    const changeStep = changeStepFromQuery(location.search) ?? changeStepFromQuery(`?${shared.step || ""}`);
    await mountRun(runBox, { runId: shared.run.id, token, readOnly: true, initial, actions: actions(shared), changeStep });
  }
}

start();
