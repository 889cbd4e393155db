// A stored cycle (GET /api/runs/{id}/segment?cycle=N, a NumPy .npz in the format of
// scheduler_core/encoding/columnar.py, docs/WEB_API.md "Event segments") -> the same events the JSON API
// gives, so the run model and every step view read them unchanged. Pure: no DOM, no arithmetic
// on the engine's numbers (columns are copied out; delta-coded name indices are summed back).

import { readNpz } from "./npz.js";

export const FORMAT = "schedlab.events";
export const VERSION = 1;

export class SegmentError extends Error {}

/** {nodes: [name], pods: [name]} from GET /api/runs/{id}/names ({nodes: [{name, labels}], pods}). */
export function runNames(answer) {
  return { nodes: (answer.nodes || []).map((n) => n.name), pods: answer.pods || [] };
}

function columnReader(located, members) {
  const cache = new Map();
  return (k) => {
    if (!cache.has(k)) {
      const [member, offset, length, delta] = located[k];
      const data = members.get(member)?.data;
      if (!data) throw new SegmentError(`segment column ${k} refers to a missing member ${member}`);
      const out = new Array(length);
      let running = 0;
      for (let i = 0; i < length; i += 1) {
        const value = Number(data[offset + i]); // int64 columns arrive as BigInt
        running = delta ? running + value : value;
        out[i] = running;
      }
      cache.set(k, out);
    }
    return cache.get(k);
  };
}

function valueDecoder(column, names) {
  const nodeNames = (k) => column(k).map((i) => names.nodes[i]);
  const decode = (value) => {
    if (Array.isArray(value)) return value.map(decode);
    if (value === null || typeof value !== "object") return value;
    if ("$n" in value) return nodeNames(value.$n);
    if ("$p" in value) return column(value.$p).map((i) => names.pods[i]);
    if ("$i" in value) return column(value.$i).slice();
    if ("$nm" in value) {
      const keys = nodeNames(value.$nm);
      const values = column(value.v);
      const out = {};
      for (let i = 0; i < keys.length; i += 1) out[keys[i]] = values[i];
      return out;
    }
    if ("$st" in value) {
      const palette = value.pal.map(decode);
      const keys = nodeNames(value.$st);
      const codes = column(value.c);
      const out = {};
      for (let i = 0; i < keys.length; i += 1) if (codes[i] >= 0) out[keys[i]] = palette[codes[i]];
      return out;
    }
    const fields = "$lit" in value ? value.$lit : value;
    const out = {};
    for (const [key, item] of Object.entries(fields)) out[key] = decode(item);
    return out;
  };
  return decode;
}

/** ArrayBuffer of a segment -> {firstSeq, events: [{seq, cycle, pod, extensionPoint, plugin, payload}]}. */
export async function decodeSegment(buffer, names) {
  const members = await readNpz(buffer);
  const meta = members.get("meta");
  if (!meta) throw new SegmentError("not an events segment: no meta member");
  const head = JSON.parse(new TextDecoder().decode(meta.data));
  if (head.format !== FORMAT || head.version !== VERSION) {
    throw new SegmentError(`unsupported events segment: ${head.format} version ${head.version}`);
  }
  const decode = valueDecoder(columnReader(head.arrays, members), names);
  const events = head.events.map(([cycle, pod, extensionPoint, plugin, payload], i) => ({
    seq: head.firstSeq + i, cycle, pod, extensionPoint, plugin, payload: decode(payload),
  }));
  return { firstSeq: head.firstSeq, events };
}
