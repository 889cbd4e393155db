"""webui.services.imports: kubectl List output becomes an editable stream; anything else is kept."""

import json
from pathlib import Path

import pytest
import yaml

from webui.services import imports


def test_it_turns_a_kubectl_list_into_a_stream_without_server_fields():
    text = yaml.safe_dump(
        {
            "apiVersion": "v1",
            "kind": "List",
            "items": [
                {"kind": "Node", "metadata": {"name": "n", "uid": "u", "annotations": {imports.LAST_APPLIED: "{}"}}},
                {"kind": "Pod", "metadata": {"name": "p", "annotations": {"keep": "me"}, "managedFields": []}},
            ],
        }
    )
    docs = list(yaml.safe_load_all(imports.normalize(text)))
    assert docs == [
        {"kind": "Node", "metadata": {"name": "n"}},
        {"kind": "Pod", "metadata": {"name": "p", "annotations": {"keep": "me"}}},
    ]


def test_it_accepts_a_json_list():
    text = '{"kind": "List", "items": [{"kind": "Node", "metadata": {"name": "n"}}]}'
    assert yaml.safe_load(imports.normalize(text)) == {"kind": "Node", "metadata": {"name": "n"}}


def test_it_keeps_unparseable_text_exactly():
    assert imports.normalize("kind: [oops\n  : ") == "kind: [oops\n  : "


def test_it_keeps_a_plain_stream_exactly():
    text = "# comment kept\nkind: Node\nmetadata: {name: n}\n---\nkind: Pod\n"
    assert imports.normalize(text) == text


def test_it_keeps_text_nested_too_deep_for_the_yaml_parser_as_given():
    deep = "[" * 20_000 + "]" * 20_000
    assert imports.normalize(deep) == deep


KUBECTL_DUMP = """apiVersion: v1
items:
- apiVersion: v1
  kind: Node
  metadata:
    annotations:
      kubectl.kubernetes.io/last-applied-configuration: |
        {"apiVersion":"v1","kind":"Node","metadata":{"annotations":{},"name":"n1"}}
      node.alpha.kubernetes.io/ttl: "0"
    creationTimestamp: "2024-05-01T10:00:00Z"
    labels:
      kubernetes.io/hostname: n1
      topology.kubernetes.io/zone: a
    managedFields:
    - apiVersion: v1
      fieldsType: FieldsV1
      fieldsV1:
        f:metadata:
          f:labels: {}
      manager: kubelet
      operation: Update
    name: n1
    resourceVersion: "4242"
    uid: 7b1c
  spec:
    taints:
    - effect: NoSchedule
      key: dedicated
      value: gpu
  status:
    allocatable:
      cpu: "4"
      memory: 16Gi
- apiVersion: v1
  kind: Pod
  metadata:
    annotations:
      kubectl.kubernetes.io/last-applied-configuration: '{"kind":"Pod"}'
    name: web-0
    namespace: default
    ownerReferences:
    - apiVersion: apps/v1
      kind: ReplicaSet
      name: web-5d
      uid: 99aa
  spec:
    containers:
    - name: app
      resources:
        requests:
          cpu: 500m
kind: List
metadata:
  resourceVersion: ""
"""


def test_it_unwraps_kubectls_block_list_line_by_line_keeping_its_layout():
    tidied = imports.normalize(KUBECTL_DUMP)
    assert tidied == imports.unwrap_block_list(KUBECTL_DUMP)  # the line-by-line path, no parser
    docs = list(yaml.safe_load_all(tidied))
    assert docs == [_without_server_fields(item) for item in yaml.safe_load(KUBECTL_DUMP)["items"]]
    assert "managedFields" not in tidied and "last-applied" not in tidied and "uid: 7b1c" not in tidied
    assert "    ownerReferences:\n" not in tidied and "  ownerReferences:\n  - apiVersion: apps/v1\n" in tidied
    assert tidied.startswith(
        'apiVersion: v1\nkind: Node\nmetadata:\n  annotations:\n    node.alpha.kubernetes.io/ttl: "0"\n'
    )


def _without_server_fields(item: dict) -> dict:
    metadata = {k: v for k, v in item["metadata"].items() if k not in imports.SERVER_METADATA}
    annotations = {k: v for k, v in metadata.get("annotations", {}).items() if k != imports.LAST_APPLIED}
    metadata.pop("annotations", None)
    if annotations:
        metadata = {"annotations": annotations, **metadata}
    return {**item, "metadata": metadata}


# (Node names other than "n": unquoted, go-yaml reads n as false, as the API server would.)
OTHER_LAYOUTS = {
    "a JSON list": '{"kind": "List", "items": [{"kind": "Node", "metadata": {"name": "n1", "uid": "u"}}]}',
    "a comment inside the items": "apiVersion: v1\nitems:\n# note\n- kind: Node\n  metadata: {name: n1, uid: u}\nkind: List\n",
    "a flow-style item list": "apiVersion: v1\nitems: [{kind: Node, metadata: {name: n1, uid: u}}]\nkind: List\n",
    "a second document after the list": "kind: List\nitems:\n- kind: Node\n  metadata: {name: n1}\n---\nkind: Pod\n",
}


@pytest.mark.parametrize("text", OTHER_LAYOUTS.values(), ids=OTHER_LAYOUTS.keys())
def test_other_list_layouts_go_through_the_parser(text):
    assert imports.unwrap_block_list(text) is None
    tidied = imports.normalize(text)
    documents = list(yaml.safe_load_all(tidied))
    assert documents[0] == {"kind": "Node", "metadata": {"name": "n1"}}
    assert documents[1:] == ([{"kind": "Pod"}] if "---" in text else [])  # a List and more: all, in order


def test_a_stream_that_never_mentions_a_list_is_not_parsed(monkeypatch):
    monkeypatch.setattr(imports.yaml, "load_all", lambda *a, **k: pytest.fail("parsed"))
    text = "kind: Node\nmetadata: {name: n}\n---\nkind: Pod\nmetadata: {name: p}\n"
    assert imports.normalize(text) == text


def test_it_joins_several_lists_in_one_file_in_file_order():
    nodes = {"apiVersion": "v1", "kind": "List", "items": [{"kind": "Node", "metadata": {"name": "n1", "uid": "u"}}]}
    pods = {"apiVersion": "v1", "kind": "List", "items": [{"kind": "Pod", "metadata": {"name": "p"}}]}
    loose = {"kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000}
    as_yaml = yaml.safe_dump_all([nodes, loose, pods])
    as_json = "\n".join(json.dumps(doc, indent=2) for doc in (nodes, loose, pods))
    wanted = [{"kind": "Node", "metadata": {"name": "n1"}}, loose, {"kind": "Pod", "metadata": {"name": "p"}}]
    for text in (as_yaml, as_json):
        assert list(yaml.safe_load_all(imports.normalize(text))) == wanted


def test_it_keeps_a_file_of_lists_and_other_things_as_given():
    text = '{"kind": "List", "items": []}\n[1, 2]\n'
    assert imports.normalize(text) == text


def test_an_upload_of_one_plain_file_is_kept_as_typed_and_several_are_read_as_one():
    from tests.webui import support

    text = "# mine\napiVersion: v1\nkind: Node\nmetadata: {name: n}\n"
    assert imports.upload_text([imports.Upload("cluster.yaml", text.encode())]) == text
    joined = imports.upload_text(
        [imports.Upload(name, data) for name, data in support.dump_files() if name.endswith(".json")]
    )
    assert joined.count("\nkind: Node\n") == 2 and joined.count("\nkind: Pod\n") == 3


def test_an_uploaded_file_that_is_neither_text_nor_an_archive_is_refused_by_name():
    from webui.services.errors import DomainError

    with pytest.raises(DomainError, match=r"blob.bin is not UTF-8 text \(nor a .tar"):
        imports.upload_text([imports.Upload("blob.bin", b"\xff\xfe\x00")])


@pytest.mark.parametrize(
    "names, title", [([], ""), (["a.yaml"], "a.yaml"), (["a.json", "b.json", "c.json"], "a.json and 2 more")]
)
def test_an_upload_is_named_after_its_files(names, title):
    assert imports.title_of([imports.Upload(name, b"") for name in names]) == title


# --- YAML anchors: a List whose items share values (PyYAML writes `&id001` in one item, `*id001` in others)

ANCHORED_LIST = Path(__file__).resolve().parents[2] / "fixtures" / "webui_import" / "anchored-list.yaml"


def test_a_list_whose_aliases_point_into_other_items_is_kept_exactly_as_typed():
    text = ANCHORED_LIST.read_text()
    assert "*id001" in text and imports.normalize(text) == text
    assert imports.upload_text([imports.Upload("anchored.yaml", text.encode())]) == text


def test_a_list_whose_aliases_stay_inside_their_items_is_still_unwrapped():
    text = (
        "apiVersion: v1\nkind: List\nitems:\n"
        "- kind: Node\n  metadata:\n    name: n\n    uid: u\n  status:\n    allocatable: &a\n      cpu: '2'\n"
        "    capacity: *a\n"
        "- kind: Node\n  metadata:\n    name: m\n  status:\n    allocatable: &a\n      cpu: '4'\n    capacity: *a\n"
    )
    documents = list(yaml.safe_load_all(imports.normalize(text)))
    assert [d["status"]["capacity"] for d in documents] == [{"cpu": "2"}, {"cpu": "4"}]
    assert "uid" not in documents[0]["metadata"]


def test_an_alias_to_the_lists_own_fields_keeps_the_list_as_typed():
    text = "apiVersion: v1\nkind: List\nmetadata: &m\n  name: shared\nitems:\n- kind: Node\n  metadata: *m\n"
    assert imports.normalize(text) == text


def test_a_star_inside_a_string_is_no_alias():
    text = "apiVersion: v1\nkind: List\nitems:\n- kind: Pod\n  metadata:\n    name: p\n    annotations:\n      glob: 'a *b'\n"
    assert yaml.safe_load(imports.normalize(text))["metadata"]["annotations"] == {"glob": "a *b"}


def test_a_flow_style_list_with_shared_values_is_written_with_aliases_resolvable_in_each_document():
    text = "kind: List\nitems: [{kind: Node, metadata: {name: n}, status: {allocatable: &a {cpu: '2'}}},\n"
    text += "  {kind: Node, metadata: {name: m}, status: {allocatable: *a}}]\n"
    documents = list(yaml.safe_load_all(imports.normalize(text)))
    assert [d["status"]["allocatable"] for d in documents] == [{"cpu": "2"}, {"cpu": "2"}]


def test_added_files_follow_the_version_s_text_as_typed_and_say_where_they_came_from():
    kept = "# my cluster\napiVersion: v1\nkind: Node\nmetadata: {name: n1}\n"
    fetched = imports.Upload("pvc.yaml", b"apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: data}\n")
    text = imports.added_to(kept, [fetched])
    assert text.startswith(kept + "---\n# added from pvc.yaml\n")
    assert text.endswith("kind: PersistentVolumeClaim\nmetadata: {name: data}\n")
    assert imports.added_to("", [fetched]) == imports.upload_text([fetched])


def test_a_list_rewritten_through_the_parser_keeps_each_value_as_kubernetes_reads_it():
    """A List the text cut cannot unwrap goes through PyYAML: its plain scalars must read as go-yaml
    reads them ("1:30" a string, not 90) and a string go-yaml would read otherwise ("y", "1e3") must be
    written quoted, or the rewritten text would mean something else (issue 51 item 6)."""
    listed = (
        '{"apiVersion": "v1", "kind": "List", "items": [{"apiVersion": "v1", "kind": "ConfigMap", '
        '"metadata": {"name": "c", "labels": {"a": "y", "b": "1e3", "c": "0o17"}}, "data": {"t": "1:30"}}]}'
    )
    text = imports.normalize(listed)
    [item] = list(yaml.load_all(text, Loader=imports.LOADER))
    assert item["metadata"]["labels"] == {"a": "y", "b": "1e3", "c": "0o17"} and item["data"] == {"t": "1:30"}
    assert "a: 'y'" in text and "b: '1e3'" in text
    assert yaml.load("t: 1:30\nu: y\nv: 1e3\n", Loader=imports.LOADER) == {"t": "1:30", "u": True, "v": 1000.0}


@pytest.mark.parametrize(
    "text",
    [
        '{"apiVersion": "v1", "kind": "List", "items": [{"kind": "Node", "metadata": {"name": "n", "uid": "u"},'
        ' "status": {"capacity": {"cpu": 4, "memory": 1.5e3, "pods": 18446744073709551616, "big": -1}}}]}',
        '{"kind": "List", "items": [{"kind": "Node", "metadata": {"name": "n"}}]}\n  {"kind": "Pod"}\n',
        '[{"kind": "List", "items": []}]',
        '{"kind": "List", "items": []}\nkind: Pod\n',  # JSON, then YAML: the parser reads the whole
        '{"kind": "List", "items": [{"kind": "Node", "x": NaN}]}',  # not JSON: the parser's reading
    ],
)
def test_json_is_read_without_the_yaml_parser_as_the_parser_reads_it(text, monkeypatch):
    """kubectl's JSON List (40 MB at 5,000 nodes) is read by json, 30 times faster than by the YAML
    parser, with the same values: numbers as Kubernetes reads their text (an integer beyond uint64 is a
    string), and text that is not JSON from end to end goes to the parser."""
    fast = imports.normalize(text)
    monkeypatch.setattr(imports, "_json_values", lambda text: None)
    assert fast == imports.normalize(text)


def test_a_json_list_is_not_given_to_the_yaml_parser(monkeypatch):
    monkeypatch.setattr(imports.yaml, "load_all", lambda *a, **k: pytest.fail("parsed by the YAML parser"))
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": [{"kind": "Node", "metadata": {"name": "n"}}]})
    assert yaml.safe_load(imports.normalize(text)) == {"kind": "Node", "metadata": {"name": "n"}}


def test_a_json_list_is_written_out_in_batches_as_one_stream_telling_its_progress(monkeypatch):
    items = [
        {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i}", "uid": "u"}, "spec": {"containers": []}}
        for i in range(5)
    ]
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": items})
    whole = imports.normalize(text)
    monkeypatch.setattr(imports, "DUMP_BATCH", 2)
    monkeypatch.setattr(imports.listtidy, "tidied_lists", lambda *args: None)  # the whole-text path
    told: list[tuple[int, int]] = []
    assert imports.normalize(text, lambda done, percent: told.append((done, percent))) == whole
    assert told == [(2, 40), (4, 80), (5, 100)]
    assert whole.count("---\n") == 4 and "uid" not in whole


def test_one_file_s_bytes_are_let_go_once_decoded_when_asked_with_the_same_text():
    """A big upload's worker asks: the tidy then holds the decoded text, not the bytes beside it."""
    text = json.dumps({"apiVersion": "v1", "kind": "List", "items": [{"kind": "Node", "metadata": {"name": "n"}}]})
    kept = [imports.Upload("dump.json", text.encode())]
    let_go = [imports.Upload("dump.json", text.encode())]
    assert imports.upload_text(let_go, let_go=True) == imports.upload_text(kept)
    assert let_go == [] and len(kept) == 1


def test_a_file_named_for_a_kind_is_read_with_its_name_from_the_bytes_it_came_as():
    """nodes.json without kinds: written out as the engine reads it with its name, the bytes let go or not."""
    text = json.dumps({"items": [{"metadata": {"name": "n1"}, "status": {"allocatable": {"cpu": "1", "pods": "10"}}}]})
    kept = imports.upload_text([imports.Upload("nodes.json", text.encode())])
    assert imports.upload_text([imports.Upload("nodes.json", text.encode())], let_go=True) == kept
    assert "kind: Node" in kept
