// Importing files (several at once, or an archive the server unpacks): the upload with its progress (XMLHttpRequest: fetch cannot report upload
// progress), the save, then the editor, which shows the server's check (its own parse and
// validation of the whole file, begun as soon as the file was saved) with the time it has taken.
// The moment the upload completed is kept in sessionStorage, so the editor page can tell how long
// the scenario took to become usable.

import { h, mount } from "./dom.js";
import { ApiError, csrfHeader } from "./api.js";

export const UPLOADED_AT = "schedlab:import-uploaded-at";
export const ANSWERED_AT = "schedlab:import-answered-at"; // the server's answer (saved) arrived

function megabytes(bytes) {
  return (bytes / (1 << 20)).toFixed(1);
}

/** POST /api/scenarios/import with progress callbacks: onUpload(loaded, total), onUploaded(). */
export function uploadScenario(form, { onUpload = () => {}, onUploaded = () => {} } = {}) {
  return new Promise((resolve, reject) => {
    csrfHeader().then((headers) => {
      const request = new XMLHttpRequest();
      request.open("POST", "/api/scenarios/import");
      for (const [name, value] of Object.entries(headers)) request.setRequestHeader(name, value);
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
      request.send(form);
    }, reject);
  });
}

/** Runs the import, drawing its progress into `panel`; resolves with the new scenario. */
export async function importWithProgress(form, panel) {
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
