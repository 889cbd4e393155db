"""webui.services.imports: kubectl List output becomes an editable stream; anything else is kept."""

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
    assert docs == [{"kind": "Node", "metadata": {"name": "n"}}, {"kind": "Pod", "metadata": {"name": "p", "annotations": {"keep": "me"}}}]


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
