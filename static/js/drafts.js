// Unsaved edits live in localStorage until saved, so a reload (or a crash) loses nothing typed.

const PREFIX = "schedlab:draft:";

export function loadDraft(scenarioId) {
  try {
    return JSON.parse(localStorage.getItem(PREFIX + scenarioId) || "null");
  } catch {
    return null;
  }
}

export function saveDraft(scenarioId, draft) {
  try {
    localStorage.setItem(PREFIX + scenarioId, JSON.stringify({ ...draft, at: new Date().toISOString() }));
    return true;
  } catch {
    return false; // quota: the text is still in the page
  }
}

export function clearDraft(scenarioId) {
  try {
    localStorage.removeItem(PREFIX + scenarioId);
  } catch {
    /* storage disabled */
  }
}
