"""Which release a run is replayed as (issue 48): what a user asks for — a supported release and
kube-scheduler's --feature-gates, or "as the dump says" — carried by the run (never written into the
scenario's text) to the engine's loader, and the choice the engine makes of it (services/engine.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from webui.models import Run
from webui.services import engine
from webui.services.errors import ReleaseInvalid


@dataclass(frozen=True)
class Asked:
    """A release by name ("" = as the dump says) and --feature-gates (None = the release's defaults,
    or those of the dump's kube-scheduler)."""

    release: str = ""
    gates: dict[str, bool] | None = None

    @property
    def request(self) -> engine.ReleaseRequest:
        return engine.ReleaseRequest(engine.asked_release(self.release) if self.release else None, self.gates)

    @property
    def is_asked(self) -> bool:
        return bool(self.release) or self.gates is not None


AS_THE_DUMP_SAYS = Asked()


MAX_GATES_CHARS = 4000  # --feature-gates as text
MAX_GATES = 100  # gates named at once (the releases' kube-schedulers read fewer than 50)


def asked(release: str | None = None, gates: str | dict[str, bool] | None = None) -> Asked:
    """What the API was given, read as the CLI reads --release and --feature-gates; ReleaseInvalid
    (400, naming the field and each problem) when a name or a gate does not read."""
    if isinstance(gates, str) and len(gates) > MAX_GATES_CHARS:
        raise ReleaseInvalid("featureGates", [f"longer than {MAX_GATES_CHARS} characters"])
    if isinstance(gates, dict) and len(gates) > MAX_GATES:
        raise ReleaseInvalid("featureGates", [f"more than {MAX_GATES} gates"])
    request = engine.release_request(release, gates)
    return Asked(request.release.name if request.release is not None else "", _gates(request))


def _gates(request: engine.ReleaseRequest) -> dict[str, bool] | None:
    return dict(request.gates) if request.gates is not None else None


def of_run(run: Run) -> Asked:
    """What the run asked for (its stored release and gates)."""
    return Asked(run.release, run.feature_gates)


def request_of(run: Run) -> engine.ReleaseRequest:
    """The loader's request for a run: every engine call that replays the run loads it so."""
    return of_run(run).request


def choice(text: str, wanted: Asked) -> dict[str, Any]:
    """The release ``text`` is replayed as with ``wanted`` and why (ReleaseChoice.to_json()), the
    dump's evidence weighed again; ReleaseInvalid when that release refuses the gates. The text
    must load (callers check it first)."""
    return engine.release_choice(engine.load_valid(text), wanted.request)


def checked(text: str, wanted: Asked) -> engine.Check:
    """The check of ``text`` replayed as ``wanted`` (the loader reads it under that release):
    its gates refused by that release are a 400 (release_invalid) before anything is loaded again."""
    plain = engine.check(text)
    if not wanted.is_asked or not plain.valid:
        return plain
    choice(text, wanted)  # ReleaseInvalid naming the release, rather than a problem of the text
    return engine.check(text, wanted.request)
