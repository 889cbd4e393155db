// The scenario's Changes document (../shared/spec/CHANGES.md) read from and written into the YAML text.
//
// Pure functions (no DOM): the Changes panel builds steps from the scenario's own objects (its
// workloads and nodes), and every edit is text -> text through yamldocs.js, so the YAML stays the one
// source of truth (the server checks it as usual: errors at step, operation, field and line).

import yaml from "../vendor/js-yaml/js-yaml.mjs";
import { appendObject, parseDocuments, removeObject, updateObject } from "./yamldocs.js";

export const CHANGES_API_VERSION = "schedlab.io/v1alpha1";
export const SCALABLE_KINDS = ["Deployment", "ReplicaSet", "StatefulSet", "Job"];
// As scheduler_core/scenario/changes.py reads them (SET_KINDS, WRITABLE_KINDS, PATCHABLE_KINDS, SET_FIELDS).
export const SET_KINDS = ["Deployment", "StatefulSet", "DaemonSet"];
const CONTROLLED_KINDS = ["Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job"];
export const WRITABLE_KINDS = ["Pod", "Node", "PodDisruptionBudget", "PersistentVolumeClaim", "PersistentVolume", "StorageClass", ...CONTROLLED_KINDS];
export const PATCHABLE_KINDS = ["Node", "PodDisruptionBudget", ...CONTROLLED_KINDS];
const CLUSTER_SCOPED = ["Node", "PersistentVolume", "StorageClass"];
export const SET_FIELDS = ["image", "requests", "limits", "nodeSelector", "tolerations", "affinity"];

/** A form's value the panel cannot write: `field` names the operation's field ("set.tolerations"). */
export class OperationError extends Error {
  constructor(field, message) {
    super(`${field}: ${message}`);
    this.field = field;
  }
}

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
const meta = (obj) => (isObject(obj.metadata) ? obj.metadata : {});

function* objects(docs) {
  for (const doc of docs) {
    const value = doc.value;
    if (!isObject(value)) continue;
    if (value.kind === "List" && Array.isArray(value.items)) {
      for (const item of value.items) if (isObject(item)) yield { doc, obj: item };
    } else {
      yield { doc, obj: value };
    }
  }
}

/** The count a scale writes: a Job's parallelism, the others' replicas (1 when not written). */
function replicasOf(obj) {
  const spec = isObject(obj.spec) ? obj.spec : {};
  const value = obj.kind === "Job" ? spec.parallelism : spec.replicas;
  return Number.isInteger(value) ? value : 1;
}

/**
 * {changes: {doc, steps, line} | null, workloads: [{kind, namespace, name, replicas}], nodes: [{name, labels}],
 *  labels: [[key, value], ...] (every node label pair, for "lose the nodes labelled"), error}
 * `error` says why the panel cannot edit (a Changes document that does not parse, or two of them).
 */
export function readChanges(text) {
  const docs = parseDocuments(text);
  const found = [];
  const workloads = [];
  const nodes = [];
  const written = []; // every object a step may patch, delete, complete or roll out
  for (const { doc, obj } of objects(docs)) {
    if (obj.kind === "Changes") found.push({ doc: doc.index, line: doc.startLine, steps: Array.isArray(obj.steps) ? obj.steps : [] });
    else if (SCALABLE_KINDS.includes(obj.kind)) {
      workloads.push({ kind: obj.kind, namespace: String(meta(obj).namespace || "default"), name: String(meta(obj).name || ""), replicas: replicasOf(obj) });
    } else if (obj.kind === "Node") {
      nodes.push({ name: String(meta(obj).name || ""), labels: isObject(meta(obj).labels) ? meta(obj).labels : {} });
    }
    if (WRITABLE_KINDS.includes(obj.kind)) written.push(objectRef(obj));
  }
  // What the steps create can be changed by later steps too (the server checks the order).
  for (const step of found[0]?.steps || []) {
    for (const op of Array.isArray(step?.operations) ? step.operations : []) {
      if (isObject(op) && isObject(op.create) && WRITABLE_KINDS.includes(op.create.kind)) written.push(objectRef(op.create));
    }
  }
  const pairs = new Map();
  for (const node of nodes) for (const [key, value] of Object.entries(node.labels)) pairs.set(`${key}=${value}`, [key, String(value)]);
  const broken = docs.find((d) => d.error && /kind:\s*Changes/.test(d.lines.join("\n")));
  const error = broken ? `The Changes document does not parse (line ${broken.error.line}): ${broken.error.message}`
    : found.length > 1 ? `The text holds ${found.length} Changes documents; one per scenario` : "";
  const seen = new Set();
  const objectsOut = written.filter((o) => o.name && !seen.has(o.ref) && seen.add(o.ref));
  return {
    changes: found[0] || null, workloads: workloads.filter((w) => w.name), nodes: nodes.filter((n) => n.name),
    labels: [...pairs.values()].sort(([a, x], [b, y]) => a.localeCompare(b) || x.localeCompare(y)), error,
    objects: objectsOut,
  };
}

/** {kind, namespace ("" cluster-scoped), name, ref: "Kind/namespace/name", containers: names of a workload's template's}. */
function objectRef(obj) {
  const kind = String(obj.kind);
  const namespace = CLUSTER_SCOPED.includes(kind) ? "" : String(meta(obj).namespace || "default");
  const name = String(meta(obj).name || "");
  const spec = isObject(obj.spec) ? obj.spec : {};
  const template = isObject(spec.template) && isObject(spec.template.spec) ? spec.template.spec : {};
  const containers = Array.isArray(template.containers) ? template.containers.filter(isObject).map((c) => String(c.name ?? "")) : [];
  return { kind, namespace, name, ref: `${kind}/${namespace}/${name}`, containers };
}

/** "Kind/namespace/name" (namespace "" for a cluster-scoped kind) -> the operation's {kind, namespace?, name}. */
function target(ref, field) {
  const parts = String(ref || "").split("/");
  if (parts.length !== 3 || !parts[0] || !parts[2]) throw new OperationError(field, "Required value: choose an object");
  const [kind, namespace, name] = parts;
  return { kind, ...(namespace ? { namespace } : {}), name };
}

/** A mapping or list typed as YAML (or JSON, which is YAML) into a form's text box. */
function structured(text, field, want) {
  let value;
  try {
    value = yaml.load(String(text ?? ""));
  } catch (error) {
    const line = error.mark ? ` (line ${error.mark.line + 1})` : "";
    throw new OperationError(field, `does not parse as YAML or JSON${line}: ${error.reason || error.message}`);
  }
  const kind = Array.isArray(value) ? "a list" : isObject(value) ? "a mapping" : value === null || value === undefined ? "nothing" : `${typeof value} ${JSON.stringify(value)}`;
  if (want === "list" ? !Array.isArray(value) : !isObject(value)) {
    throw new OperationError(field, `expected ${want === "list" ? "a list" : "a mapping"} (YAML or JSON), got ${kind}`);
  }
  return value;
}

/** requests, limits, nodeSelector: "key=value, key2=value2" or a YAML/JSON mapping ({memory: null} removes a key). */
export function keyValues(text, field) {
  const source = String(text ?? "").trim();
  if (source.startsWith("{") || /^[^=,]+:\s/m.test(source)) return structured(source, field, "map");
  const out = {};
  for (const part of source.split(",")) {
    const item = part.trim();
    if (!item) continue;
    const eq = item.indexOf("=");
    if (eq <= 0) throw new OperationError(field, `"${item}" is not key=value (or write a YAML mapping: {key: value})`);
    out[item.slice(0, eq).trim()] = item.slice(eq + 1).trim();
  }
  return out;
}

const filled = (text) => String(text ?? "").trim() !== "";

/** The steps written into the text: the Changes document rewritten (only it), appended when there is none,
 * removed when no step is left (a scenario without steps runs exactly as before). */
export function writeSteps(text, changes, steps) {
  if (!changes) {
    if (!steps.length) return text;
    return appendObject(text, { apiVersion: CHANGES_API_VERSION, kind: "Changes", steps });
  }
  if (!steps.length) {
    const left = removeObject(text, { doc: changes.doc, item: null });
    return text.endsWith("\n") && !left.endsWith("\n") ? `${left}\n` : left; // the last document's line end stays
  }
  return updateObject(text, { doc: changes.doc, item: null }, (obj) => { obj.steps = steps; });
}

/** The operation a choice in the panel makes (the keys ../shared/spec/CHANGES.md names). */
export function operation(verb, fields) {
  switch (verb) {
    case "scale": {
      const [kind, namespace, name] = fields.workload.split("/");
      return { scale: { kind, namespace, name, replicas: Number(fields.replicas) } };
    }
    case "drain": case "cordon": case "uncordon":
      return { [verb]: { node: fields.node } };
    case "addNodes":
      return { addNodes: { like: fields.node, count: Number(fields.count), prefix: fields.prefix } };
    case "deleteNode":
      return { deleteNodes: { names: [fields.node] } };
    case "deleteNodes": {
      const at = fields.label.indexOf("=");
      return { deleteNodes: { selector: { [fields.label.slice(0, at)]: fields.label.slice(at + 1) } } };
    }
    case "set": {
      const body = target(fields.rollout, "set.name");
      if (!SET_KINDS.includes(body.kind)) throw new OperationError("set.kind", `a rollout is of a ${SET_KINDS.join(", ")}, not a ${body.kind}`);
      if (filled(fields.container)) body.container = String(fields.container).trim();
      if (filled(fields.image)) body.image = String(fields.image).trim();
      for (const key of ["requests", "limits", "nodeSelector"]) if (filled(fields[key])) body[key] = keyValues(fields[key], `set.${key}`);
      if (filled(fields.tolerations)) body.tolerations = structured(fields.tolerations, "set.tolerations", "list");
      if (filled(fields.affinity)) body.affinity = structured(fields.affinity, "set.affinity", "map");
      if (!SET_FIELDS.some((key) => key in body)) throw new OperationError("set", `Required value: at least one of ${SET_FIELDS.join(", ")}`);
      return { set: body };
    }
    case "patch": {
      const body = target(fields.patchTarget, "patch.name");
      if (!PATCHABLE_KINDS.includes(body.kind)) throw new OperationError("patch.kind", `patching a ${body.kind} is not modelled (one of ${PATCHABLE_KINDS.join(", ")})`);
      if (!filled(fields.patch)) throw new OperationError("patch.patch", "Required value: a JSON merge patch (YAML or JSON)");
      const patch = structured(fields.patch, "patch.patch", "map");
      if (!Object.keys(patch).length) throw new OperationError("patch.patch", "an empty patch changes nothing");
      return { patch: { ...body, patch } };
    }
    case "create": {
      if (!filled(fields.manifest)) throw new OperationError("create", "Required value: the object's manifest (YAML or JSON)");
      const manifest = structured(fields.manifest, "create", "map");
      if (!filled(manifest.kind)) throw new OperationError("create.kind", "Required value");
      if (!WRITABLE_KINDS.includes(manifest.kind)) throw new OperationError("create.kind", `a step cannot create a ${manifest.kind} (one of ${WRITABLE_KINDS.join(", ")})`);
      if (!isObject(manifest.metadata) || !filled(manifest.metadata.name)) throw new OperationError("create.metadata.name", "Required value");
      return { create: manifest };
    }
    case "delete":
      return { delete: target(fields.object, "delete.name") };
    case "complete": {
      const body = target(fields.job, "complete.name");
      if (body.kind !== "Job") throw new OperationError("complete.kind", "only a Job can be completed");
      return { complete: body };
    }
    default:
      throw new Error(`unknown operation ${verb}`);
  }
}

/** One line saying what an operation does, as written (whatever the panel or the YAML wrote). */
export function describeOperation(op) {
  if (!isObject(op)) return String(op);
  const [verb] = Object.keys(op);
  const spec = isObject(op[verb]) ? op[verb] : {};
  switch (verb) {
    case "scale": return `scale ${spec.kind} ${spec.namespace || "default"}/${spec.name} to ${spec.replicas}`;
    case "drain": case "cordon": case "uncordon": return `${verb} ${spec.node}`;
    case "addNodes": return `add ${spec.count} node(s) like ${spec.like}${spec.prefix ? ` (${spec.prefix}1…)` : ""}`;
    case "deleteNodes": return spec.names ? `lose node(s) ${[].concat(spec.names).join(", ")}`
      : `lose the nodes labelled ${Object.entries(isObject(spec.selector) ? spec.selector : {}).map(([k, v]) => `${k}=${v}`).join(", ")}`;
    case "complete": return `complete ${spec.kind} ${spec.namespace || "default"}/${spec.name}`;
    case "delete": return `delete ${spec.kind} ${spec.namespace ? `${spec.namespace}/` : ""}${spec.name}`;
    case "patch": return `patch ${spec.kind} ${spec.namespace ? `${spec.namespace}/` : ""}${spec.name}: ${clip(JSON.stringify(spec.patch ?? null))}`;
    case "create": return `create ${spec.kind} ${meta(spec).namespace ? `${meta(spec).namespace}/` : ""}${meta(spec).name || ""}`;
    case "set": {
      const said = SET_FIELDS.filter((key) => key in spec).map((key) => `${key} ${setValueText(spec[key])}`);
      return `roll out ${spec.kind || "Deployment"} ${spec.namespace || "default"}/${spec.name}${spec.container ? ` (container ${spec.container})` : ""}: set ${said.join("; ")}`;
    }
    default: return verb;
  }
}

function setValueText(value) {
  if (isObject(value)) return Object.entries(value).map(([k, v]) => `${k}=${v === null ? "(removed)" : typeof v === "object" ? JSON.stringify(v) : v}`).join(", ");
  return typeof value === "object" ? JSON.stringify(value) : String(value);
}

const clip = (text, most = 160) => (text.length > most ? `${text.slice(0, most - 1)}…` : text);
