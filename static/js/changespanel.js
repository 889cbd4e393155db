// The editor's Changes panel: the scenario's steps (its Changes document) listed, and built from the
// scenario's own objects — scale a workload, drain / cordon / uncordon / copy / lose a node, lose the
// nodes with a label. Every edit goes through onEdit(text -> text) into the YAML (changesdoc.js); the
// panel is drawn again from the text, so editing the YAML by hand updates it too.

import { describeOperation, operation, readChanges, writeSteps } from "./changesdoc.js";
import { h, mount } from "./dom.js";

const VERBS = [
  ["scale", "scale a workload to"],
  ["drain", "drain a node"],
  ["cordon", "cordon a node"],
  ["uncordon", "uncordon a node"],
  ["addNodes", "add nodes like"],
  ["deleteNode", "lose a node"],
  ["deleteNodes", "lose the nodes labelled"],
];
const FIELDS_OF = { scale: ["workload", "replicas"], drain: ["node"], cordon: ["node"], uncordon: ["node"],
  addNodes: ["node", "count", "prefix"], deleteNode: ["node"], deleteNodes: ["label"] };

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

function addForm(read, steps, form, edit) {
  const workloads = read.workloads.map((w) => [`${w.kind}/${w.namespace}/${w.name}`, `${w.kind} ${w.namespace}/${w.name} (${w.replicas} now)`]);
  const nodes = read.nodes.map((n) => [n.name, n.name]);
  const labels = read.labels.map(([k, v]) => [`${k}=${v}`, `${k}=${v}`]);
  form.verb ||= "scale";
  form.target ||= "new";
  form.workload = pick(form.workload, workloads);
  form.node = pick(form.node, nodes);
  form.label = pick(form.label, labels);
  if (form.replicas === undefined) form.replicas = String((read.workloads[0]?.replicas ?? 0) + 1);
  form.count ||= "1";
  form.prefix ||= "new-node-";
  form.name ??= "";
  if (form.target !== "new" && Number(form.target) > steps.length) form.target = "new";
  const shown = new Set(FIELDS_OF[form.verb]);
  const field = (key, control) => h("label.inline.changes-field", { hidden: !shown.has(key) }, control);
  const bind = (key) => ({ onchange: (e) => { form[key] = e.target.value; } });
  const missing = (FIELDS_OF[form.verb] || []).find((key) => ["workload", "node", "label"].includes(key) && !form[key]);
  const submit = (event) => {
    event.preventDefault();
    if (missing) return;
    const op = operation(form.verb, form);
    edit((all) => {
      if (form.target === "new") all.push({ ...(form.name.trim() ? { name: form.name.trim() } : {}), operations: [op] });
      else all[Number(form.target) - 1].operations = [...(all[Number(form.target) - 1].operations || []), op];
      return all;
    });
    form.name = "";
  };
  return h("form.changes-form#changes-form", { onsubmit: submit },
    h("h3", "Add an operation"),
    h("label.inline", "to ", h("select#changes-target", { "aria-label": "add to", onchange: (e) => { form.target = e.target.value; form.redraw(); } },
      h("option", { value: "new", selected: form.target === "new" }, "a new step"),
      steps.map((_, i) => h("option", { value: String(i + 1), selected: form.target === String(i + 1) }, `step ${i + 1}`)))),
    h("label.inline", { hidden: form.target !== "new" }, " named ",
      h("input#changes-name", { type: "text", value: form.name, placeholder: "optional", oninput: (e) => { form.name = e.target.value; } })),
    h("div.controls",
      h("label.inline", h("select#changes-verb", { "aria-label": "operation", onchange: (e) => { form.verb = e.target.value; form.redraw(); } },
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
      h("button#changes-add", { type: "submit", disabled: Boolean(missing) }, "Add")),
    missing ? h("p.muted", `The scenario has no ${missing === "workload" ? "Deployment, ReplicaSet, StatefulSet or Job" : missing === "node" ? "node" : "node label"} to choose.`) : null);
}

function pick(current, options) {
  return options.some(([value]) => value === current) ? current : (options[0]?.[0] ?? "");
}

function select(id, label, options, current, handlers) {
  return h(`select#${id}`, { "aria-label": label, ...handlers },
    options.map(([value, text]) => h("option", { value, selected: value === current }, text)));
}
