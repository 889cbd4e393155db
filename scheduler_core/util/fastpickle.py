"""Pickling the engine's frozen, slotted dataclasses without ``dataclasses.fields`` per object.

A frozen dataclass with ``slots=True`` gets ``__getstate__``/``__setstate__`` from the dataclasses
module, and both call ``dataclasses.fields(self)`` for every object: pickling a loaded 5,000-node,
40,000-pod scenario (the app's cache of loaded scenarios, webui/services/loaded_cache.py) spent
two thirds of its time there, and reading it back half. Here each class's field names are found
once: its objects are written as the same list of field values (by one ``attrgetter``) and read
back by the slots' own descriptors (which a frozen class's ``__setattr__`` does not stand in front
of). Every other object is pickled as ``pickle`` does it.
"""

from __future__ import annotations

import copyreg
import dataclasses
import operator
import pickle
from collections.abc import Callable
from typing import IO, Any

_SLOW_GETSTATE = getattr(dataclasses, "_dataclass_getstate", None)
_NOT_OURS: Any = NotImplemented
# What pickle writes as NEWOBJ (the class's __new__, no __init__): copyreg's marker, untyped in typeshed.
_NEW_OBJECT: Callable[..., Any] = copyreg.__newobj__  # type: ignore[attr-defined]

_getters: dict[type, Callable[[Any], tuple[Any, ...]]] = {}
_setters: dict[type, tuple[Callable[[Any, Any], None], ...]] = {}


def dump(value: Any, file: IO[bytes]) -> None:
    """``pickle.dump(value, file, protocol=pickle.HIGHEST_PROTOCOL)``, faster for our records;
    ``pickle.load`` reads it."""
    _Pickler(file, protocol=pickle.HIGHEST_PROTOCOL).dump(value)


class _Pickler(pickle.Pickler):
    # Called for every object but None, booleans and exact ints, floats, bytes, strs, dicts, sets,
    # frozensets, lists and tuples.
    def reducer_override(self, obj: Any) -> Any:
        kind = type(obj)
        get = _getters.get(kind)
        if get is None:
            if getattr(kind, "__getstate__", None) is not _SLOW_GETSTATE or _SLOW_GETSTATE is None:
                return _NOT_OURS
            get = _getters[kind] = _getter(kind)
        return _NEW_OBJECT, (kind,), get(obj), None, None, _set_state


def _getter(kind: type) -> Callable[[Any], tuple[Any, ...]]:
    names = [field.name for field in dataclasses.fields(kind)]
    if not names:
        return lambda obj: ()
    get = operator.attrgetter(*names)
    return get if len(names) > 1 else lambda obj: (get(obj),)


def _set_state(obj: Any, state: Any) -> None:
    """The fields of ``obj`` from their values in declaration order (what ``_getter`` wrote, or the
    dataclasses module's own list)."""
    kind = type(obj)
    setters = _setters.get(kind)
    if setters is None:
        setters = _setters[kind] = tuple(_slot(kind, field.name).__set__ for field in dataclasses.fields(kind))
    for set_field, value in zip(setters, state):
        set_field(obj, value)


def _slot(kind: type, name: str) -> Any:
    """The slot's descriptor, from the class that declared it."""
    for base in kind.__mro__:
        if name in base.__dict__:
            return base.__dict__[name]
    raise AttributeError(f"{kind.__name__} has no slot {name!r}")
