"""PodTopologySpreadArgs: v1 defaulting and validation (apis/config/v1 + validation_pluginargs.go).

``defaultingType`` defaults to ``System``: the plugin then uses the system default constraints
(hostname maxSkew 3 and zone maxSkew 5, both ScheduleAnyway) and ``defaultConstraints`` must be
empty. ``List`` uses ``defaultConstraints`` as given; those may not carry a ``labelSelector``
because the selector is deduced per pod from its Services and controller.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Mapping, Optional

from scheduler_core.framework.args_errors import ArgsError, ArgsProblem
from scheduler_core.model import (
    LABEL_HOSTNAME,
    LABEL_ZONE,
    LabelSelector,
    LabelSelectorRequirement,
    TopologySpreadConstraint,
)

SYSTEM_DEFAULTING = "System"
LIST_DEFAULTING = "List"

DO_NOT_SCHEDULE = "DoNotSchedule"
SCHEDULE_ANYWAY = "ScheduleAnyway"

# plugin.go's systemDefaultConstraints, in its order.
SYSTEM_DEFAULT_CONSTRAINTS: tuple[TopologySpreadConstraint, ...] = (
    TopologySpreadConstraint(max_skew=3, topology_key=LABEL_HOSTNAME, when_unsatisfiable=SCHEDULE_ANYWAY),
    TopologySpreadConstraint(max_skew=5, topology_key=LABEL_ZONE, when_unsatisfiable=SCHEDULE_ANYWAY),
)

_ARGS_FIELDS = {"apiVersion", "kind", "defaultingType", "defaultConstraints"}
_CONSTRAINT_FIELDS = {
    "maxSkew",
    "topologyKey",
    "whenUnsatisfiable",
    "labelSelector",
    "minDomains",
    "nodeAffinityPolicy",
    "nodeTaintsPolicy",
    "matchLabelKeys",
}

# metav1validation.ValidateLabelName: an optional DNS-subdomain prefix and a qualified name.
_NAME_RE = re.compile(r"^([A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?)$")
_SUBDOMAIN_RE = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


@dataclass(frozen=True)
class PodTopologySpreadArgs:
    defaulting_type: str = SYSTEM_DEFAULTING
    default_constraints: tuple[TopologySpreadConstraint, ...] = ()

    @classmethod
    def parse(cls, raw: Optional[Mapping[str, Any]]) -> "PodTopologySpreadArgs":
        raw = raw or {}
        problems: list[ArgsProblem] = []
        problems.extend(ArgsProblem(key, f'unknown field "{key}"') for key in raw if key not in _ARGS_FIELDS)
        defaulting_type = raw.get("defaultingType") or SYSTEM_DEFAULTING  # SetDefaults_PodTopologySpreadArgs
        constraints = _parse_constraints(raw.get("defaultConstraints"), problems)
        args = cls(str(defaulting_type), constraints)
        problems.extend(args.validate())
        if problems:
            raise ArgsError(problems)
        return args

    @property
    def system_defaulted(self) -> bool:
        return self.defaulting_type == SYSTEM_DEFAULTING

    @property
    def effective_default_constraints(self) -> tuple[TopologySpreadConstraint, ...]:
        return SYSTEM_DEFAULT_CONSTRAINTS if self.system_defaulted else self.default_constraints

    def validate(self) -> list[ArgsProblem]:
        """ValidatePodTopologySpreadArgs: every problem, with its field path."""
        problems: list[ArgsProblem] = []
        if self.defaulting_type not in (SYSTEM_DEFAULTING, LIST_DEFAULTING):
            problems.append(
                ArgsProblem(
                    "defaultingType", f'Unsupported value: "{self.defaulting_type}": supported values: "System", "List"'
                )
            )
        elif self.defaulting_type == SYSTEM_DEFAULTING and self.default_constraints:
            problems.append(
                ArgsProblem("defaultingType", 'Invalid value: "System": when .defaultConstraints are not empty')
            )
        for index, constraint in enumerate(self.default_constraints):
            problems.extend(_validate_constraint(index, constraint, self.default_constraints[:index]))
        return problems


def _validate_constraint(
    index: int, c: TopologySpreadConstraint, earlier: tuple[TopologySpreadConstraint, ...]
) -> list[ArgsProblem]:
    path = f"defaultConstraints[{index}]"
    problems: list[ArgsProblem] = []
    if c.max_skew <= 0:
        problems.append(ArgsProblem(f"{path}.maxSkew", f"Invalid value: {c.max_skew}: not in valid range (0, inf)"))
    problems.extend(_validate_topology_key(f"{path}.topologyKey", c.topology_key))
    if not c.when_unsatisfiable:
        problems.append(ArgsProblem(f"{path}.whenUnsatisfiable", "Required value: can not be empty"))
    elif c.when_unsatisfiable not in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY):
        problems.append(
            ArgsProblem(
                f"{path}.whenUnsatisfiable",
                f'Unsupported value: "{c.when_unsatisfiable}": supported values: "DoNotSchedule", "ScheduleAnyway"',
            )
        )
    if c.label_selector is not None:
        problems.append(
            ArgsProblem(
                f"{path}.labelSelector",
                "Forbidden: constraint must not define a selector, as they deduced for each pod",
            )
        )
    if any(o.topology_key == c.topology_key and o.when_unsatisfiable == c.when_unsatisfiable for o in earlier):
        problems.append(ArgsProblem(path, f'Duplicate value: "{{{c.topology_key}, {c.when_unsatisfiable}}}"'))
    return problems


def _validate_topology_key(path: str, key: str) -> list[ArgsProblem]:
    if not key:
        return [ArgsProblem(path, "Required value: can not be empty")]
    prefix, _, name = key.rpartition("/")
    if key.count("/") > 1 or (("/" in key) and not prefix):
        return [
            ArgsProblem(
                path,
                f'Invalid value: "{key}": a qualified name must consist of alphanumeric '
                "characters, '-', '_' or '.', and must start and end with an alphanumeric "
                "character with an optional DNS subdomain prefix and '/'",
            )
        ]
    problems = []
    if prefix and (len(prefix) > 253 or not _SUBDOMAIN_RE.match(prefix)):
        problems.append(ArgsProblem(path, f'Invalid value: "{key}": prefix part must be a valid DNS subdomain'))
    if not name or len(name) > 63 or not _NAME_RE.match(name):
        problems.append(
            ArgsProblem(
                path,
                f'Invalid value: "{key}": name part must consist of alphanumeric '
                "characters, '-', '_' or '.', and must start and end with an "
                "alphanumeric character (at most 63 characters)",
            )
        )
    return problems


# ---------------------------------------------------------------------------- raw mapping -> model


def _parse_constraints(raw: Any, problems: list[ArgsProblem]) -> tuple[TopologySpreadConstraint, ...]:
    if raw is None:
        return ()
    if not isinstance(raw, list):
        problems.append(ArgsProblem("defaultConstraints", "Invalid value: must be a list"))
        return ()
    parsed = []
    for index, item in enumerate(raw):
        constraint = _parse_constraint(f"defaultConstraints[{index}]", item, problems)
        if constraint is not None:
            parsed.append(constraint)
    return tuple(parsed)


def _parse_constraint(path: str, raw: Any, problems: list[ArgsProblem]) -> Optional[TopologySpreadConstraint]:
    if not isinstance(raw, Mapping):
        problems.append(ArgsProblem(path, "Invalid value: must be an object"))
        return None
    problems.extend(
        ArgsProblem(f"{path}.{key}", f'unknown field "{key}"') for key in raw if key not in _CONSTRAINT_FIELDS
    )
    max_skew = _int_field(raw, "maxSkew", 0, f"{path}.maxSkew", problems)
    min_domains = _int_field(raw, "minDomains", None, f"{path}.minDomains", problems)
    return TopologySpreadConstraint(
        max_skew=max_skew if max_skew is not None else 0,
        topology_key=str(raw.get("topologyKey") or ""),
        when_unsatisfiable=str(raw.get("whenUnsatisfiable") or ""),
        label_selector=_parse_selector(raw.get("labelSelector")),
        min_domains=min_domains,
        node_affinity_policy=raw.get("nodeAffinityPolicy"),
        node_taints_policy=raw.get("nodeTaintsPolicy"),
        match_label_keys=tuple(str(k) for k in raw.get("matchLabelKeys") or ()),
    )


def _int_field(
    raw: Mapping[str, Any], key: str, default: Optional[int], path: str, problems: list[ArgsProblem]
) -> Optional[int]:
    value = raw.get(key, default)
    if value is None or (isinstance(value, int) and not isinstance(value, bool)):
        return value
    problems.append(ArgsProblem(path, f"Invalid value: {value!r}: must be an integer"))
    return default


def _parse_selector(raw: Any) -> Optional[LabelSelector]:
    """Only its presence matters (it is forbidden); parsed loosely so the error names the field."""
    if raw is None:
        return None
    if not isinstance(raw, Mapping):
        return LabelSelector()
    labels = tuple(sorted((str(k), str(v)) for k, v in (raw.get("matchLabels") or {}).items()))
    expressions = tuple(
        LabelSelectorRequirement(
            str(e.get("key", "")), str(e.get("operator", "")), tuple(str(v) for v in e.get("values") or ())
        )
        for e in raw.get("matchExpressions") or ()
        if isinstance(e, Mapping)
    )
    return LabelSelector(labels, expressions)
