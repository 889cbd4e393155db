"""Issue 5: malformed and adversarial scenarios at the API never get a 500, a traceback or a hang.

Every answer is a 2xx JSON body or a 4xx JSON body with the one error shape. 320 examples in all
(VALIDATE + CREATE + UPDATE + IMPORT_TEXT + IMPORT_FILE), derandomized so CI sees the same ones.
"""

import json
import time

import pytest
import yaml
from django.test import Client
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

pytestmark = pytest.mark.django_db
JSON = "application/json"
VALIDATE, CREATE, UPDATE, IMPORT_TEXT, IMPORT_FILE = 100, 70, 50, 50, 50
SECONDS_PER_CALL = 10  # generous: CI machines are shared; a hang is minutes
FUZZ = settings(deadline=None, derandomize=True, phases=[Phase.explicit, Phase.generate], suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])

MARKUP = st.sampled_from(['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', "{{7*7}}", "../../etc/passwd", "\u202e\u0000evil", "a" * 300])
NAMES = st.one_of(st.from_regex(r"[a-z][a-z0-9-]{0,20}", fullmatch=True), MARKUP, st.text(max_size=30))
SCALARS = st.one_of(
    st.none(), st.booleans(), st.integers(min_value=-(10**30), max_value=10**30), st.floats(allow_nan=True),
    st.text(max_size=20), NAMES, st.sampled_from(["100m", "1e400", "-1", "1.5Gi", "12Qi", "0x10", "∞", "NaN", "9" * 40]),
)
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=12), inner, max_size=4)), max_leaves=20)
SELECTORS = st.fixed_dictionaries({"matchLabels": st.dictionaries(NAMES, VALUES, max_size=3), "matchExpressions": st.lists(
    st.fixed_dictionaries({"key": VALUES, "operator": st.sampled_from(["In", "NotIn", "Exists", "Gt", "Bogus", 7]), "values": VALUES}), max_size=2)})


def kube_object(kind: str):
    metadata = st.fixed_dictionaries({"name": NAMES}, optional={"namespace": NAMES, "labels": st.dictionaries(NAMES, VALUES, max_size=3)})
    spec = st.fixed_dictionaries({}, optional={
        "nodeName": VALUES, "priority": VALUES, "containers": st.lists(st.fixed_dictionaries(
            {"name": NAMES}, optional={"resources": st.fixed_dictionaries({"requests": st.dictionaries(st.sampled_from(["cpu", "memory", "pods", "x/y"]), SCALARS)})}
        ), max_size=2) | VALUES,
        "affinity": st.fixed_dictionaries({"podAntiAffinity": st.fixed_dictionaries({"requiredDuringSchedulingIgnoredDuringExecution": st.lists(
            st.fixed_dictionaries({"labelSelector": SELECTORS, "topologyKey": VALUES}), max_size=2)})}) | VALUES,
        "topologySpreadConstraints": st.lists(st.fixed_dictionaries({"maxSkew": VALUES, "topologyKey": VALUES, "whenUnsatisfiable": VALUES, "labelSelector": SELECTORS}), max_size=2),
        "taints": VALUES, "tolerations": VALUES,
    })
    status = st.fixed_dictionaries({}, optional={"capacity": st.dictionaries(st.sampled_from(["cpu", "memory", "pods"]), SCALARS), "allocatable": VALUES})
    return st.fixed_dictionaries({"kind": st.just(kind)}, optional={"apiVersion": VALUES, "metadata": metadata | VALUES, "spec": spec, "status": status})


DOCUMENTS = st.lists(st.one_of(kube_object("Node"), kube_object("Pod"), kube_object("List"), VALUES), max_size=4)
STRUCTURED = DOCUMENTS.map(lambda docs: yaml.safe_dump_all(docs, allow_unicode=True, sort_keys=False))


@st.composite
def adversarial(draw) -> str:
    n = draw(st.integers(min_value=1, max_value=20_000))
    return draw(st.sampled_from([
        "[" * n + "]" * n,
        "a: " + "{b: " * n + "1" + "}" * n,
        "\n".join(f"{' ' * i}k{i}:" for i in range(min(n, 3000))) + " 1",
        'a: &a ["x","x","x","x","x","x","x","x","x"]\n' + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)},*{chr(97 + i)}]\n" for i in range(9)),
        f"kind: Node\nmetadata: {{name: n}}\nstatus: {{capacity: {{cpu: '{'9' * min(n, 5000)}'}}}}\n",
        "kind: Node\nkind: Pod\nmetadata: {name: dup}\nmetadata: {name: dup2}\n",
        f"kind: Pod\nmetadata: {{name: p, labels: {{'a b': '{'<b>' * 10}'}}}}\nspec: {{containers: [{{name: c, resources: {{requests: {{cpu: 1x}}}}}}]}}\n",
        "---\n" * min(n, 5000),
        "kind: Node\nmetadata: {name: !!python/object/apply:os.system [echo pwned]}\n",
        "%YAML 9.9\n--- !<tag:evil> {}\n",
        "\t\x00\x1b[31m" * 10,
        "key: " + "x" * min(n * 50, 1_500_000),
    ]))


TEXTS = st.one_of(STRUCTURED, adversarial(), st.text(max_size=300))


def assert_sane(response, started: float) -> dict:
    elapsed = time.monotonic() - started
    assert elapsed < SECONDS_PER_CALL, f"{elapsed:.1f}s"
    assert 200 <= response.status_code < 500, response.content[:500]
    assert response["Content-Type"].startswith("application/json")
    body = json.loads(response.content)
    assert "Traceback" not in response.content.decode("utf-8", "replace")
    if response.status_code >= 400:
        assert set(body) == {"error"} and set(body["error"]) == {"code", "message", "details"}, body
        assert isinstance(body["error"]["message"], str) and isinstance(body["error"]["details"], dict)
    return body


REFUSALS = ("limit_exceeded", "bad_request", "invalid_request")
# An upload that is (or looks like) an archive is read by the engine: what does not load is refused
# with its located problems.
UPLOAD_REFUSALS = (*REFUSALS, "scenario_invalid")


def assert_saved_or_refused(response, started: float, refusals: tuple[str, ...] = REFUSALS) -> None:
    body = assert_sane(response, started)
    if response.status_code < 300:  # a saved version, valid or not, with every problem listed
        assert body["valid"] is (not body["errors"]) and isinstance(body["version"], int)
    else:
        assert body["error"]["code"] in refusals


@settings(FUZZ, max_examples=VALIDATE)
@given(text=TEXTS)
def test_validate_answers_every_text_with_problems_or_a_limit(owner: Client, text: str):
    started = time.monotonic()
    body = assert_sane(owner.post("/api/validate", {"text": text}, content_type=JSON), started)
    if "valid" in body:
        assert body["valid"] is (not body["errors"]) and all(e["code"] in ("invalid", "limit_exceeded") for e in body["errors"])


@settings(FUZZ, max_examples=CREATE)
@given(name=NAMES, text=TEXTS, description=st.one_of(st.text(max_size=50), MARKUP))
def test_create_saves_or_refuses_every_text(owner: Client, name: str, text: str, description: str):
    started = time.monotonic()
    response = owner.post("/api/scenarios", {"name": name, "text": text, "description": description}, content_type=JSON)
    assert_saved_or_refused(response, started)


@settings(FUZZ, max_examples=UPDATE)
@given(body=st.one_of(st.fixed_dictionaries({"text": TEXTS}, optional={"name": NAMES}), VALUES))
def test_update_saves_or_refuses_every_body(owner: Client, scenario: dict, body):
    started = time.monotonic()
    response = owner.put(f"/api/scenarios/{scenario['id']}", json.dumps(body), content_type=JSON)
    assert_saved_or_refused(response, started)


@settings(FUZZ, max_examples=IMPORT_TEXT)
@given(name=NAMES, text=TEXTS)
def test_import_saves_or_refuses_every_pasted_text(owner: Client, name: str, text: str):
    started = time.monotonic()
    assert_saved_or_refused(owner.post("/api/scenarios/import", {"name": name, "text": text}), started)


@settings(FUZZ, max_examples=IMPORT_FILE)
@given(raw=st.one_of(st.binary(max_size=300), TEXTS.map(lambda t: t.encode("utf-8", "surrogatepass")), st.just(b"kind: Node\n\xff\xfe\x80")))
def test_import_saves_or_refuses_every_uploaded_file(owner: Client, raw: bytes, tmp_path_factory):
    path = tmp_path_factory.mktemp("upload") / "scenario.yaml"
    path.write_bytes(raw)
    started = time.monotonic()
    with path.open("rb") as handle:
        assert_saved_or_refused(owner.post("/api/scenarios/import", {"file": handle}), started, UPLOAD_REFUSALS)


MEMBER_NAMES = st.sampled_from(["dump/nodes.json", "dump/ns/pods.json", "../escape.yaml", "/abs/nodes.json", "dump/a b.yaml",
                                "dump/logs.txt", "dump/\u202epods.json", "dump/pods/x.yaml"])
MEMBERS = st.lists(st.tuples(MEMBER_NAMES, st.one_of(TEXTS.map(lambda t: t.encode("utf-8", "surrogatepass")), st.binary(max_size=200))),
                   max_size=4, unique_by=lambda member: member[0])


def _packed(members: list[tuple[str, bytes]], kind: str) -> bytes:
    import io
    import tarfile
    import zipfile

    buffer = io.BytesIO()
    if kind == "zip":
        with zipfile.ZipFile(buffer, "w") as archive:
            for name, data in members:
                archive.writestr(name, data)
    else:
        with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
            for name, data in members:
                info = tarfile.TarInfo(name)
                info.size = len(data)
                archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


@settings(FUZZ, max_examples=IMPORT_FILE)
@given(members=MEMBERS, kind=st.sampled_from(["tar.gz", "zip"]), cut=st.one_of(st.none(), st.integers(min_value=0, max_value=400)))
def test_import_saves_or_refuses_every_uploaded_archive(owner: Client, members, kind: str, cut):
    """Archives with any members (escaping paths, binary, broken YAML), whole or cut short: saved, or
    refused with the located problems (400 scenario_invalid) or a named limit; never a 500."""
    from django.core.files.uploadedfile import SimpleUploadedFile

    raw = _packed(members, kind)
    upload = SimpleUploadedFile(f"dump.{kind}", raw if cut is None else raw[:cut])
    started = time.monotonic()
    response = owner.post("/api/scenarios/import", {"file": [upload, SimpleUploadedFile("extra.yaml", b"kind: Namespace\nmetadata: {name: x}\napiVersion: v1\n")]})
    assert_saved_or_refused(response, started, UPLOAD_REFUSALS)
