"""Strict field validation, as the API server's (kubectl's default): every key of an object the
loader reads must be a field its kind's API type has (scenario/api_fields.py, generated from the
Go types of every supported release).

A key no supported release knows is an error, worded as the API server's strict decoding says it
(``unknown field "spec.nodeSelectr"``). A key only some releases know is kept aside
(``ReleaseField``): once the release replayed is chosen, those its API server does not know are
named in one notice (that API server would drop them), not refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Optional, Union

from scheduler_core.scenario.api_fields import ALL, RELEASES, ROOTS, STRUCTS
from scheduler_core.scenario.fields import Field
from scheduler_core.scenario.yamltree import YList, YMap

_Chain = Optional[tuple[Any, Union[str, int]]]  # (parent chain, key): a path written out only when needed


@dataclass(frozen=True, slots=True)
class ReleaseField:
    """A field only some releases know: ``releases`` a mask of api_fields.RELEASES' bits."""

    object: str
    path: str
    releases: int


# Per struct, the fields every supported release knows -> the id of their value's type ("" for a
# leaf: the common case is one lookup); the fields only some releases know -> (id, releases).
_ALL_KNOW = {
    type_id: {key: child for key, (child, releases) in fields.items() if releases == ALL}
    for type_id, fields in STRUCTS.items()
}
_SOME_KNOW = {
    type_id: {key: known for key, known in fields.items() if known[1] != ALL} for type_id, fields in STRUCTS.items()
}


# A pod's spec (pods.frozen_spec) -> the fields in it only some releases know (path, releases): a spec
# checked once without an unknown field, for the pods written with the same one.
SpecFields = dict[Any, tuple[tuple[str, int], ...]]


def check_pod_fields(
    obj: Field, api_version: str, partial: list[ReleaseField], key: Optional[Any], checked: SpecFields
) -> None:
    """check_fields for a Pod, its spec walked once per distinct spec (``key``, None: always walked):
    a 5,000-node benchmark holds 25,000 pods of a few templates."""
    try:
        known = checked.get(key) if key is not None else None
    except TypeError:  # a value that cannot be a key (none that YAML or JSON writes)
        key = known = None
    if known is not None:
        check_fields(obj, api_version, "Pod", partial, skip_spec=True)
        partial.extend(ReleaseField(obj.ctx.object, path, releases) for path, releases in known)
        return
    errors, start = len(obj.ctx.errors), len(partial)
    check_fields(obj, api_version, "Pod", partial)
    if key is not None and len(obj.ctx.errors) == errors:
        checked[key] = tuple((f.path, f.releases) for f in partial[start:] if f.path.startswith("spec."))


def check_fields(obj: Field, api_version: str, kind: str, partial: list[ReleaseField], skip_spec: bool = False) -> None:
    """Errors (on ``obj``'s context) for the keys of ``obj`` no supported release knows; the keys only
    some releases know go to ``partial``. A value of the wrong type is left to the decoders.
    ``skip_spec``: the object's spec is not walked (check_pod_fields)."""
    root = ROOTS.get((api_version, kind))
    if root is None:
        return
    all_know = _ALL_KNOW
    stack: list[tuple[Any, str, _Chain]] = [(obj.value, root[0], None)]
    pop, push = stack.pop, stack.append
    while stack:
        value, type_id, chain = pop()
        shape = type_id[0]
        if shape == "S":
            if type(value) is not YMap:
                continue
            get = all_know[type_id].get
            for key, child in value.items():
                child_id = get(key)
                if child_id:
                    if chain is None and skip_spec and key == "spec":
                        continue
                    push((child, child_id, (chain, key)))
                elif child_id is None:  # rare: a field some releases know, or none
                    _other(obj, value, type_id, (chain, key), key, push, partial)
        elif shape == "L":
            if type(value) is YList:
                element = type_id[2:]
                for index, item in enumerate(value):
                    push((item, element, (chain, index)))
        elif type(value) is YMap:  # "M": free keys
            element = type_id[2:]
            for key, item in value.items():
                push((item, element, (chain, key)))


def check_written(body: Field, kind: str, api_version: str = "") -> None:
    """Errors for the fields no supported release knows in an object or JSON merge patch a Changes
    step writes (``body``, a mapping of ``kind``: its paths start at ``body``'s); ``api_version``
    unsaid: the kind's first in the table. Kinds without a table are not checked."""
    if not api_version:
        api_version = next((version for version, named in ROOTS if named == kind), "")
    check_fields(body, api_version, kind, [])


def _other(
    obj: Field,
    value: YMap,
    type_id: str,
    chain: _Chain,
    key: str,
    push: Callable[[tuple[Any, str, _Chain]], None],
    partial: list[ReleaseField],
) -> None:
    path = _path(chain)
    known = _SOME_KNOW[type_id].get(key)
    if known is None:
        base = obj.path
        obj.ctx.error(f"{base}.{path}" if base else path, value.lines.get(key, value.line), f'unknown field "{path}"')
        return
    child_id, releases = known
    partial.append(ReleaseField(obj.ctx.object, path, releases))
    if child_id:
        push((value[key], child_id, chain))


def _path(chain: _Chain) -> str:
    keys: list[Union[str, int]] = []
    while chain is not None:
        chain, key = chain
        keys.append(key)
    path = ""
    for key in reversed(keys):
        path = f"{path}[{key}]" if isinstance(key, int) else (f"{path}.{key}" if path else key)
    return path


def unknown_to(release: str, partial: list[ReleaseField]) -> list[ReleaseField]:
    """The fields of ``partial`` the API server of ``release`` (``v1.36``) does not know."""
    if release not in RELEASES:
        return []
    bit = 1 << RELEASES.index(release)
    return [found for found in partial if not found.releases & bit]


def releases_of(mask: int) -> str:
    """``v1.35, v1.36``: the releases of a mask."""
    return ", ".join(name for bit, name in enumerate(RELEASES) if mask & 1 << bit)
