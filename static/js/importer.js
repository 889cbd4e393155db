// Importing files (several at once, or an archive the server unpacks): the upload with its progress (XMLHttpRequest: fetch cannot report upload
// progress), the save, then the editor, which shows the server's check (its own parse and
// validation of the whole file, begun as soon as the file was saved) with the time it has taken.
// The moment the upload completed is kept in sessionStorage, so the editor page can tell how long
// the scenario took to become usable.
//
// One file of the form's data-big-upload-bytes or more (SCHEDLAB_BIG_UPLOAD_BYTES) is a big upload
// instead (issue 50): sent as the raw body of POST /api/uploads/file (streamed to disk, never parsed
// whole in the web process), then read, checked and saved by a long-work worker while its progress
// arrives over /ws/uploads/<id>/ (bytes read of the size, the step, the objects); its problems come
// back with their file, object, field path and line, as an import's do.

import { h, mount } from "./dom.js";
import { ApiError, csrfHeader, request } from "./api.js";

export const UPLOADED_AT = "schedlab:import-uploaded-at";
export const ANSWERED_AT = "schedlab:import-answered-at"; // the server's answer (saved) arrived

function megabytes(bytes) {
  return (bytes / (1 << 20)).toFixed(1);
}

/** POST /api/scenarios/import with progress callbacks: onUpload(loaded, total), onUploaded(). */
export function uploadScenario(form, callbacks = {}) {
  return send("/api/scenarios/import", form, {}, callbacks);
}

/** XMLHttpRequest `method` `url` with `body`, upload progress callbacks; resolves with the JSON answer. */
function send(url, body, headers, { onUpload = () => {}, onUploaded = () => {} } = {}) {
  return new Promise((resolve, reject) => {
    csrfHeader().then((csrf) => {
      const request = new XMLHttpRequest();
      request.open("POST", url);
      for (const [name, value] of Object.entries({ ...csrf, ...headers })) request.setRequestHeader(name, value);
      request.setRequestHeader("Accept", "application/json");
      request.upload.addEventListener("progress", (event) => onUpload(event.loaded, event.lengthComputable ? event.total : 0));
      request.upload.addEventListener("load", () => onUploaded());
      request.addEventListener("load", () => {
        let data = null;
        try {
          data = JSON.parse(request.responseText);
        } catch {
          data = null;
        }
        if (request.status >= 200 && request.status < 300) resolve(data);
        else reject(new ApiError(request.status, data));
      });
      request.addEventListener("error", () => reject(new Error("the upload failed (network error)")));
      request.send(body);
    }, reject);
  });
}

/** The upload's state until it finished: each change told to `shown`, over the websocket (polled when it closes early). */
function followUpload(upload, shown) {
  return new Promise((resolve) => {
    let ended = false;
    const finish = async () => {
      if (ended) return;
      ended = true;
      resolve(await request("GET", `/api/uploads/${upload.id}`));
    };
    const poll = async () => {
      while (!ended) {
        const state = await request("GET", `/api/uploads/${upload.id}`).catch(() => null);
        if (state) {
          shown(state.status, state.progress.what, state.size, state.progress.bytesRead, state.progress.objectsRead);
          if (state.status === "succeeded" || state.status === "failed") { finish(); return; }
        }
        await new Promise((r) => setTimeout(r, 1000));
      }
    };
    const scheme = location.protocol === "https:" ? "wss" : "ws";
    let socket;
    try {
      socket = new WebSocket(`${scheme}://${location.host}/ws/uploads/${upload.id}/`);
    } catch {
      poll();
      return;
    }
    socket.addEventListener("message", (event) => {
      const message = JSON.parse(event.data);
      if (message.type === "progress") shown(message.status, message.what, message.size, message.bytesRead, message.objectsRead);
      if (message.type === "end") { socket.close(); finish(); }
    });
    socket.addEventListener("close", () => { if (!ended) poll(); });
  });
}

/** One big file: uploaded as the raw body, then read by a worker with its progress; resolves with {id} of the scenario. */
async function bigUpload(file, name, bar, text) {
  const query = new URLSearchParams({ filename: file.name });
  if (name) query.set("name", name);
  const upload = await send(`/api/uploads/file?${query}`, file, { "Content-Type": "application/octet-stream" }, {
    onUpload(loaded, total) {
      bar.max = total || file.size;
      bar.value = loaded;
      text.textContent = `Uploading ${megabytes(loaded)} / ${megabytes(file.size)} MB (${Math.round((100 * loaded) / file.size)} %)`;
    },
    onUploaded() {
      sessionStorage.setItem(UPLOADED_AT, String(Date.now()));
      text.textContent = `Uploaded ${megabytes(file.size)} MB. Waiting for a worker to read it…`;
    },
  });
  const done = await followUpload(upload, (status, what, size, bytesRead, objectsRead) => {
    showProgress(bar, text, status, what, size, bytesRead, objectsRead);
  });
  if (done.status === "failed") {
    throw new ApiError(done.details ? 413 : 400, {
      error: { code: done.details ? "limit_exceeded" : "scenario_invalid", message: done.error, details: { ...(done.details || {}), errors: done.errors } },
    });
  }
  sessionStorage.setItem(ANSWERED_AT, String(Date.now()));
  bar.max = 1;
  bar.value = 1;
  if (done.valid && !done.summary.nodes) text.textContent = "Imported, but no nodes were read: nothing can be scheduled. Opening the editor…";
  else if (done.valid) text.textContent = `✓ valid · ${done.summary.nodes} node(s), ${done.summary.pods} pod(s), ${done.summary.pendingPods} pending. Opening the editor…`;
  else text.textContent = `Imported with ${done.errors.length} problem(s). Opening the editor…`;
  return { id: done.scenario, version: done.version };
}

/** "Reading cluster.json on the server: 40.2 / 84.3 MB (48 %)", then the step, then what was read. */
function showProgress(bar, text, status, what, size, bytesRead, objectsRead) {
  if (status === "queued") {
    text.textContent = `Uploaded ${megabytes(size)} MB. Waiting for a worker to read it…`;
  } else if (what.startsWith("reading ") && bytesRead < size) {
    bar.max = size;
    bar.value = bytesRead;
    text.textContent = `Reading ${what.slice(8)} on the server: ${megabytes(bytesRead)} / ${megabytes(size)} MB (${Math.round((100 * bytesRead) / size)} %)`;
  } else if (status === "reading" && /^tidying the text: \d+ of \d+ objects$/.test(what)) {
    const [done, total] = what.match(/\d+/g).map(Number);
    bar.max = total;
    bar.value = done;
    text.textContent = `Read ${megabytes(size)} MB on the server; ${what} (${Math.round((100 * done) / total)} %)…`;
  } else if (status === "reading") {
    bar.removeAttribute("value"); // the check has no steps to count
    text.textContent = `Read ${megabytes(size)} MB on the server; ${what}…`;
  } else if (status === "succeeded") {
    text.textContent = `Saved: ${objectsRead} object(s) read.`;
  }
}

/** Runs the import, drawing its progress into `panel`; resolves with the new scenario. */
export async function importWithProgress(form, panel, { bigUploadBytes = Infinity } = {}) {
  const files = form.getAll("file").filter((file) => typeof file !== "string");
  if (files.length === 1 && files[0].size >= bigUploadBytes) {
    const bar = h("progress", { max: "1", value: "0", "aria-label": "import progress" });
    const text = h("span.progress-text", { role: "status" }, "Starting the upload…");
    mount(panel, h("div.import-progress", bar, " ", text));
    try {
      return await bigUpload(files[0], String(form.get("name") || ""), bar, text);
    } catch (error) {
      mount(panel);
      throw error;
    }
  }
  // The server answers once the text is saved and checks it meanwhile; the editor waits for the check.
  form.set("check", "later");
  const bar = h("progress", { max: "1", value: "0", "aria-label": "import progress" });
  const text = h("span.progress-text", { role: "status" }, "Starting the upload…");
  mount(panel, h("div.import-progress", bar, " ", text));
  let checking = null;
  try {
    const created = await uploadScenario(form, {
      onUpload(loaded, total) {
        if (!total) {
          text.textContent = `Uploading… ${megabytes(loaded)} MB`;
          return;
        }
        bar.max = total;
        bar.value = loaded;
        text.textContent = `Uploading ${megabytes(loaded)} / ${megabytes(total)} MB (${Math.round((100 * loaded) / total)} %)`;
      },
      onUploaded() {
        sessionStorage.setItem(UPLOADED_AT, String(Date.now()));
        bar.removeAttribute("value"); // indeterminate: the server's check has no steps to count
        const started = performance.now();
        const size = bar.max > 1 ? `${megabytes(bar.max)} MB` : "the files";
        const tick = () => {
          text.textContent = `Uploaded. Reading and saving ${size} on the server… ${((performance.now() - started) / 1000).toFixed(1)} s`;
        };
        tick();
        checking = setInterval(tick, 200);
      },
    });
    clearInterval(checking);
    sessionStorage.setItem(ANSWERED_AT, String(Date.now()));
    bar.max = 1;
    bar.value = 1;
    if (!created.checked) text.textContent = "Saved. Opening the editor (the server's check goes on)…";
    else if (created.valid && !created.summary.nodes) text.textContent = "Imported, but no nodes were read: nothing can be scheduled. Opening the editor…";
    else if (created.valid) text.textContent = `✓ valid · ${created.summary.nodes} node(s), ${created.summary.pods} pod(s), ${created.summary.pendingPods} pending. Opening the editor…`;
    else text.textContent = `Imported with ${created.errors.length} problem(s). Opening the editor…`;
    return created;
  } catch (error) {
    clearInterval(checking);
    mount(panel);
    throw error;
  }
}
