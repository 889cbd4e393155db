// NumPy .npz archives in the browser: a ZIP of .npy files, inflated by the browser's own
// DecompressionStream("deflate-raw"). Small on purpose (no library): the server writes plain
// archives (no ZIP64, deflate or stored members, little-endian integer arrays, C order), and
// anything else is refused with an error naming what was found.

const EOCD = 0x06054b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;
const STORED = 0;
const DEFLATED = 8;
const NPY_MAGIC = "\x93NUMPY";

// .npy descr -> typed array (only the integer types the server writes, plus float64).
const TYPES = {
  "|u1": Uint8Array, "|i1": Int8Array, "<u2": Uint16Array, "<i2": Int16Array,
  "<u4": Uint32Array, "<i4": Int32Array, "<i8": BigInt64Array, "<u8": BigUint64Array, "<f8": Float64Array,
};

export class NpzError extends Error {}

function endOfCentralDirectory(view) {
  for (let at = view.byteLength - 22; at >= Math.max(0, view.byteLength - 22 - 65535); at -= 1) {
    if (view.getUint32(at, true) === EOCD) return at;
  }
  throw new NpzError("not a ZIP archive (no end of central directory)");
}

/** [{name, method, offset, size}] of every member, from the central directory. */
function members(view) {
  const end = endOfCentralDirectory(view);
  const count = view.getUint16(end + 10, true);
  let at = view.getUint32(end + 16, true);
  const out = [];
  const decoder = new TextDecoder();
  for (let i = 0; i < count; i += 1) {
    if (view.getUint32(at, true) !== CENTRAL) throw new NpzError("corrupt ZIP central directory");
    const method = view.getUint16(at + 10, true);
    const size = view.getUint32(at + 20, true);
    const nameLength = view.getUint16(at + 28, true);
    const extraLength = view.getUint16(at + 30, true);
    const commentLength = view.getUint16(at + 32, true);
    const local = view.getUint32(at + 42, true);
    if (size === 0xffffffff || local === 0xffffffff) throw new NpzError("ZIP64 archives are not supported");
    const name = decoder.decode(new Uint8Array(view.buffer, view.byteOffset + at + 46, nameLength));
    out.push({ name, method, local, size });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return out;
}

async function inflateRaw(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate-raw"));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

async function memberBytes(view, member) {
  const at = member.local;
  if (view.getUint32(at, true) !== LOCAL) throw new NpzError(`corrupt ZIP entry ${member.name}`);
  const start = at + 30 + view.getUint16(at + 26, true) + view.getUint16(at + 28, true);
  const raw = new Uint8Array(view.buffer, view.byteOffset + start, member.size);
  if (member.method === STORED) return raw;
  if (member.method === DEFLATED) return inflateRaw(raw);
  throw new NpzError(`ZIP entry ${member.name} uses compression method ${member.method}`);
}

/** One .npy file -> {descr, shape, data: TypedArray}. */
export function parseNpy(bytes) {
  const magic = String.fromCharCode(...bytes.subarray(0, 6));
  if (magic !== NPY_MAGIC) throw new NpzError("not a .npy array");
  const major = bytes[6];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const headerLength = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const headerStart = major === 1 ? 10 : 12;
  const header = new TextDecoder("latin1").decode(bytes.subarray(headerStart, headerStart + headerLength));
  const descr = /'descr':\s*'([^']+)'/.exec(header)?.[1];
  const shape = (/'shape':\s*\(([^)]*)\)/.exec(header)?.[1] || "").split(",").map((s) => s.trim()).filter(Boolean).map(Number);
  if (/'fortran_order':\s*True/.test(header)) throw new NpzError("Fortran-ordered arrays are not supported");
  const Type = TYPES[descr];
  if (!Type) throw new NpzError(`unsupported .npy type ${descr}`);
  const count = shape.reduce((a, b) => a * b, 1);
  const start = headerStart + headerLength;
  // A copy: typed arrays need their element alignment, which the offset inside the file may lack.
  const data = new Type(bytes.slice(start, start + count * Type.BYTES_PER_ELEMENT).buffer);
  return { descr, shape, data };
}

/** An .npz archive (ArrayBuffer) -> Map(name without ".npy" -> {descr, shape, data}). */
export async function readNpz(buffer) {
  const view = new DataView(buffer);
  const out = new Map();
  await Promise.all(members(view).map(async (member) => {
    const array = parseNpy(await memberBytes(view, member));
    out.set(member.name.replace(/\.npy$/, ""), array);
  }));
  return out;
}
