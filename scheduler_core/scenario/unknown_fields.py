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


def _as_stored(structs: dict[str, dict[str, tuple[str, int]]]) -> dict[str, dict[str, tuple[str, int]]]:
    """``structs`` with each field of DRA's v1 and v1beta2 types known also to the releases that
    do not serve that version but know the field in the v1beta1 twin they store the object as (a
    v1 DeviceClass replayed as v1.32 is read as v1.32's v1beta1 DeviceClass: its fields are that
    one's). The twins differ in shape in two places: an ExactDeviceRequest's fields sit in v1beta1's
    DeviceRequest, a Device's (but its name) in BasicDevice."""
    widened = dict(structs)
    for type_id, fields in structs.items():
        package, _, name = type_id.partition(".")
        if package not in _DRA_TWINS_OF:
            continue
        twin = structs.get(_V1BETA1 + _TWIN_NAMES.get(name, name), {})
        basic = structs[_V1BETA1 + "BasicDevice"] if name == "Device" else {}
        served = _SERVED[package]
        stored = {}
        for key, (child, releases) in fields.items():
            found = (
                twin.get(key) or basic.get(key) or (_ALWAYS if (name, key) == ("DeviceRequest", "exactly") else None)
            )
            stored[key] = (child, releases | (found[1] & ~served if found is not None else 0))
        widened[type_id] = stored
    return widened


_V1BETA1 = "S:resource/v1beta1."
_DRA_TWINS_OF = ("S:resource/v1", "S:resource/v1beta2")
_TWIN_NAMES = {"ExactDeviceRequest": "DeviceRequest"}
_ALWAYS = ("", ALL)  # v1's `exactly`: its fields are v1beta1's request's own
_SERVED = {
    package: ROOTS[(f"resource.k8s.io/{package.rsplit('/', 1)[1]}", "DeviceClass")][1] for package in _DRA_TWINS_OF
}
_STORED = _as_stored(STRUCTS)

# Per struct, the fields every supported release knows -> the id of their value's type ("" for a
# leaf: the common case is one lookup); the fields only some releases know -> (id, releases).
_ALL_KNOW = {
    type_id: {key: child for key, (child, releases) in fields.items() if releases == ALL}
    for type_id, fields in _STORED.items()
}
_SOME_KNOW = {
    type_id: {key: known for key, known in fields.items() if known[1] != ALL} for type_id, fields in _STORED.items()
}


def served_by(api_version: str, kind: str) -> int:
    """The releases (a mask) whose API server serves ``kind`` at ``api_version`` (every one for a
    kind without a table)."""
    root = ROOTS.get((api_version, kind))
    return root[1] if root is not None else ALL


def served_by_all(api_version: str, kind: str) -> bool:
    return served_by(api_version, kind) == ALL


def serves(release: str, api_version: str, kind: str) -> bool:
    """Whether the API server of ``release`` (``v1.32``) serves ``kind`` at ``api_version``."""
    return release not in RELEASES or bool(served_by(api_version, kind) & 1 << RELEASES.index(release))


def versions_served(release: str, kind: str) -> list[str]:
    """The API versions of ``kind`` the API server of ``release`` serves, as the table orders them."""
    return [version for version, named in ROOTS if named == kind and serves(release, version, kind)]


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
    """The fields of ``partial`` the API server of ``release`` (``v1.36``) does not know, each
    outermost one only (a field inside one it does not know goes with it)."""
    if release not in RELEASES:
        return []
    bit = 1 << RELEASES.index(release)
    unknown: list[ReleaseField] = []
    outer: dict[str, list[str]] = {}  # object -> the paths named so far
    for found in partial:
        if found.releases & bit:
            continue
        named = outer.setdefault(found.object, [])
        if any(found.path[len(path) : len(path) + 1] in (".", "[") and found.path.startswith(path) for path in named):
            continue
        named.append(found.path)
        unknown.append(found)
    return unknown


def releases_of(mask: int) -> str:
    """``v1.35, v1.36``: the releases of a mask."""
    return ", ".join(name for bit, name in enumerate(RELEASES) if mask & 1 << bit)
