"""scheduler_core.util.fastpickle: frozen slotted dataclasses written as their fields' values and read
back by ``pickle.load`` as the dataclasses module's own pickling has them; everything else as pickle does."""

from __future__ import annotations

import io
import pickle
from dataclasses import dataclass, field
from pathlib import Path

from scheduler_core.scenario.loader import load_scenario
from scheduler_core.util import fastpickle

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"


@dataclass(frozen=True, slots=True)
class Base:
    name: str
    labels: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Derived(Base):
    count: int = 0
    seen: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class One:
    value: object


@dataclass(frozen=True, slots=True)
class Empty:
    pass


@dataclass(slots=True)
class Open:  # not frozen: pickle's own way
    items: list[int]


def _round_trip(value: object) -> object:
    out = io.BytesIO()
    fastpickle.dump(value, out)
    return pickle.loads(out.getvalue())


def test_frozen_slotted_records_come_back_equal_with_their_shared_parts_shared():
    shared = {"zone": "a"}
    value = [Derived("a", shared, 3, frozenset({"x"})), Base("b", shared), One(One(None)), Empty(), Open([1, 2])]
    back = _round_trip(value)
    assert back == value
    assert back[0].labels is back[1].labels  # the memo still shares what was shared
    assert type(back[0]) is Derived and type(back[2].value) is One


def test_what_the_dataclasses_module_pickled_is_read_the_same_way():
    value = Derived("a", {"k": "v"}, 2)
    assert pickle.loads(pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)) == _round_trip(value) == value


def test_a_loaded_scenario_comes_back_as_a_plain_pickle_brings_it_back():
    scenario = load_scenario((EXAMPLES / "topology_spread.yaml").read_text())
    plain = pickle.loads(pickle.dumps(scenario, protocol=pickle.HIGHEST_PROTOCOL))
    back = _round_trip(scenario)
    assert back is not scenario
    # Compared as pickles: a round trip (either way) loses only which equal strings were one object.
    assert pickle.dumps(back, protocol=pickle.HIGHEST_PROTOCOL) == pickle.dumps(plain, protocol=pickle.HIGHEST_PROTOCOL)
    assert [pod.name for pod in back.pods] == [pod.name for pod in scenario.pods]
