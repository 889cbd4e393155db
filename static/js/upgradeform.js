// "What changes if we upgrade?" (issue 48): pick the release to compare from (by default the one the
// scenario or run is replayed as) and the one to upgrade to (by default the next newer supported
// release), then ask the server: the comparison runs on its long-work workers and its page follows
// it (pages/upgrade.js). Nothing is computed here: the releases are the server's list, in its order.

import { h, mount } from "./dom.js";
import { releases } from "./releases.js";

/**
 * upgradeForm(container, {ask}) — ask({fromRelease, toRelease}) starts the comparison (and
 * navigates); it may throw, and its message is shown under the form. Returns {setFrom(choice)}:
 * the release replayed now (a ReleaseOut), the default "from" until the user picks one.
 */
export function upgradeForm(container, { ask }) {
  const from = h("select#upgrade-from", { "aria-label": "upgrade from release" });
  const to = h("select#upgrade-to", { "aria-label": "upgrade to release" });
  const button = h("button#upgrade-button", { type: "button", disabled: true }, "What changes if we upgrade?");
  const error = h("p.upgrade-error.fail", { role: "alert", hidden: true });
  let list = [];
  let picked = false; // the user chose "from": a new validation no longer moves it
  mount(container,
    h("p.upgrade-pick", h("label.inline", "From ", from), " ", h("label.inline", "to ", to)),
    h("p", button),
    h("p.muted.small", "Both releases run to the end on the server; each pod that lands elsewhere, stays Pending or is scored differently is traced to the feature gate or code change behind it."),
    error);

  /** The next newer release after `name` in the server's newest-first list (the default target). */
  const nextNewer = (name) => {
    const at = list.findIndex((r) => r.name === name);
    return at > 0 ? list[at - 1].name : "";
  };
  const fillTo = () => {
    const target = nextNewer(from.value);
    to.replaceChildren(...list.filter((r) => r.name !== from.value).map((r) => h("option", { value: r.name }, `${r.name} (${r.version})`)));
    if (target) to.value = target;
    button.disabled = !to.value;
    button.title = target ? "" : `${from.value} is the newest supported release: choose an older one to upgrade from`;
  };
  from.addEventListener("change", () => {
    picked = true;
    fillTo();
  });
  button.addEventListener("click", async () => {
    error.hidden = true;
    button.disabled = true;
    try {
      await ask({ fromRelease: from.value, toRelease: to.value });
    } catch (failure) {
      error.textContent = failure.message;
      error.hidden = false;
    } finally {
      button.disabled = !to.value;
    }
  });
  let current = null;
  const ready = releases().then((found) => {
    list = found;
    from.replaceChildren(...list.map((r) => h("option", { value: r.name }, `${r.name} (${r.version})`)));
    from.value = current?.release || list.find((r) => r.default)?.name || list[0]?.name || "";
    fillTo();
  }, (failure) => {
    error.textContent = `Releases unavailable: ${failure.message}`;
    error.hidden = false;
  });
  return {
    setFrom(choice) {
      current = choice;
      if (picked || !choice) return;
      ready.then(() => {
        from.value = choice.release;
        fillTo();
      });
    },
  };
}
