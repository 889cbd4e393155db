// Holds the browser's readers to the payloads' JSON Schema (/static/schema/payloads.json, generated
// from the engine's declarations by scheduler_core/encoding/schema.py). Off unless the page was
// opened with `globalThis.SCHEDLAB_SCHEMA_CHECK = {violations: []}` set (the browser tests do):
// then each payload a reader is handed is wrapped so that a read of a property its schema does
// not declare is recorded in `violations` ("CycleEnd.nodeNam"), the value read as it is. A field
// the engine never writes reads as undefined in silence; this is where that silence is heard.

const SCHEMA_URL = "/static/schema/payloads.json";
const state = globalThis.SCHEDLAB_SCHEMA_CHECK || null;
const schema = state ? await (await fetch(SCHEMA_URL)).json() : null;
const wrapped = new WeakMap(); // target -> Map(schema node -> proxy): one proxy per reading

/** Whether payloads are being checked (the page was opened with the check on). */
export function checking() {
  return schema !== null;
}

/** `value` as the readers should see it: itself, or (checking) wrapped against `$defs[name]`. */
export function checked(value, name) {
  if (!schema) return value;
  return wrap(value, { $ref: `#/$defs/${name}` }, name);
}

function resolve(node) {
  let at = node;
  while (at && at.$ref) at = schema.$defs[at.$ref.replace("#/$defs/", "")];
  return at || {};
}

function jsonType(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (Number.isInteger(value)) return "integer";
  return typeof value === "number" ? "number" : typeof value;
}

function typeFits(declared, value) {
  const type = jsonType(value);
  const types = Array.isArray(declared) ? declared : [declared];
  return types.includes(type) || (type === "integer" && types.includes("number"));
}

/** The branches of a union that fit the value (their type, their consts and typed keys). */
function fitting(branches, value) {
  return branches.map(resolve).filter((branch) => {
    if (branch.type && !typeFits(branch.type, value)) return false;
    if (branch.anyOf || branch.oneOf) return fitting(branch.anyOf || branch.oneOf, value).length > 0;
    for (const [key, property] of Object.entries(branch.properties || {})) {
      if (value === null || typeof value !== "object") break;
      const field = resolve(property);
      if ("const" in field && value[key] !== field.const) return false;
      if (field.type && key in value && !typeFits(field.type, value[key])) return false;
    }
    return true;
  });
}

/** The object schemas that describe the value (unions narrowed to the branches that fit it). */
function shapes(node, value) {
  const at = resolve(node);
  const union = at.anyOf || at.oneOf;
  if (!union) return [at];
  return fitting(union, value).flatMap((branch) => shapes(branch, value));
}

function wrap(value, node, where) {
  if (value === null || typeof value !== "object") return value;
  let proxies = wrapped.get(value);
  if (!proxies) wrapped.set(value, (proxies = new Map()));
  if (!proxies.has(node)) proxies.set(node, makeProxy(value, shapes(node, value), where));
  return proxies.get(node);
}

function makeProxy(value, described, where) {
  if (!described.length || described.some((shape) => !shape.type && !shape.properties && !shape.items)) {
    return value; // an open value (a plugin's own picture or state): any read is the plugin's business
  }
  if (Array.isArray(value)) {
    const items = { anyOf: described.map((shape) => shape.items || {}) };
    return new Proxy(value, {
      get(target, key, receiver) {
        const item = Reflect.get(target, key, receiver);
        return typeof key === "string" && /^\d+$/.test(key) ? wrap(item, items, `${where}[]`) : item;
      },
    });
  }
  const named = Object.assign({}, ...described.map((shape) => shape.properties || {}));
  // A declared object admits only its properties; a map (keyed by node or pod names) any key.
  const closed = described.every((shape) => shape.additionalProperties === false);
  const others = { anyOf: described.map((shape) => (typeof shape.additionalProperties === "object" ? shape.additionalProperties : {})) };
  const title = described.map((shape) => shape.title).filter(Boolean).join("|") || where;
  return new Proxy(value, {
    get(target, key, receiver) {
      const read = Reflect.get(target, key, receiver);
      if (typeof key !== "string" || key in Object.prototype || key === "toJSON" || key === "then") return read;
      if (key in named) return wrap(read, named[key], `${title}.${key}`);
      if (!closed) return wrap(read, others, `${title}[]`);
      report(`${title}.${key}`);
      return read;
    },
  });
}

function report(violation) {
  if (!state.violations.includes(violation)) state.violations.push(violation);
}
