// The scenario's Changes document (../shared/spec/CHANGES.md) read from and written into the YAML text.
//
// Pure functions (no DOM): the Changes panel builds steps from the scenario's own objects (its
// workloads and nodes), and every edit is text -> text through yamldocs.js, so the YAML stays the one
// source of truth (the server checks it as usual: errors at step, operation, field and line).

import { appendObject, parseDocuments, removeObject, updateObject } from "./yamldocs.js";

export const CHANGES_API_VERSION = "schedlab.io/v1alpha1";
export const SCALABLE_KINDS = ["Deployment", "ReplicaSet", "StatefulSet", "Job"];

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
  for (const { doc, obj } of objects(docs)) {
    if (obj.kind === "Changes") found.push({ doc: doc.index, line: doc.startLine, steps: Array.isArray(obj.steps) ? obj.steps : [] });
    else if (SCALABLE_KINDS.includes(obj.kind)) {
      workloads.push({ kind: obj.kind, namespace: String(meta(obj).namespace || "default"), name: String(meta(obj).name || ""), replicas: replicasOf(obj) });
    } else if (obj.kind === "Node") {
      nodes.push({ name: String(meta(obj).name || ""), labels: isObject(meta(obj).labels) ? meta(obj).labels : {} });
    }
  }
  const pairs = new Map();
  for (const node of nodes) for (const [key, value] of Object.entries(node.labels)) pairs.set(`${key}=${value}`, [key, String(value)]);
  const broken = docs.find((d) => d.error && /kind:\s*Changes/.test(d.lines.join("\n")));
  const error = broken ? `The Changes document does not parse (line ${broken.error.line}): ${broken.error.message}`
    : found.length > 1 ? `The text holds ${found.length} Changes documents; one per scenario` : "";
  return {
    changes: found[0] || null, workloads: workloads.filter((w) => w.name), nodes: nodes.filter((n) => n.name),
    labels: [...pairs.values()].sort(([a, x], [b, y]) => a.localeCompare(b) || x.localeCompare(y)), error,
  };
}

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
    case "patch": return `patch ${spec.kind} ${spec.namespace ? `${spec.namespace}/` : ""}${spec.name}`;
    case "create": return `create ${spec.kind} ${meta(spec).name || ""}`;
    default: return verb;
  }
}
