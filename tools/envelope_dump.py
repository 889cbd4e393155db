"""Big realistic clusters from small real ones: N renamed copies of dumps (a development tool, issue 50).

    .venv/bin/python tools/envelope_dump.py DUMP [DUMP ...] --copies 500 --out big.yaml [--json]

Each copy of the dumps' objects gets a suffix (``-c0007``) on every object's name and on every
reference to one: a pod's node, owners (in the dump or not), claims and volumes, a claim's pod, a PersistentVolume's claim,
a node's hostname label (the one label that names its object). Labels, namespaces and classes
(PriorityClass, StorageClass, DeviceClass, RuntimeClass, IngressClass, the scheduler's
configuration) are shared: written once, so spread constraints, affinities and budgets see the
pods of every copy, as one big cluster's workloads would. UIDs get the copy's number, so no two
objects share one. The same arguments always write the same bytes.

``--json`` writes what ``kubectl get -A -o json`` writes (one ``v1`` List); YAML is a stream of
documents, as the dumps' own. The bench the issue asks for reads these through the app's path.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import yaml

# Kinds written once, whatever the number of copies: everything else is copied.
SHARED_KINDS = frozenset(
    {
        "Namespace",
        "PriorityClass",
        "StorageClass",
        "DeviceClass",
        "RuntimeClass",
        "IngressClass",
        "CSIDriver",
        "KubeSchedulerConfiguration",
    }
)
# Keys whose string values name another object (a reference renamed with it). Labels, selectors
# and annotations are left as they are: shared by the copies.
REFERENCE_KEYS = frozenset(
    {
        "name",
        "nodeName",
        "nominatedNodeName",
        "claimName",
        "resourceClaimName",
        "resourceClaimTemplateName",
        "volumeName",
        "persistentVolumeName",
        "kubernetes.io/hostname",
    }
)
NOT_REFERENCES = frozenset({"labels", "annotations", "matchLabels", "selector", "nodeSelector", "managedFields"})


def documents(paths: Iterable[Path]) -> Iterator[dict[str, Any]]:
    """Every object of the dumps, a ``kind: List``'s items one by one, in the files' order."""
    for path in paths:
        for doc in yaml.safe_load_all(path.read_text()):
            if not isinstance(doc, dict):
                continue
            if doc.get("kind", "").endswith("List") and isinstance(doc.get("items"), list):
                yield from (item for item in doc["items"] if isinstance(item, dict))
            else:
                yield doc


def copied_names(objects: list[dict[str, Any]]) -> set[str]:
    """The names a copy renames: those of every copied object."""
    return {
        str(obj.get("metadata", {}).get("name"))
        for obj in objects
        if obj.get("kind") not in SHARED_KINDS and obj.get("metadata", {}).get("name")
    }


def renamed(value: Any, names: set[str], suffix: str, key: str = "") -> Any:
    """``value`` with every reference to a copied object given ``suffix``, and uids made the copy's."""
    if isinstance(value, dict):
        if key in NOT_REFERENCES:
            kept = dict(value)
            host = kept.get("kubernetes.io/hostname")
            if key == "labels" and isinstance(host, str) and host in names:
                kept["kubernetes.io/hostname"] = host + suffix  # a node's own name, as a label
            return kept
        return {k: renamed(v, names, suffix, k) for k, v in value.items()}
    if isinstance(value, list):
        if key == "ownerReferences":  # an owner is its copy's, in the dump or not (a Job's CronJob)
            return [{**ref, "name": f"{ref['name']}{suffix}"} if "name" in ref else ref for ref in value]
        return [renamed(item, names, suffix, key) for item in value]
    if isinstance(value, str):
        if key == "uid":
            return f"{value}{suffix}"
        if key in REFERENCE_KEYS and value in names:
            return value + suffix
    return value


def envelope(objects: list[dict[str, Any]], copies: int) -> list[dict[str, Any]]:
    """The shared objects once, then each copy's objects, copy by copy."""
    shared = [obj for obj in objects if obj.get("kind") in SHARED_KINDS]
    copied = [obj for obj in objects if obj.get("kind") not in SHARED_KINDS]
    names = copied_names(objects)
    out = list(shared)
    for index in range(copies):
        suffix = f"-c{index:04d}"
        out.extend(renamed(obj, names, suffix) for obj in copied)
    return out


def write(objects: list[dict[str, Any]], as_json: bool, out: Any) -> None:
    if as_json:
        json.dump({"apiVersion": "v1", "kind": "List", "items": objects, "metadata": {}}, out, indent=4)
        out.write("\n")
        return
    yaml.dump_all(objects, out, Dumper=yaml.CSafeDumper, sort_keys=False, default_flow_style=False)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("dumps", nargs="+", type=Path)
    parser.add_argument("--copies", type=int, required=True)
    parser.add_argument("--out", type=Path, help="the file to write (default: standard output)")
    parser.add_argument("--json", action="store_true", help="one kubectl-style List as JSON (default: YAML)")
    args = parser.parse_args(argv)
    if args.copies < 1:
        parser.error("--copies must be at least 1")
    try:
        objects = envelope(list(documents(args.dumps)), args.copies)
    except (OSError, yaml.YAMLError) as err:
        print(f"error: cannot read the dumps: {err}", file=sys.stderr)
        return 2
    if args.out is None:
        write(objects, args.json, sys.stdout)
    else:
        with args.out.open("w") as out:
            write(objects, args.json, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
