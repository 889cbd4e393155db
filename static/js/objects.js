// A scenario version's Nodes and Pods as the engine loads them: GET /api/scenarios/{id}/objects
// (no YAML in the browser, and exactly the engine's view: defaults, kubectl List output, …).
// Only when the server answers 404 (an older server) is the version's text parsed here instead.

import { api } from "./api.js";
import { readScenario } from "./yamldocs.js";

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const text = (v) => (v === null || v === undefined ? "" : String(v));

function stringMap(value) {
  if (!isObject(value)) return {};
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [String(k), text(v)]));
}

/** A node from the API, flat ({name, labels, ...}) or Kubernetes-shaped ({metadata, spec, status}). */
export function nodeFromApi(raw) {
  const meta = isObject(raw.metadata) ? raw.metadata : raw;
  const spec = isObject(raw.spec) ? raw.spec : raw;
  const status = isObject(raw.status) ? raw.status : raw;
  // The API gives the engine's integers (allocatable) and the same as quantities (allocatableText).
  const allocatable = isObject(raw.allocatableText) ? raw.allocatableText
    : isObject(status.allocatable) ? status.allocatable : isObject(status.capacity) ? status.capacity : {};
  return {
    name: text(meta.name),
    labels: stringMap(meta.labels),
    taints: Array.isArray(spec.taints) ? spec.taints.filter(isObject) : [],
    allocatable: stringMap(allocatable),
    unschedulable: spec.unschedulable === true,
  };
}

export function podFromApi(raw) {
  const meta = isObject(raw.metadata) ? raw.metadata : raw;
  const spec = isObject(raw.spec) ? raw.spec : raw;
  const priority = spec.priority ?? raw.priority;
  return {
    namespace: text(meta.namespace) || "default",
    name: text(meta.name),
    labels: stringMap(meta.labels),
    nodeName: text(spec.nodeName ?? raw.nodeName),
    priority: priority === undefined || priority === null ? "" : text(priority),
    claims: Array.isArray(raw.claims) ? raw.claims : [], // the engine's claims per pod (DRA)
  };
}

/**
 * {nodes, pods, source: "api" | "yaml", errors, engineErrors}; source "yaml" only after a 404 from
 * /objects, or a scenario_invalid answer (engineErrors: the engine's list).
 * text (optional): the version's text when the caller already has it (saves a request on fallback).
 */
export async function loadObjects(scenarioId, version, { text: known = null } = {}) {
  let engineErrors = null;
  try {
    const answer = await api.objects(scenarioId, version);
    return {
      nodes: (answer?.nodes || []).map(nodeFromApi),
      pods: (answer?.pods || []).map(podFromApi),
      volumes: answer?.volumes || [], // PersistentVolumes with the domains they can be used in (engine's)
      devices: answer?.devices || [], // DRA devices per node (engine's inventory)
      source: "api",
      errors: [],
    };
  } catch (error) {
    // 404: a server without /objects. scenario_invalid: the engine cannot load this version, but
    // the cluster view still draws what the YAML says (its problems are listed in the editor).
    // 413 limit_exceeded: a saved version over one of the engine's limits (nodes, pods, ...): same.
    const unloadable = error.code === "scenario_invalid" || (error.status === 413 && error.code === "limit_exceeded");
    if (error.status !== 404 && !unloadable) throw error;
    if (unloadable) engineErrors = error.details?.errors || [error.message];
  }
  const source = known ?? (await api.version(scenarioId, version)).text;
  const parsed = readScenario(source);
  return { nodes: parsed.nodes, pods: parsed.pods, source: "yaml", errors: parsed.errors, engineErrors };
}
