// The editor's Changes panel: the scenario's steps (its Changes document) listed, and built from the
// scenario's own objects — scale a workload, drain / cordon / uncordon / copy / lose a node, lose the
// nodes with a label, roll out a workload (set), patch, create, delete an object, complete a Job. Every
// edit goes through onEdit(text -> text) into the YAML (changesdoc.js); the panel is drawn again from the
// text, so editing the YAML by hand updates it too. What is typed into the form is kept in `form` (the
// caller's) across redraws, also when the server's check or the form's own says it is wrong.

import { describeOperation, operation, OperationError, PATCHABLE_KINDS, readChanges, SET_KINDS, writeSteps } from "./changesdoc.js";
import { h, mount } from "./dom.js";

const VERBS = [
  ["scale", "scale a workload to"],
  ["drain", "drain a node"],
  ["cordon", "cordon a node"],
  ["uncordon", "uncordon a node"],
  ["addNodes", "add nodes like"],
  ["deleteNode", "lose a node"],
  ["deleteNodes", "lose the nodes labelled"],
  ["set", "roll out (set) a workload's template"],
  ["patch", "patch an object"],
  ["create", "create an object"],
  ["delete", "delete an object"],
  ["complete", "complete a Job"],
];
const FIELDS_OF = { scale: ["workload", "replicas"], drain: ["node"], cordon: ["node"], uncordon: ["node"],
  addNodes: ["node", "count", "prefix"], deleteNode: ["node"], deleteNodes: ["label"],
  set: ["rollout", "container", "image", "requests", "limits", "nodeSelector", "tolerations", "affinity"],
  patch: ["patchTarget", "patch"], create: ["manifest"], delete: ["object"], complete: ["job"] };
// The choices a verb cannot do without, and what the scenario lacks when there is none.
const CHOICES = { workload: "Deployment, ReplicaSet, StatefulSet or Job", node: "node", label: "node label",
  rollout: SET_KINDS.join(", "), patchTarget: "object a step may patch", object: "object a step may delete", job: "Job" };
const PLACEHOLDERS = {
  image: "nginx:1.28", requests: "cpu=500m, memory=2Gi", limits: "memory=2Gi", nodeSelector: "disktype=ssd",
  tolerations: "- {key: dedicated, operator: Equal, value: gpu, effect: NoSchedule}",
  affinity: "nodeAffinity:\n  requiredDuringSchedulingIgnoredDuringExecution:\n    nodeSelectorTerms:\n    - matchExpressions: [{key: zone, operator: In, values: [a]}]",
  patch: "spec: {replicas: 5}      # or JSON: {\"metadata\": {\"labels\": {\"zone\": \"b\"}}}",
  manifest: "apiVersion: v1\nkind: Pod\nmetadata: {name: extra, namespace: default, labels: {app: extra}}\nspec:\n  containers: [{name: c, image: nginx, resources: {requests: {cpu: 500m}}}]",
};

/** form: the panel's choices, kept by the caller across redraws. */
export function renderChangesPanel(container, text, { onEdit, form, readOnly = false }) {
  const read = readChanges(text);
  const steps = read.changes ? read.changes.steps : [];
  // Each edit reads the text as it is when applied (typing may have changed it since this drawing).
  const edit = (next) => onEdit((current) => {
    const fresh = readChanges(current).changes;
    return writeSteps(current, fresh, next(structuredClone(fresh ? fresh.steps : [])));
  });
  mount(container,
    h("p.muted", "Steps are written into the scenario's Changes document (the YAML tab shows it; editing it there updates this list). Step 0 is the scenario itself; each step runs to quiescence."),
    read.error ? h("p.notice.notice-error#changes-error", read.error) : null,
    stepList(steps, { edit, readOnly: readOnly || Boolean(read.error) }),
    readOnly || read.error ? null : addForm(read, steps, form, edit));
}

function stepList(steps, { edit, readOnly }) {
  if (!steps.length) return h("p.muted#changes-empty", "No steps yet: the run is the scenario as written.");
  return h("ol.changes-steps#changes-steps", steps.map((step, i) => {
    const operations = Array.isArray(step?.operations) ? step.operations : [];
    return h("li.changes-step", { dataset: { step: String(i + 1) } },
      h("div.changes-step-head", h("strong", `Step ${i + 1}`), step?.name ? ` — ${step.name}` : "",
        readOnly ? null : h("button.linkish.small.remove-step", { type: "button", "aria-label": `remove step ${i + 1}`,
          onclick: () => edit((all) => all.filter((_, k) => k !== i)) }, "remove step")),
      h("ul.plain.changes-ops", operations.map((op, j) => h("li.changes-op", describeOperation(op),
        readOnly ? null : h("button.linkish.small", { type: "button", "aria-label": `remove operation ${j + 1} of step ${i + 1}`,
          onclick: () => edit((all) => {
            all[i].operations.splice(j, 1);
            return all[i].operations.length ? all : all.filter((_, k) => k !== i);
          }) }, "✕")))));
  }));
}

/** "new-node-", else "new-node-2-", ...: a prefix no addNodes of the steps uses (a second "add
 * nodes like" with the form's default made names the first had made, and the run refused it). */
function unusedPrefix(steps) {
  const used = new Set(steps.flatMap((step) => (step.operations || []).map((op) => op.addNodes?.prefix).filter(Boolean)));
  let prefix = "new-node-";
  for (let n = 2; used.has(prefix); n += 1) prefix = `new-node-${n}-`;
  return prefix;
}

function addForm(read, steps, form, edit) {
  const workloads = read.workloads.map((w) => [`${w.kind}/${w.namespace}/${w.name}`, `${w.kind} ${w.namespace}/${w.name} (${w.replicas} now)`]);
  const nodes = read.nodes.map((n) => [n.name, n.name]);
  const labels = read.labels.map(([k, v]) => [`${k}=${v}`, `${k}=${v}`]);
  const named = (o) => [o.ref, `${o.kind} ${o.namespace ? `${o.namespace}/` : ""}${o.name}`];
  const rollouts = read.objects.filter((o) => SET_KINDS.includes(o.kind)).map(named);
  const patchable = read.objects.filter((o) => PATCHABLE_KINDS.includes(o.kind)).map(named);
  const deletable = read.objects.map(named);
  const jobs = read.objects.filter((o) => o.kind === "Job").map(named);
  form.verb ||= "scale";
  form.target ||= "new";
  form.workload = pick(form.workload, workloads);
  form.node = pick(form.node, nodes);
  form.label = pick(form.label, labels);
  form.rollout = pick(form.rollout, rollouts);
  form.patchTarget = pick(form.patchTarget, patchable);
  form.object = pick(form.object, deletable);
  form.job = pick(form.job, jobs);
  const containers = read.objects.find((o) => o.ref === form.rollout)?.containers || [];
  form.container = containers.includes(form.container) ? form.container : containers.length === 1 ? containers[0] : "";
  if (form.replicas === undefined) form.replicas = String((read.workloads[0]?.replicas ?? 0) + 1);
  form.count ||= "1";
  form.prefix ||= unusedPrefix(steps);
  form.name ??= "";
  for (const key of ["image", "requests", "limits", "nodeSelector", "tolerations", "affinity", "patch", "manifest"]) form[key] ??= "";
  if (form.target !== "new" && Number(form.target) > steps.length) form.target = "new";
  const shown = new Set(FIELDS_OF[form.verb]);
  const field = (key, control) => h("label.inline.changes-field", { hidden: !shown.has(key) }, control);
  const bind = (key) => ({ onchange: (e) => { form[key] = e.target.value; } });
  const text = (key, label) => field(key, h("span", ` ${label} `, h(`input#changes-${key.toLowerCase()}`, {
    type: "text", value: form[key], placeholder: PLACEHOLDERS[key], "aria-label": label, oninput: (e) => { form[key] = e.target.value; } })));
  const area = (key, label, rows) => h("label.changes-field.changes-area", { hidden: !shown.has(key) }, h("span", label),
    h(`textarea#changes-${key.toLowerCase()}`, { rows: String(rows), spellcheck: "false", value: form[key], placeholder: PLACEHOLDERS[key],
      "aria-label": label, oninput: (e) => { form[key] = e.target.value; } }));
  const missing = (FIELDS_OF[form.verb] || []).find((key) => key in CHOICES && !form[key]);
  const submit = (event) => {
    event.preventDefault();
    if (missing) return;
    let op;
    try {
      op = operation(form.verb, form);
    } catch (error) {
      if (!(error instanceof OperationError)) throw error;
      form.error = error.message; // everything typed stays in `form`: only the message is new
      form.redraw();
      return;
    }
    form.error = "";
    edit((all) => {
      if (form.target === "new") all.push({ ...(form.name.trim() ? { name: form.name.trim() } : {}), operations: [op] });
      else all[Number(form.target) - 1].operations = [...(all[Number(form.target) - 1].operations || []), op];
      return all;
    });
    form.name = "";
    if (form.verb === "addNodes") form.prefix = ""; // the next one gets a prefix no step uses yet
  };
  const redrawOn = (key) => ({ onchange: (e) => { form[key] = e.target.value; form.error = ""; form.redraw(); } });
  return h("form.changes-form#changes-form", { onsubmit: submit, novalidate: true },
    h("h3", "Add an operation"),
    h("label.inline", "to ", h("select#changes-target", { "aria-label": "add to", onchange: (e) => { form.target = e.target.value; form.redraw(); } },
      h("option", { value: "new", selected: form.target === "new" }, "a new step"),
      steps.map((_, i) => h("option", { value: String(i + 1), selected: form.target === String(i + 1) }, `step ${i + 1}`)))),
    h("label.inline", { hidden: form.target !== "new" }, " named ",
      h("input#changes-name", { type: "text", value: form.name, placeholder: "optional", oninput: (e) => { form.name = e.target.value; } })),
    h("div.controls",
      h("label.inline", h("select#changes-verb", { "aria-label": "operation", ...redrawOn("verb") },
        VERBS.map(([value, label]) => h("option", { value, selected: value === form.verb }, label)))),
      field("workload", select("changes-workload", "workload", workloads, form.workload, bind("workload"))),
      field("replicas", h("input#changes-replicas", { type: "number", min: "0", step: "1", value: form.replicas, "aria-label": "replicas",
        oninput: (e) => { form.replicas = e.target.value; } })),
      field("node", select("changes-node", "node", nodes, form.node, bind("node"))),
      field("count", h("span", " × ", h("input#changes-count", { type: "number", min: "1", step: "1", value: form.count, "aria-label": "how many",
        oninput: (e) => { form.count = e.target.value; } }))),
      field("prefix", h("span", " named ", h("input#changes-prefix", { type: "text", value: form.prefix, "aria-label": "name prefix",
        oninput: (e) => { form.prefix = e.target.value; } }), "1, 2, …")),
      field("label", select("changes-label", "node label", labels, form.label, bind("label"))),
      field("rollout", select("changes-rollout", "workload to roll out", rollouts, form.rollout, redrawOn("rollout"))),
      field("container", h("span", " container ", select("changes-container", "container",
        containers.length === 1 ? [[containers[0], containers[0]]] : [["", "every container"], ...containers.map((c) => [c, c])],
        form.container, bind("container")))),
      field("patchTarget", select("changes-patch-target", "object to patch", patchable, form.patchTarget, bind("patchTarget"))),
      field("object", select("changes-object", "object to delete", deletable, form.object, bind("object"))),
      field("job", select("changes-job", "Job", jobs, form.job, bind("job")))),
    h("div.controls.changes-set", { hidden: form.verb !== "set" },
      text("image", "image"), text("requests", "requests"), text("limits", "limits"), text("nodeSelector", "nodeSelector")),
    area("tolerations", "tolerations (replace the template's; a YAML or JSON list)", 2),
    area("affinity", "affinity (replaces the template's; a YAML or JSON mapping)", 4),
    area("patch", "JSON merge patch (RFC 7386), as YAML or JSON", 4),
    area("manifest", "the object to create, as YAML or JSON (Pod, Node, workload, PodDisruptionBudget, PVC, PV, StorageClass)", 7),
    form.verb === "set" ? h("p.muted.small", "Leave a field empty to keep the template's; requests, limits and nodeSelector merge key by key (a YAML mapping with null removes a key), tolerations and affinity replace. A change of the template starts a rollout.") : null,
    form.error ? h("p.notice.notice-error#changes-form-error", { role: "alert" }, form.error) : null,
    h("div.controls", h("button#changes-add", { type: "submit", disabled: Boolean(missing) }, "Add")),
    missing ? h("p.muted", `The scenario has no ${CHOICES[missing]} to choose.`) : null);
}

function pick(current, options) {
  return options.some(([value]) => value === current) ? current : (options[0]?.[0] ?? "");
}

function select(id, label, options, current, handlers) {
  return h(`select#${id}`, { "aria-label": label, ...handlers },
    options.map(([value, text]) => h("option", { value, selected: value === current }, text)));
}
