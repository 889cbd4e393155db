"""What changes if we upgrade: one scenario run to the end under two releases, and why each
difference happens.

Both runs are compared as `compare` compares two runs (each pod's end, its FailedScheduling
message, each plugin's weighted scores in its first scored attempt). Each difference is then
traced to the release changes behind it: every feature gate and code change the two releases set
differently (release/rules.py ``switches_between``) is put back, one at a time, to the older
release's value in the newer release's run; a change whose reversal alone gives a pod back its
older outcome is that pod's cause, and one whose reversal restores a plugin's scores is that
score change's cause. A difference no single change explains says which changes touch it.
"""

from __future__ import annotations

from typing import Any, Callable, Iterable, Optional

from scheduler_core.answers.compare import RunSide, compare_sides, read_side
from scheduler_core.encoding.events import Event
from scheduler_core.util.wire import Wire
from scheduler_core.model import Scenario
from scheduler_core.plugins.node_declared_features import required_features
from scheduler_core.release.choice import ReleaseChoice, ReleaseSource
from scheduler_core.release.rules import Rules, Switch, rules_for, switches_between, with_switch
from scheduler_core.release.versions import Release
from scheduler_core.scenario.dra import replayed_as
from scheduler_core.scenario.errors import ScenarioInvalid

# Gates whose code reads only resource.k8s.io objects and pods' claims: a cluster without any
# cannot tell them apart, so their runs are not made. (DynamicResourceAllocation itself also puts
# the plugin in the default profile: it is always run.)
_DRA_ONLY_PREFIXES = ("DRA",)
_DECLARED_FEATURES_ONLY_PREFIX = "declared_features_"

Runner = Callable[[Scenario], Iterable[Event]]
Progress = Callable[[int, int, str], None]  # (done, total, what)

# A pod's outcome as compared: (final node or "deleted" or None, message, plugin -> node -> weighted score)
Outcome = tuple[Optional[str], str, dict[str, dict[str, int]]]


class SwitchEffect(Wire, kw_only=True):
    """One release change and what it does on this cluster."""

    kind: str  # "gate" or "code"
    name: str
    sentence: str  # what it is ("feature gate X on (was off): Beta in v1.36", the code change's words)
    explains: list[str] = []  # pods whose whole difference it alone explains
    touches: list[str] = []  # pods whose outcome it changes, without explaining all of it
    plugins: list[str] = []  # plugins whose scores it alone explains ("Plugin" or "Plugin: pod")
    checked: bool = True  # False: not run (a DRA change on a cluster without devices, or refused)
    # Why it could not be run: the newer release with this change put back refuses the cluster's
    # objects (its API server's words for the first problem: a claim's firstAvailable without
    # DRAPrioritizedList leaves a request with nothing); None when it ran or was left out
    refused: Optional[str] = None


class PodUpgrade(Wire, kw_only=True):
    """One pod that ends differently, or scores differently, after the upgrade."""

    pod: str
    old_node: Optional[str] = None
    new_node: Optional[str] = None
    old_message: Optional[str] = None
    new_message: Optional[str] = None
    plugins: list[str] = []  # plugins whose weighted score of some node differs
    causes: list[str] = []  # the release changes that alone explain it
    plugin_causes: dict[str, list[str]] = {}  # plugin -> the changes that alone explain its scores
    touched_by: list[str] = []  # changes that move it, when none alone explains it


class UpgradeComparison(Wire, kw_only=True):
    """`compare --release OLD --release NEW`: the upgrade's effect on one cluster, with its causes."""

    old: str  # the release versions, "v1.35.4"
    new: str
    summary: str
    pods: list[PodUpgrade] = []
    changes: list[SwitchEffect] = []
    comparison: dict[str, Any] = {}  # compare's own JSON of the two runs (counts, rows, first divergence)

    def lines(self, most: int = 25) -> list[str]:
        """The text `compare` prints: the summary, the first ``most`` pods that differ, the changes."""
        out = [f"Upgrading {self.old} → {self.new}: {self.summary}"]
        for row in self.pods[:most]:
            moved = row.old_node != row.new_node
            head = f"  {row.pod}: " + (
                f"{row.old_node or 'Pending'} → {row.new_node or 'Pending'}" if moved else "same node"
            )
            if row.plugins:
                head += f"; scores differ: {', '.join(row.plugins)}"
            if row.old_message != row.new_message and (row.old_message or row.new_message):
                head += "; message differs"
            if len(row.causes) == 1:
                head += f" — because of {row.causes[0]}"
            elif row.causes:
                head += f" — because of {' or '.join(row.causes)} (undoing either alone gives the old outcome)"
            elif row.plugin_causes:
                head += " — " + "; ".join(f"{p}: {', '.join(c)}" for p, c in row.plugin_causes.items())
            elif row.touched_by:
                head += f" — moved by {', '.join(row.touched_by)} together"
            out.append(head)
            if row.old_message != row.new_message:
                out.append(f"      {self.old}: {row.old_message or '(scheduled)'}")
                out.append(f"      {self.new}: {row.new_message or '(scheduled)'}")
        if len(self.pods) > most:
            out.append(f"  … and {len(self.pods) - most} more pod(s) (--json lists every one)")
        effective = [c for c in self.changes if c.explains or c.touches or c.plugins]
        if effective:
            out.append("What changed between the releases, and what it does here:")
            for change in effective:
                does = []
                if change.explains:
                    does.append(f"explains {len(change.explains)} pod(s)")
                if change.touches:
                    does.append(f"moves {len(change.touches)} more")
                if change.plugins:
                    does.append(f"the scores of {', '.join(sorted({p.split(':')[0] for p in change.plugins}))}")
                out.append(f"  {change.name}: {change.sentence} — {'; '.join(does)}")
        quiet = [c.name for c in self.changes if c.checked and not (c.explains or c.touches or c.plugins)]
        if quiet:
            out.append(f"No effect on this cluster: {', '.join(quiet)}")
        unchecked = [c.name for c in self.changes if not c.checked and c.refused is None]
        if unchecked:
            out.append(f"Not run (the cluster has no resource claims or devices): {', '.join(unchecked)}")
        for change in self.changes:
            if change.refused is not None:
                out.append(f"Not run: {change.name} put back, {self.new} refuses this cluster: {change.refused}")
        return out


class UpgradeCounts(Wire, kw_only=True):
    """An upgrade's effect in numbers, as its summary counts it (a fleet check's row)."""

    elsewhere: int  # pods that land on another node
    more_pending: int  # pods left Pending after the upgrade that were not before (negative: fewer)
    rescored: int  # pods whose weighted scores differ
    reworded: int  # pending pods with another FailedScheduling message
    causes: list[str] = []  # the release changes that explain or move something here, in the changes' order


def upgrade_counts(comparison: UpgradeComparison) -> UpgradeCounts:
    """The numbers behind ``comparison.summary`` and the changes that do something on this cluster."""
    counts = _counts(comparison.pods)
    counts.causes = [c.name for c in comparison.changes if c.explains or c.touches or c.plugins]
    return counts


def compare_releases(
    scenario: Scenario,
    old: Release,
    new: Release,
    run: Runner,
    *,
    gates: Optional[dict[str, bool]] = None,
    progress: Optional[Progress] = None,
) -> UpgradeComparison:
    """``scenario`` run to the end (``run``) under ``old`` and ``new``, compared, with causes."""
    old_rules, new_rules = rules_for(old, gates), rules_for(new, gates)
    switches = switches_between(old_rules, new_rules)
    relevant = [s for s in switches if _may_matter(scenario, s)]
    total = 2 + len(relevant)
    a = read_side(run(_as(scenario, old_rules)))
    _say(progress, 1, total, old_rules.name)
    b = read_side(run(_as(scenario, new_rules)))
    _say(progress, 2, total, new_rules.name)
    comparison = compare_sides(a, b)
    rows = _differences(a, b)
    effects: list[SwitchEffect] = []
    for done, switch in enumerate(switches, start=3):
        if switch not in relevant:
            effects.append(_effect(switch, checked=False))
            continue
        try:
            reverted = read_side(run(_as(scenario, with_switch(new_rules, switch, switch.old))))
        except ScenarioInvalid as refused:  # the change is what lets the newer release take these objects
            effects.append(_refused(switch, refused))
            continue
        finally:
            _say(progress, min(done, total), total, f"{new_rules.name} without {switch.name}")
        effects.append(_attribute(switch, rows, a, b, reverted))
    for row in rows:
        row.causes = [e.name for e in effects if row.pod in e.explains]
        if row.causes:
            continue
        for plugin in row.plugins:
            found = [e.name for e in effects if f"{plugin}: {row.pod}" in e.plugins]
            if found:
                row.plugin_causes[plugin] = found
        if row.old_node != row.new_node or row.old_message != row.new_message or not row.plugin_causes:
            row.touched_by = [e.name for e in effects if row.pod in e.touches]
    return UpgradeComparison(
        old=old_rules.name,
        new=new_rules.name,
        summary=_summary(rows, comparison),
        pods=rows,
        changes=effects,
        comparison=comparison,
    )


def _say(progress: Optional[Progress], done: int, total: int, what: str) -> None:
    if progress is not None:
        progress(done, total, what)


def _as(scenario: Scenario, rules: Rules) -> Scenario:
    """The scenario replayed with ``rules`` (the choice says it was asked for), its DRA objects as
    that release's API server stores them; ScenarioInvalid where that release keeps a field of a
    feature SchedLab does not replay (scenario/dra.py replayed_as)."""
    choice = ReleaseChoice(rules, ReleaseSource.ASKED, scenario.release.evidence, scenario.release.reported)
    return replayed_as(scenario, choice)


def _may_matter(scenario: Scenario, switch: Switch) -> bool:
    if switch.kind == "gate" and switch.name.startswith(_DRA_ONLY_PREFIXES):
        dra = scenario.dra
        return bool(dra.claims or dra.slices or dra.templates or any(p.resource_claims for p in scenario.pods))
    if switch.kind == "code" and switch.name.startswith(_DECLARED_FEATURES_ONLY_PREFIX):
        # the plugin's reason and inference: only a pod needing a node feature can tell them apart
        return any(required_features(p) for p in scenario.pods)
    return True


def _outcome(side: RunSide, pod: str) -> Outcome:
    attempt = side.last_attempt(pod)
    node = side.final.get(pod)
    message = (attempt.failed_scheduling_message or "") if attempt is not None and node is None else ""
    return node, message, side.weighted.get(pod, {})


def _differences(a: RunSide, b: RunSide) -> list[PodUpgrade]:
    rows = []
    for pod in sorted(set(a.final) | set(b.final)):
        old, new = _outcome(a, pod), _outcome(b, pod)
        plugins = _plugins_differing(old[2], new[2])
        if old[0] == new[0] and old[1] == new[1] and not plugins:
            continue
        rows.append(
            PodUpgrade(
                pod=pod,
                old_node=old[0],
                new_node=new[0],
                old_message=old[1] or None,
                new_message=new[1] or None,
                plugins=plugins,
            )
        )
    return rows


def _plugins_differing(old: dict[str, dict[str, int]], new: dict[str, dict[str, int]]) -> list[str]:
    return sorted(plugin for plugin in set(old) | set(new) if old.get(plugin) != new.get(plugin))


def _effect(switch: Switch, checked: bool = True) -> SwitchEffect:
    return SwitchEffect(kind=switch.kind, name=switch.name, sentence=switch.sentence(), checked=checked)


def _refused(switch: Switch, refused: ScenarioInvalid) -> SwitchEffect:
    """A change the newer release cannot be run without on this cluster: the first problem said."""
    first = refused.errors[0]
    where = f"{first.object}: {first.path}: " if first.path else f"{first.object}: "
    more = f" (and {len(refused.errors) - 1} more)" if len(refused.errors) > 1 else ""
    effect = _effect(switch, checked=False)
    effect.refused = f"{where}{first.message}{more}"
    return effect


def _attribute(switch: Switch, rows: list[PodUpgrade], a: RunSide, b: RunSide, reverted: RunSide) -> SwitchEffect:
    """What putting ``switch`` back to the older value in the newer run does to each difference."""
    effect = _effect(switch)
    for row in rows:
        old, new, back = _outcome(a, row.pod), _outcome(b, row.pod), _outcome(reverted, row.pod)
        if back == old:
            effect.explains.append(row.pod)
        elif back != new:
            effect.touches.append(row.pod)
        for plugin in row.plugins:
            if back[2].get(plugin) == old[2].get(plugin):
                effect.plugins.append(f"{plugin}: {row.pod}")
    return effect


def _counts(rows: list[PodUpgrade]) -> UpgradeCounts:
    landed = [r for r in rows if r.old_node != r.new_node]
    return UpgradeCounts(
        elsewhere=sum(1 for r in landed if r.old_node and r.new_node),
        more_pending=sum(1 for r in landed if r.new_node is None) - sum(1 for r in landed if r.old_node is None),
        rescored=sum(1 for r in rows if r.plugins),
        reworded=sum(1 for r in rows if r.old_node == r.new_node and r.old_message != r.new_message),
    )


def _summary(rows: list[PodUpgrade], comparison: dict[str, object]) -> str:
    if not rows:
        return "nothing changes on this cluster: every pod ends where it did, with the same scores and messages."
    counts = _counts(rows)
    elsewhere, pending, rescored, reworded = counts.elsewhere, counts.more_pending, counts.rescored, counts.reworded
    parts = []
    if elsewhere:
        parts.append(f"{elsewhere} pod(s) land elsewhere")
    if pending:
        parts.append(f"{abs(pending)} {'more' if pending > 0 else 'fewer'} stay Pending")
    if rescored:
        parts.append(f"{rescored} pod(s) scored differently")
    if reworded:
        parts.append(f"{reworded} pending pod(s) with another FailedScheduling message")
    return "; ".join(p for p in parts if p) + "."
