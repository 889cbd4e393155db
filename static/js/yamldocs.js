// The scenario text as a YAML stream of documents, and structured edits on it.
//
// Pure functions (no DOM): the editor's tables read nodes and pods from here, and every table edit
// is a text -> text function. An edit rewrites only the one document it touches (keeping that
// document's separator and leading comment lines); every other byte of the text is kept as typed.

import yaml from "../vendor/js-yaml/js-yaml.mjs";

const SEPARATOR = /^---[ \t]*(#.*)?$/;
const DUMP_OPTIONS = { lineWidth: -1, noRefs: true, sortKeys: false };

/** Split into documents; joining every document's lines with "\n" gives the text back exactly. */
export function splitDocuments(text) {
  const lines = text.split("\n");
  const docs = [];
  let current = { start: 0, lines: [], separator: false };
  lines.forEach((line, i) => {
    if (SEPARATOR.test(line) && (current.lines.length > 0 || i > 0)) {
      docs.push(current);
      current = { start: i, lines: [], separator: true };
    } else if (SEPARATOR.test(line)) {
      current.separator = true;
    }
    current.lines.push(line);
  });
  docs.push(current);
  return docs.map((doc, index) => ({
    index,
    startLine: doc.start + 1, // 1-based, the separator's line when there is one
    lines: doc.lines,
    separator: doc.separator,
  }));
}

function body(doc) {
  return (doc.separator ? doc.lines.slice(1) : doc.lines).join("\n");
}

/** Parse each document: {index, startLine, value, error: {message, line} | null}. */
export function parseDocuments(text) {
  return splitDocuments(text).map((doc) => {
    const offset = doc.startLine - 1 + (doc.separator ? 1 : 0); // lines before the body
    try {
      return { ...doc, value: yaml.load(body(doc)) ?? null, error: null };
    } catch (error) {
      const line = error.mark ? error.mark.line + 1 + offset : doc.startLine;
      return { ...doc, value: undefined, error: { message: error.reason || error.message, line } };
    }
  });
}

// --- reading nodes and pods -----------------------------------------------------------------

const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);

function* kubeObjects(docs) {
  for (const doc of docs) {
    const value = doc.value;
    if (!isObject(value)) continue;
    if (value.kind === "List" && Array.isArray(value.items)) {
      for (const [item, obj] of value.items.entries()) if (isObject(obj)) yield { ref: { doc: doc.index, item }, obj };
    } else {
      yield { ref: { doc: doc.index, item: null }, obj: value };
    }
  }
}

const str = (v) => (v === null || v === undefined ? "" : String(v));
const meta = (obj) => (isObject(obj.metadata) ? obj.metadata : {});
const spec = (obj) => (isObject(obj.spec) ? obj.spec : {});
const stringMap = (m) => (isObject(m) ? Object.fromEntries(Object.entries(m).map(([k, v]) => [k, str(v)])) : {});

export function nodeRow(ref, obj, line) {
  const status = isObject(obj.status) ? obj.status : {};
  const fromCapacity = !isObject(status.allocatable) && isObject(status.capacity);
  return {
    ref,
    line,
    name: str(meta(obj).name),
    labels: stringMap(meta(obj).labels),
    taints: Array.isArray(spec(obj).taints) ? spec(obj).taints.filter(isObject) : [],
    allocatable: stringMap(fromCapacity ? status.capacity : status.allocatable),
    allocatableFromCapacity: fromCapacity,
    unschedulable: spec(obj).unschedulable === true,
  };
}

export function podRow(ref, obj, line) {
  const s = spec(obj);
  const containers = Array.isArray(s.containers) ? s.containers.filter(isObject) : [];
  return {
    ref,
    line,
    namespace: str(meta(obj).namespace) || "default",
    name: str(meta(obj).name),
    labels: stringMap(meta(obj).labels),
    nodeName: str(s.nodeName),
    priority: s.priority === undefined || s.priority === null ? "" : str(s.priority),
    priorityClassName: str(s.priorityClassName),
    containerNames: containers.map((c, i) => str(c.name) || `#${i}`),
    requests: containers.map((c) => stringMap(c.resources?.requests)),
    constraints: describeConstraints(s),
  };
}

/** One-line summaries of what constrains a pod's placement (shown, never evaluated). */
export function describeConstraints(s) {
  const out = [];
  if (isObject(s.nodeSelector)) out.push(`nodeSelector ${formatMap(stringMap(s.nodeSelector))}`);
  const affinity = isObject(s.affinity) ? s.affinity : {};
  for (const kind of ["nodeAffinity", "podAffinity", "podAntiAffinity"]) {
    const a = affinity[kind];
    if (!isObject(a)) continue;
    const required = a.requiredDuringSchedulingIgnoredDuringExecution;
    const preferred = a.preferredDuringSchedulingIgnoredDuringExecution;
    const nReq = Array.isArray(required) ? required.length : Array.isArray(required?.nodeSelectorTerms) ? required.nodeSelectorTerms.length : 0;
    const nPref = Array.isArray(preferred) ? preferred.length : 0;
    const keys = kind === "nodeAffinity" ? [] : [...(Array.isArray(required) ? required : []), ...(Array.isArray(preferred) ? preferred.map((p) => p?.podAffinityTerm) : [])]
      .filter(isObject).map((t) => t.topologyKey).filter(Boolean);
    out.push(`${kind}: ${nReq} required, ${nPref} preferred${keys.length ? ` (${[...new Set(keys)].join(", ")})` : ""}`);
  }
  for (const c of Array.isArray(s.topologySpreadConstraints) ? s.topologySpreadConstraints.filter(isObject) : []) {
    out.push(`spread ${str(c.topologyKey)} maxSkew ${str(c.maxSkew)} ${str(c.whenUnsatisfiable)}${c.minDomains ? ` minDomains ${c.minDomains}` : ""}`);
  }
  if (Array.isArray(s.tolerations) && s.tolerations.length) out.push(`${s.tolerations.length} toleration(s)`);
  if (s.preemptionPolicy) out.push(`preemptionPolicy ${str(s.preemptionPolicy)}`);
  return out;
}

/** {nodes, pods, docs, errors} from the text; documents that do not parse are listed in errors. */
export function readScenario(text) {
  const docs = parseDocuments(text);
  const nodes = [];
  const pods = [];
  for (const { ref, obj } of kubeObjects(docs)) {
    const line = docs[ref.doc].startLine;
    if (obj.kind === "Node") nodes.push(nodeRow(ref, obj, line));
    else if (obj.kind === "Pod") pods.push(podRow(ref, obj, line));
  }
  return { docs, nodes, pods, errors: docs.filter((d) => d.error).map((d) => ({ doc: d.index, ...d.error })) };
}

// --- text forms of table cells -----------------------------------------------------------------

export function formatMap(map) {
  return Object.entries(map || {}).map(([k, v]) => (v === "" ? k : `${k}=${v}`)).join(", ");
}

/** "a=1, b=2" -> {a: "1", b: "2"}; a bare key gets "". */
export function parseMap(text) {
  const out = {};
  for (const part of text.split(",")) {
    const item = part.trim();
    if (!item) continue;
    const eq = item.indexOf("=");
    if (eq < 0) out[item] = "";
    else out[item.slice(0, eq).trim()] = item.slice(eq + 1).trim();
  }
  return out;
}

export function formatTaints(taints) {
  return taints.map((t) => `${str(t.key)}${t.value ? `=${str(t.value)}` : ""}:${str(t.effect)}`).join(", ");
}

/** "key=value:NoSchedule, other:NoExecute" -> [{key, value?, effect}]. A taint typed without an
 * effect is written without one: the check then names spec.taints[i].effect as the API server
 * would, rather than a NoSchedule the user never typed. */
export function parseTaints(text) {
  const out = [];
  for (const part of text.split(",")) {
    const item = part.trim();
    if (!item) continue;
    const colon = item.lastIndexOf(":");
    const head = colon >= 0 ? item.slice(0, colon) : item;
    const effect = colon >= 0 ? item.slice(colon + 1).trim() : "";
    const eq = head.indexOf("=");
    const taint = { key: (eq >= 0 ? head.slice(0, eq) : head).trim() };
    if (eq >= 0 && head.slice(eq + 1).trim()) taint.value = head.slice(eq + 1).trim();
    if (effect) taint.effect = effect;
    out.push(taint);
  }
  return out;
}

// --- edits: text -> text ---------------------------------------------------------------------------

function leadingComments(lines) {
  const out = [];
  for (const line of lines) {
    if (/^\s*(#.*)?$/.test(line)) out.push(line);
    else break;
  }
  return out;
}

function dumpLines(value) {
  return yaml.dump(value, DUMP_OPTIONS).replace(/\n$/, "").split("\n");
}

function replaceDoc(text, index, newLines) {
  const docs = splitDocuments(text);
  docs[index] = { ...docs[index], lines: newLines };
  return docs.flatMap((d) => d.lines).join("\n");
}

function rewriteDoc(text, index, value) {
  const doc = splitDocuments(text)[index];
  const bodyLines = doc.separator ? doc.lines.slice(1) : doc.lines;
  const keep = leadingComments(bodyLines);
  const trailingBlank = bodyLines.length && bodyLines[bodyLines.length - 1] === "" ? [""] : [];
  const head = doc.separator ? [doc.lines[0]] : [];
  return replaceDoc(text, index, [...head, ...keep, ...dumpLines(value), ...trailingBlank]);
}

function docValue(text, index) {
  const doc = splitDocuments(text)[index];
  return yaml.load(body(doc));
}

/** Apply mutate(obj) to the object at ref (a document, or an item of a List document). */
export function updateObject(text, ref, mutate) {
  const value = docValue(text, ref.doc);
  const target = ref.item === null ? value : value.items[ref.item];
  mutate(target);
  return rewriteDoc(text, ref.doc, value);
}

export function removeObject(text, ref) {
  if (ref.item !== null) {
    const value = docValue(text, ref.doc);
    value.items.splice(ref.item, 1);
    return rewriteDoc(text, ref.doc, value);
  }
  const docs = splitDocuments(text);
  docs.splice(ref.doc, 1);
  return docs.flatMap((d) => d.lines).join("\n");
}

/** Insert obj as a new document right after the one at ref (or into the same List). */
export function insertAfter(text, ref, obj) {
  if (ref.item !== null) {
    const value = docValue(text, ref.doc);
    value.items.splice(ref.item + 1, 0, obj);
    return rewriteDoc(text, ref.doc, value);
  }
  const docs = splitDocuments(text);
  const doc = docs[ref.doc];
  const endsBlank = doc.lines.length && doc.lines[doc.lines.length - 1] === "";
  const before = endsBlank ? doc.lines.slice(0, -1) : doc.lines;
  docs[ref.doc] = { ...doc, lines: before };
  docs.splice(ref.doc + 1, 0, { lines: ["---", ...dumpLines(obj), ...(endsBlank ? [""] : [])] });
  return docs.flatMap((d) => d.lines).join("\n");
}

/** Append obj as a new document at the end. */
export function appendObject(text, obj) {
  const lines = dumpLines(obj);
  if (!text.trim()) return lines.join("\n") + "\n";
  const base = text.endsWith("\n") ? text : text + "\n";
  return base + ["---", ...lines].join("\n") + "\n";
}

export function getObject(text, ref) {
  const value = docValue(text, ref.doc);
  return structuredClone(ref.item === null ? value : value.items[ref.item]);
}

export function uniqueName(base, taken) {
  const used = new Set(taken);
  const stem = base.replace(/-\d+$/, "");
  for (let n = 1; ; n += 1) {
    const candidate = `${stem}-${n}`;
    if (!used.has(candidate)) return candidate;
  }
}

export function newNode(name) {
  return {
    apiVersion: "v1",
    kind: "Node",
    metadata: { name, labels: { "kubernetes.io/hostname": name } },
    status: {
      capacity: { cpu: "4", memory: "8Gi", pods: "110" },
      allocatable: { cpu: "4", memory: "8Gi", pods: "110" },
    },
  };
}

export function newPod(name, namespace = "default") {
  return {
    apiVersion: "v1",
    kind: "Pod",
    metadata: { name, namespace, labels: { app: name } },
    spec: {
      containers: [{ name: "app", image: "registry.k8s.io/pause:3.9", resources: { requests: { cpu: "100m", memory: "128Mi" } } }],
    },
  };
}

/** A copy of a node or pod under a new name (a node's hostname label follows its name). */
export function duplicate(obj, name) {
  const copy = structuredClone(obj);
  copy.metadata = { ...(copy.metadata || {}), name };
  const labels = copy.metadata.labels;
  if (copy.kind === "Node" && isObject(labels) && labels["kubernetes.io/hostname"] === obj.metadata?.name) {
    copy.metadata.labels = { ...labels, "kubernetes.io/hostname": name };
  }
  return copy;
}

// Field setters used by the tables: each takes the object and the cell's text.

function ensure(obj, key) {
  if (!isObject(obj[key])) obj[key] = {};
  return obj[key];
}

function setOrDelete(obj, key, value) {
  if (value === undefined || value === "" || (isObject(value) && !Object.keys(value).length) || (Array.isArray(value) && !value.length)) delete obj[key];
  else obj[key] = value;
}

export const nodeFields = {
  name: (obj, text) => {
    const m = ensure(obj, "metadata");
    const labels = m.labels;
    if (isObject(labels) && labels["kubernetes.io/hostname"] === m.name) labels["kubernetes.io/hostname"] = text.trim();
    m.name = text.trim();
  },
  labels: (obj, text) => setOrDelete(ensure(obj, "metadata"), "labels", parseMap(text)),
  taints: (obj, text) => setOrDelete(ensure(obj, "spec"), "taints", parseTaints(text)),
  allocatable: (obj, text) => setOrDelete(ensure(obj, "status"), "allocatable", parseMap(text)),
  unschedulable: (obj, checked) => setOrDelete(ensure(obj, "spec"), "unschedulable", checked ? true : undefined),
};

export const podFields = {
  name: (obj, text) => {
    const m = ensure(obj, "metadata");
    const slash = text.indexOf("/");
    if (slash >= 0) {
      m.namespace = text.slice(0, slash).trim() || "default";
      m.name = text.slice(slash + 1).trim();
    } else {
      m.name = text.trim();
    }
  },
  labels: (obj, text) => setOrDelete(ensure(obj, "metadata"), "labels", parseMap(text)),
  nodeName: (obj, text) => setOrDelete(ensure(obj, "spec"), "nodeName", text.trim()),
  priority: (obj, text) => {
    // A whole number is written as one; anything else as typed (not NaN, which YAML writes .nan),
    // so the check names spec.priority and the line as the API server would refuse it.
    const value = text.trim();
    const typed = /^[+-]?\d+$/.test(value) ? Number.parseInt(value, 10) : value;
    setOrDelete(ensure(obj, "spec"), "priority", value === "" ? undefined : typed);
  },
  requests: (obj, text) => {
    const s = ensure(obj, "spec");
    if (!Array.isArray(s.containers) || !s.containers.length) s.containers = [{ name: "app", image: "registry.k8s.io/pause:3.9" }];
    const resources = ensure(s.containers[0], "resources");
    setOrDelete(resources, "requests", parseMap(text));
    if (!Object.keys(resources).length) delete s.containers[0].resources;
  },
};
