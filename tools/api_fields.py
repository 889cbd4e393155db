"""Writes scheduler_core/scenario/api_fields.py: the fields the API server knows, per kind the loader reads.

    python tools/api_fields.py [SRC] [OUT]

SRC (default /work/src) holds one Kubernetes checkout per release (v1.32 ... v1.36). For each, this
reads the Go API types (staging/src/k8s.io/api/<group>/<version>/*.go and apimachinery's meta/v1) and
follows every kind's type by its fields' json tags: embedded and ``json:",inline"`` structs add
their fields, pointers, slices and maps lead to their element's type (a map's keys are free), and
types with a JSON form of their own (resource.Quantity, intstr.IntOrString, metav1.Time, ...) or
free JSON (runtime.RawExtension, metav1.FieldsV1) are leaves. Each field keeps the releases whose
types have it (the union over every release, so one table serves them all).
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

RELEASES = ("v1.32", "v1.33", "v1.34", "v1.35", "v1.36")
META = "meta/v1"
# (apiVersion, kind) -> (package, Go type): every kind the loader reads into the model.
KINDS = {
    **{
        ("v1", kind): ("core/v1", kind)
        for kind in (
            "Namespace",
            "Node",
            "Pod",
            "Service",
            "ReplicationController",
            "PersistentVolumeClaim",
            "PersistentVolume",
        )
    },
    ("apps/v1", "ReplicaSet"): ("apps/v1", "ReplicaSet"),
    ("apps/v1", "StatefulSet"): ("apps/v1", "StatefulSet"),
    ("scheduling.k8s.io/v1", "PriorityClass"): ("scheduling/v1", "PriorityClass"),
    ("policy/v1", "PodDisruptionBudget"): ("policy/v1", "PodDisruptionBudget"),
    **{
        ("storage.k8s.io/v1", kind): ("storage/v1", kind)
        for kind in ("StorageClass", "CSINode", "CSIDriver", "CSIStorageCapacity", "VolumeAttachment")
    },
    **{
        (f"resource.k8s.io/{version}", kind): (f"resource/{version}", kind)
        for version in ("v1", "v1beta1", "v1beta2")
        for kind in ("DeviceClass", "ResourceSlice", "ResourceClaimTemplate", "ResourceClaim")
    },
}
# metav1 types read field by field; any other type of meta/v1 (Time, Duration, FieldsV1, ...) is a leaf.
META_STRUCTS = {
    "TypeMeta",
    "ObjectMeta",
    "ListMeta",
    "LabelSelector",
    "LabelSelectorRequirement",
    "OwnerReference",
    "ManagedFieldsEntry",
    "Condition",
}
SCALARS = {"string", "bool", "byte", "int", "int32", "int64", "uint", "uint32", "uint64", "float32", "float64"}
ANY = ""  # a leaf: a scalar or free JSON, not walked

_TYPE = re.compile(r"^type\s+(\w+)\s+(.+?)\s*$")
_FIELD = re.compile(r"^(?:(\w+)\s+)?([\w\.\*\[\]]+)\s*(?:`(.*)`)?\s*(?://.*)?$")
_IMPORT = re.compile(r'^\s*(?:(\w+)\s+)?"([^"]+)"')
_JSON_TAG = re.compile(r'json:"([^"]*)"')


@dataclass
class Package:
    path: str  # "core/v1"
    imports: dict[str, str] = field(default_factory=dict)  # alias -> package path ("" when not an API package)
    structs: dict[str, list[tuple[Optional[str], str, str]]] = field(default_factory=dict)  # name -> (field, type, tag)
    named: dict[str, str] = field(default_factory=dict)  # name -> underlying type expression


def _package_dir(src: Path, path: str) -> Path:
    if path == META:
        return src / "staging/src/k8s.io/apimachinery/pkg/apis/meta/v1"
    return src / "staging/src/k8s.io/api" / path


def _import_path(full: str) -> str:
    if full == "k8s.io/apimachinery/pkg/apis/meta/v1":
        return META
    if full.startswith("k8s.io/api/"):
        return full[len("k8s.io/api/") :]
    return ""


def read_package(src: Path, path: str) -> Package:
    package = Package(path)
    for file in sorted(_package_dir(src, path).glob("*.go")):
        name = file.name
        if name.endswith("_test.go") or name.startswith("zz_generated") or "generated" in name:
            continue
        _read_file(file.read_text(), package)
    return package


def _read_file(text: str, package: Package) -> None:
    lines = text.splitlines()
    i = 0
    in_import = False
    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        if stripped.startswith("import ("):
            in_import = True
        elif in_import and stripped == ")":
            in_import = False
        elif in_import or stripped.startswith("import "):
            found = _IMPORT.match(stripped[len("import ") :] if stripped.startswith("import ") else stripped)
            if found:
                alias = found.group(1) or found.group(2).rsplit("/", 1)[-1]
                package.imports[alias] = _import_path(found.group(2))
        elif line.startswith("type ") and line.rstrip().endswith("struct {"):
            name = line.split()[1]
            fields: list[tuple[Optional[str], str, str]] = []
            i += 1
            depth = 1
            while i < len(lines) and depth > 0:
                body = lines[i].split("//", 1)[0].strip() if "`" not in lines[i] else lines[i].strip()
                if not body or body.startswith("//"):
                    pass
                elif body.endswith("{"):
                    depth += 1
                elif body.startswith("}"):
                    depth -= 1
                elif depth == 1:
                    found = _FIELD.match(body)
                    if found:
                        fields.append((found.group(1), found.group(2), found.group(3) or ""))
                i += 1
            package.structs[name] = fields
            continue
        elif line.startswith("type ") and "struct{}" not in line and " interface" not in line:
            found = _TYPE.match(line)
            if found and not found.group(2).startswith("="):
                package.named[found.group(1)] = found.group(2).split("//")[0].strip()
        i += 1


class Reader:
    """One release's types: type expressions -> ids of the table (``S:pkg.Name``, ``L:<id>``, ``M:<id>``)."""

    def __init__(self, src: Path) -> None:
        self.src = src
        self.packages: dict[str, Package] = {}
        self.structs: dict[str, dict[str, str]] = {}  # struct id -> json name -> child id

    def package(self, path: str) -> Package:
        if path not in self.packages:
            self.packages[path] = read_package(self.src, path)
        return self.packages[path]

    def type_id(self, expr: str, package: Package) -> str:
        expr = expr.lstrip("*")
        if expr == "[]byte":
            return ANY  # base64 text
        if expr.startswith("[]"):
            element = self.type_id(expr[2:], package)
            return f"L:{element}" if element else ANY
        if expr.startswith("map["):
            depth = 0
            for j, char in enumerate(expr):
                depth += char == "["
                depth -= char == "]"
                if depth == 0:
                    value = self.type_id(expr[j + 1 :], package)
                    return f"M:{value}" if value else ANY
        if expr in SCALARS:
            return ANY
        if "." in expr:
            alias, name = expr.split(".", 1)
            path = package.imports.get(alias, "")
            if not path:
                return ANY
            return self.named_id(name, self.package(path))
        return self.named_id(expr, package)

    def named_id(self, name: str, package: Package) -> str:
        if package.path == META and name not in META_STRUCTS:
            return ANY
        if name in package.structs:
            struct_id = f"S:{package.path}.{name}"
            if struct_id not in self.structs:
                self.structs[struct_id] = {}  # before its fields: a type may hold itself
                self.structs[struct_id] = self.fields(name, package)
            return struct_id
        if name in package.named:
            return self.type_id(package.named[name], package)
        return ANY

    def fields(self, name: str, package: Package) -> dict[str, str]:
        out: dict[str, str] = {}
        for go_name, expr, tag in package.structs[name]:
            found = _JSON_TAG.search(tag)
            json_name = found.group(1).split(",")[0] if found else None
            options = found.group(1).split(",")[1:] if found else []
            if json_name == "-":
                continue
            if go_name is None and not json_name or "inline" in options:
                child = self.type_id(expr, package)
                if child.startswith("S:"):
                    out.update(self.structs[child])
                continue
            out[json_name or go_name or expr] = self.type_id(expr, package)
        return out


def build(src_root: Path) -> tuple[dict[tuple[str, str], tuple[str, int]], dict[str, dict[str, tuple[str, int]]]]:
    """(apiVersion, kind) -> (struct id, releases) and struct id -> field -> (child id, releases); the
    releases as a mask of RELEASES' bits."""
    roots: dict[tuple[str, str], tuple[str, int]] = {}
    table: dict[str, dict[str, tuple[str, int]]] = {}
    for bit, release in enumerate(RELEASES):
        reader = Reader(src_root / release)
        for key, (path, name) in KINDS.items():
            if not _package_dir(reader.src, path).is_dir():
                continue
            root = reader.named_id(name, reader.package(path))
            old = roots.get(key, (root, 0))
            roots[key] = (root, old[1] | 1 << bit)
        for struct_id, fields in reader.structs.items():
            known = table.setdefault(struct_id, {})
            for json_name, child in fields.items():
                old_child, mask = known.get(json_name, (child, 0))
                known[json_name] = (child or old_child, mask | 1 << bit)
    return roots, table


def _text(value: object) -> str:
    """A literal as ruff's formatter writes it (double quotes)."""
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, tuple):
        return "(" + ", ".join(_text(item) for item in value) + ")"
    return repr(value)


def render(roots: dict[tuple[str, str], tuple[str, int]], table: dict[str, dict[str, tuple[str, int]]]) -> str:
    out = [
        '"""The fields the API server knows, for every kind the loader reads: GENERATED, do not edit.',
        "",
        "Made by tools/api_fields.py from the Go API types of Kubernetes " + ", ".join(RELEASES) + " (their",
        "staging/src/k8s.io/api and apimachinery meta/v1 types.go, by json tags). ROOTS: (apiVersion, kind) ->",
        "(struct id, releases); STRUCTS: struct id -> json field -> (child id, releases). A child id is",
        '"S:<package>.<Type>" (a struct), "L:<id>" (a list of), "M:<id>" (a map with free keys, values of),',
        'or "" (a scalar or free JSON: not walked). Releases are a mask of RELEASES\' bits.',
        '"""',
        "",
        "from __future__ import annotations",
        "",
        f"RELEASES = {_text(RELEASES)}",
        f"ALL = {(1 << len(RELEASES)) - 1}",
        "",
        "ROOTS: dict[tuple[str, str], tuple[str, int]] = {",
    ]
    out += [f"    {_text(key)}: {_text(value)}," for key, value in sorted(roots.items())]
    out += ["}", "", "STRUCTS: dict[str, dict[str, tuple[str, int]]] = {"]
    for struct_id in sorted(table):
        out.append(f"    {_text(struct_id)}: {{")
        out += [f"        {_text(name)}: {_text(value)}," for name, value in sorted(table[struct_id].items())]
        out.append("    },")
    out += ["}", ""]
    return "\n".join(out)


def main(argv: list[str]) -> int:
    src = Path(argv[1]) if len(argv) > 1 else Path("/work/src")
    target = (
        Path(argv[2])
        if len(argv) > 2
        else Path(__file__).resolve().parents[1] / "scheduler_core/scenario/api_fields.py"
    )
    roots, table = build(src)
    target.write_text(render(roots, table))
    print(f"{target}: {len(roots)} kinds, {len(table)} types")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
