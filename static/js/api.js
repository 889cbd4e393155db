// The JSON API under /api/: CSRF header on writes, share token on reads, one error shape.

let shareToken = "";

/** Reads made on behalf of a share link carry its token (the API then refuses every write). */
export function useShareToken(token) {
  shareToken = token || "";
}

export class ApiError extends Error {
  constructor(status, body) {
    const error = (body && body.error) || {};
    super(error.message || `request failed (HTTP ${status})`);
    this.status = status;
    this.code = error.code || "http_error";
    this.details = error.details || {};
  }
}

function cookie(name) {
  for (const part of document.cookie.split(";")) {
    const [key, ...rest] = part.trim().split("=");
    if (key === name) return decodeURIComponent(rest.join("="));
  }
  return "";
}

async function csrfToken() {
  let token = cookie("csrftoken");
  if (!token) {
    const session = await request("GET", "/api/session");
    token = session.csrfToken;
  }
  return token;
}

/** The header every write carries (CSRF). */
export async function csrfHeader() {
  return { "X-CSRFToken": await csrfToken() };
}

export async function request(method, path, { json, form, token = shareToken } = {}) {
  const headers = { Accept: "application/json" };
  const writing = !["GET", "HEAD"].includes(method);
  if (writing) headers["X-CSRFToken"] = await csrfToken();
  else if (token) headers["X-Share-Token"] = token;
  let body;
  if (json !== undefined) {
    headers["Content-Type"] = "application/json";
    body = JSON.stringify(json);
  } else if (form) {
    body = form;
  }
  const response = await fetch(path, { method, headers, body, credentials: "same-origin" });
  if (response.status === 204) return null;
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = null;
  }
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

/** A binary GET (ArrayBuffer); errors in the API's one shape. */
export async function requestBinary(path, { token = shareToken } = {}) {
  const headers = { Accept: "application/octet-stream, application/json" };
  if (token) headers["X-Share-Token"] = token;
  const response = await fetch(path, { headers, credentials: "same-origin" });
  if (!response.ok) {
    let data = null;
    try {
      data = await response.json();
    } catch {
      data = null;
    }
    throw new ApiError(response.status, data);
  }
  return response.arrayBuffer();
}

/** A URL for links/downloads (no headers possible there): the token travels as ?token=. */
export function withToken(path) {
  if (!shareToken) return path;
  return path + (path.includes("?") ? "&" : "?") + "token=" + encodeURIComponent(shareToken);
}

const q = encodeURIComponent;

/** "?release=v1.36&featureGates=…" from {release, featureGates, version} (empty values left out). */
function queryOf(params) {
  const found = Object.entries(params).filter(([, value]) => value !== undefined && value !== null && value !== "");
  return found.length ? `?${new URLSearchParams(found.map(([key, value]) => [key, String(value)]))}` : "";
}

export const api = {
  session: () => request("GET", "/api/session"),
  validate: (text, release = {}) => request("POST", "/api/validate", { json: { text, ...release } }),
  demos: () => request("GET", "/api/demos"),
  createFromDemo: (slug) => request("POST", `/api/demos/${q(slug)}/scenarios`),
  scenarios: (query = "") => request("GET", `/api/scenarios?q=${q(query)}`),
  createScenario: (name, text = "") => request("POST", "/api/scenarios", { json: { name, text } }),
  importScenario: (form) => request("POST", "/api/scenarios/import", { form }),
  scenario: (id) => request("GET", `/api/scenarios/${id}`),
  saveScenario: (id, text, name) => request("PUT", `/api/scenarios/${id}`, { json: { text, name } }),
  deleteScenario: (id) => request("DELETE", `/api/scenarios/${id}`),
  forkScenario: (id, version = null, name = null) =>
    request("POST", `/api/scenarios/${id}/fork`, { json: { version, name } }),
  versions: (id) => request("GET", `/api/scenarios/${id}/versions`),
  version: (id, number) => request("GET", `/api/scenarios/${id}/versions/${number}`),
  diff: (id, old, neu) => request("GET", `/api/scenarios/${id}/diff?old=${old}&new=${neu}`),
  objects: (id, version) => request("GET", `/api/scenarios/${id}/objects` + (version ? `?version=${version}` : "")),
  // One page of the cluster view (docs/WEB_API.md): asked {version, run, groupKey, domain, search, offset, limit}.
  clusterPage: (id, asked = {}) => request("GET", `/api/scenarios/${id}/cluster${queryOf(asked)}`),
  nodes: (id, version) => request("GET", `/api/scenarios/${id}/nodes` + (version ? `?version=${version}` : "")),
  // A big scenario's objects, one at a time (objects mode): each edit answers the new version.
  documents: (id, asked = {}) => request("GET", `/api/scenarios/${id}/documents${queryOf(asked)}`),
  document: (id, index, version) => request("GET", `/api/scenarios/${id}/documents/${index}${queryOf({ version })}`),
  replaceDocument: (id, index, text, version) => request("PUT", `/api/scenarios/${id}/documents/${index}`, { json: { text, version } }),
  deleteDocument: (id, index, version) => request("DELETE", `/api/scenarios/${id}/documents/${index}${queryOf({ version })}`),
  addDocuments: (id, text, version) => request("POST", `/api/scenarios/${id}/documents`, { json: { text, version } }),
  exportUrl: (id, version) => withToken(`/api/scenarios/${id}/export` + (version ? `?version=${version}` : "")),
  // asked: {release, featureGates, version} (releases.js asked()): what the run is replayed as.
  startRun: (id, asked = {}) => request("POST", `/api/scenarios/${id}/runs${queryOf(asked)}`),
  fixNodeTaints: (id) => request("POST", `/api/scenarios/${id}/fixes/node-taints`),
  addFiles: (id, form) => request("POST", `/api/scenarios/${id}/files`, { form }),
  explainPod: (id, version, pod) => request("GET", `/api/scenarios/${id}/explain-pod?version=${version}&pod=${q(pod)}`),
  scenarioRuns: (id) => request("GET", `/api/scenarios/${id}/runs`),
  runs: () => request("GET", "/api/runs"),
  run: (id) => request("GET", `/api/runs/${id}`),
  cancelRun: (id) => request("POST", `/api/runs/${id}/cancel`),
  events: (id, since = 0, limit = 500) => request("GET", `/api/runs/${id}/events?since=${since}&limit=${limit}`),
  cycles: (id) => request("GET", `/api/runs/${id}/cycles`),
  cycleEvents: (id, cycle) => request("GET", `/api/runs/${id}/events?cycle=${cycle}`),
  explain: (id, cycle) => request("GET", `/api/runs/${id}/cycles/${cycle}/explain`),
  // The story's summary (counts, steps, recorded answers) and its entries a page at a time: asked {pod, kind,
  // cycle, offset, limit}. The whole story (GET /api/runs/{id}/timeline) is a download for programs, never read here.
  timelineSummary: (id) => request("GET", `/api/runs/${id}/timeline/summary`),
  timelineEntries: (id, asked = {}) => request("GET", `/api/runs/${id}/timeline/entries${queryOf(asked)}`),
  // One page of the cluster at the end of a step: asked {groupKey, domain, search, offset, limit}, as clusterPage.
  stepCluster: (id, step, asked = {}) => request("GET", `/api/runs/${id}/steps/${step}/cluster${queryOf(asked)}`),
  whatif: (id, pod) => request("GET", `/api/runs/${id}/whatif?pod=${encodeURIComponent(pod)}`),
  applyWhatIf: (id, pod, suggestion) => request("POST", `/api/runs/${id}/whatif/apply`, { json: { pod, suggestion } }),
  runConfig: (id) => request("GET", `/api/runs/${id}/config`),
  tryConfig: (id, config) => request("POST", `/api/runs/${id}/try-config`, { json: { config } }),
  comparison: (a, b, pod = "") => request("GET", `/api/comparisons?a=${a}&b=${b}${pod ? `&pod=${encodeURIComponent(pod)}` : ""}`),
  segment: (id, cycle) => requestBinary(`/api/runs/${id}/segment?cycle=${cycle}`),
  runNames: (id) => request("GET", `/api/runs/${id}/names`),
  trace: (id) => request("GET", `/api/runs/${id}/trace`),
  traceUrl: (id) => withToken(`/api/runs/${id}/trace`),
  share: (id, { version = null, run = null, step = "", compareRun = null, upgrade = null } = {}) =>
    request("POST", `/api/scenarios/${id}/share`, { json: { version, run, step, compareRun, upgrade } }),
  releases: () => request("GET", "/api/releases"),
  // What changes if we upgrade (issue 48): {version?, run?, fromRelease?, toRelease?, featureGates?}.
  askUpgrade: (id, body) => request("POST", `/api/upgrades/scenarios/${id}`, { json: body }),
  scenarioUpgrades: (id) => request("GET", `/api/upgrades/scenarios/${id}`),
  upgrade: (id) => request("GET", `/api/upgrades/${id}`),
  cancelUpgrade: (id) => request("POST", `/api/upgrades/${id}/cancel`),
  openUpgradeSide: (id, side) => request("POST", `/api/upgrades/${id}/runs`, { json: { side } }),
  askFleet: (scenarios, toRelease, featureGates = null) =>
    request("POST", "/api/upgrades/fleet", { json: { scenarios, toRelease, ...(featureGates ? { featureGates } : {}) } }),
  fleets: () => request("GET", "/api/upgrades/fleet"),
  fleet: (id) => request("GET", `/api/upgrades/fleet/${id}`),
  cancelFleet: (id) => request("POST", `/api/upgrades/fleet/${id}/cancel`),
  capacityTargets: (id, version) => request("GET", `/api/capacity/scenarios/${id}/targets` + (version ? `?version=${version}` : "")),
  askCapacity: (id, question) => request("POST", `/api/capacity/scenarios/${id}`, { json: question }),
  capacity: (id) => request("GET", `/api/capacity/${id}`),
  capacityQuestions: (scenarioId) => request("GET", `/api/capacity/scenarios/${scenarioId}`),
  cancelCapacity: (id) => request("POST", `/api/capacity/${id}/cancel`),
  resolveShare: (token) => request("GET", `/api/share/${q(token)}`, { token }),
  forkShare: (token, name = null) => request("POST", `/api/share/${q(token)}/fork`, { json: { name }, token: "" }),
};
