"""load_paths / load_upload: every form a user has (file, files, directory, archive) reads as one scenario."""

from __future__ import annotations

import io
import json
import shutil
import sys

import pytest

from scheduler_core.model import NoticeCode
from scheduler_core.scenario import Limits, ScenarioInvalid
from scheduler_core.scenario.sources import load_paths, load_upload, read_sources

from tests.scheduler_core.scenario.support import CONTAINER, FORMS, NODE, pod, stream, tar_bytes, tar_of, zip_of

# Every fixture form holds the same cluster (tests/fixtures/dumps/forms/README.md).
NODES, PODS, PENDING = 3, 10, ["default/web-6b7f6d9f4c-pq8rn"]
DIRECTORY_FORMS = ["raw-api-lists", "cluster-info-dump-dir", "sonobuoy", "troubleshoot", "must-gather", "insights"]
FILE_FORMS = ["kubectl-get-all.yaml", "cluster-info-dump.txt"]


def codes(scenario) -> list[str]:
    return [notice.code.value for notice in scenario.notices]


def notice(scenario, code: NoticeCode):
    [found] = [n for n in scenario.notices if n.code is code]
    return found


# ---------------------------------------------------------------------------- every form, the same cluster


@pytest.mark.parametrize("form", DIRECTORY_FORMS + FILE_FORMS)
def test_every_dump_form_reads_as_the_same_cluster(form):
    scenario = load_paths([FORMS / form])
    assert (len(scenario.nodes), len(scenario.pods), [p.key for p in scenario.pending_pods]) == (NODES, PODS, PENDING)
    assert [n.name for n in scenario.nodes][0] == "ip-10-0-1-10.ec2.internal"
    assert NoticeCode.NO_NODES.value not in codes(scenario)


@pytest.mark.parametrize("form", [f for f in DIRECTORY_FORMS if f != "insights"] + FILE_FORMS)
def test_the_workloads_and_services_a_form_holds_are_read_too(form):
    scenario = load_paths([FORMS / form])
    assert {w.name for w in scenario.workloads} == {"coredns-5d78c9869d", "web-6b7f6d9f4c"}
    assert {s.name for s in scenario.services} == {"kube-dns", "web", "kubernetes"}


@pytest.mark.parametrize("pack", ["tar", "tar.gz", "zip"])
@pytest.mark.parametrize("form", DIRECTORY_FORMS)
def test_an_archive_of_a_dump_reads_as_its_directory_does(form, pack, tmp_path):
    target = tmp_path / f"{form}.{pack}"
    archive = (
        zip_of(FORMS / form, target)
        if pack == "zip"
        else tar_of(FORMS / form, target, "w" if pack == "tar" else "w:gz")
    )
    from_archive, from_directory = load_paths([archive]), load_paths([FORMS / form])
    assert [n.name for n in from_archive.nodes] == [n.name for n in from_directory.nodes]
    assert [p.key for p in from_archive.pods] == [p.key for p in from_directory.pods]
    assert codes(from_archive) == codes(from_directory)


def test_an_uploaded_archive_is_unpacked_and_its_members_named(tmp_path):
    data = tar_of(FORMS / "troubleshoot", tmp_path / "bundle.tgz").read_bytes()
    scenario = load_upload([("support-bundle.tar.gz", data)])
    assert (len(scenario.nodes), len(scenario.pods)) == (NODES, PODS)
    logs = notice(scenario, NoticeCode.UNREAD_FILES)
    assert (
        "support-bundle.tar.gz:troubleshoot/cluster-resources/pods/logs/default/web-6b7f6d9f4c-5kqlw/web.log"
        in logs.objects
    )


def test_several_uploaded_files_read_as_one_scenario():
    nodes = (FORMS / "raw-api-lists" / "nodes.json").read_bytes()
    pods = (FORMS / "raw-api-lists" / "pods.json").read_bytes()
    scenario = load_upload([("nodes.json", nodes), ("pods.json", pods)])
    assert (len(scenario.nodes), len(scenario.pods)) == (NODES, PODS)


def test_several_paths_read_in_order_as_one_scenario():
    scenario = load_paths([FORMS / "raw-api-lists" / "pods.json", FORMS / "raw-api-lists" / "nodes.json"])
    assert (len(scenario.nodes), len(scenario.pods)) == (NODES, PODS)


def test_standard_input_is_read_for_a_dash(monkeypatch):
    text = (FORMS / "cluster-info-dump.txt").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text)))
    assert len(load_paths(["-"]).nodes) == NODES


# ---------------------------------------------------------------------------- what is not read, said


def test_the_container_logs_of_a_cluster_info_dump_are_skipped_with_a_notice():
    scenario = load_paths([FORMS / "cluster-info-dump.txt"])
    logs = notice(scenario, NoticeCode.CONTAINER_LOGS)
    assert len(logs.objects) == PODS and logs.objects[0] == "kube-system/coredns-5d78c9869d-4xkqp coredns"
    assert "2 Event" in notice(scenario, NoticeCode.IGNORED_KINDS).message


def test_logs_and_other_files_of_a_directory_are_listed_as_not_read():
    scenario = load_paths([FORMS / "cluster-info-dump-dir"])
    unread = notice(scenario, NoticeCode.UNREAD_FILES)
    assert len(unread.objects) == PODS and all(name.endswith("/logs.txt") for name in unread.objects)


def test_a_tools_own_metadata_is_not_read_and_said_so():
    scenario = load_paths([FORMS / "sonobuoy"])
    assert sorted(name.split("sonobuoy/")[1] for name in notice(scenario, NoticeCode.NOT_OBJECTS).objects) == [
        "meta/config.json",
        "meta/query-time.json",
        "plugins/e2e/sonobuoy_results.yaml",
    ]
    # the API server's /version answer is read: it says which release to replay
    assert "ServerVersion.json" in scenario.release.evidence.where


def test_a_pod_written_twice_by_must_gather_is_read_once():
    scenario = load_paths([FORMS / "must-gather"])
    assert len(notice(scenario, NoticeCode.DUPLICATE_OBJECTS).objects) == PODS
    assert "1 ClusterRole, 2 Event" in notice(scenario, NoticeCode.IGNORED_KINDS).message


def test_two_different_objects_with_one_name_in_two_files_are_still_refused(tmp_path):
    first = stream(NODE, pod(CONTAINER))
    (tmp_path / "a.yaml").write_text(first)
    (tmp_path / "b.yaml").write_text(pod(CONTAINER))
    with pytest.raises(ScenarioInvalid) as err:
        load_paths([tmp_path])
    [error] = err.value.errors
    pod_line = first.splitlines().index("kind: Pod")  # the line before it (apiVersion) starts the pod, 1-based
    assert error.file == str(tmp_path / "b.yaml")
    assert f"already defined at line {pod_line} of {tmp_path / 'a.yaml'}" in error.message


def test_a_symbolic_link_in_a_directory_is_reported_not_followed(tmp_path):
    shutil.copytree(FORMS / "raw-api-lists", tmp_path / "dump")
    outside = tmp_path / "secret.yaml"
    outside.write_text(NODE)
    (tmp_path / "dump" / "more.yaml").symlink_to(outside)
    scenario = load_paths([tmp_path / "dump"])
    assert len(scenario.nodes) == NODES  # the linked node is not read
    assert notice(scenario, NoticeCode.LINKS).objects == (str(tmp_path / "dump" / "more.yaml"),)


# ---------------------------------------------------------------------------- errors name the file


def test_an_error_in_a_directory_names_the_file_and_its_line(tmp_path):
    shutil.copytree(FORMS / "cluster-info-dump-dir", tmp_path / "dump")
    pods = tmp_path / "dump" / "default" / "pods.json"
    text = pods.read_text().replace('"cpu": "1"', '"cpu": "lots"', 1)
    pods.write_text(text)
    with pytest.raises(ScenarioInvalid) as err:
        load_paths([tmp_path / "dump"])
    [error] = err.value.errors
    wanted_line = next(i for i, line in enumerate(text.splitlines(), 1) if '"lots"' in line)
    assert (error.file, error.line, error.object, error.path) == (
        str(pods),
        wanted_line,
        "Pod default/web-6b7f6d9f4c-5kqlw",
        "spec.containers[0].resources.requests.cpu",
    )
    assert str(error).startswith(f"{pods}: line {wanted_line}: Pod default/web-6b7f6d9f4c-5kqlw")


def test_an_error_inside_an_archive_names_the_member_and_its_line():
    bad = stream(NODE, pod(CONTAINER + "priority: high\n"))
    data = tar_bytes({"dump/nodes.yaml": NODE.replace("n1", "n0").encode(), "dump/pods.yaml": bad.encode()})
    with pytest.raises(ScenarioInvalid) as err:
        load_upload([("dump.tgz", data)])
    [error] = err.value.errors
    assert (error.file, error.object, error.path) == ("dump.tgz:dump/pods.yaml", "Pod default/web-1", "spec.priority")
    assert error.line == bad.splitlines().index("  priority: high") + 1
    assert error.to_json()["file"] == "dump.tgz:dump/pods.yaml"


def test_one_file_given_alone_reads_as_it_always_has(tmp_path):
    path = tmp_path / "scenario.yaml"
    path.write_text(stream(NODE, pod(CONTAINER + "priority: high\n")))
    with pytest.raises(ScenarioInvalid) as err:
        load_paths([path])
    assert err.value.errors[0].file is None and "file" not in err.value.errors[0].to_json()


def test_an_object_without_kind_in_a_file_given_alone_is_still_an_error(tmp_path):
    path = tmp_path / "scenario.json"
    path.write_text(json.dumps({"metadata": {"name": "n1"}}))
    with pytest.raises(ScenarioInvalid, match="every object needs apiVersion and kind"):
        load_paths([path])


def test_a_missing_path_is_a_located_error(tmp_path):
    with pytest.raises(ScenarioInvalid, match="cannot read .*nowhere.yaml"):
        load_paths([tmp_path / "nowhere.yaml"])


def test_a_directory_without_yaml_or_json_is_an_error(tmp_path):
    (tmp_path / "notes.txt").write_text("hello")
    with pytest.raises(ScenarioInvalid, match=r"no YAML or JSON file found \(not read: .*notes.txt\)"):
        load_paths([tmp_path])


# ---------------------------------------------------------------------------- limits


def test_too_many_files_in_a_directory_is_refused_naming_the_limit(tmp_path):
    for index in range(4):
        (tmp_path / f"n{index}.yaml").write_text(NODE.replace("n1", f"n{index}"))
    with pytest.raises(ScenarioInvalid) as err:
        load_paths([tmp_path], Limits(max_files=3))
    [error] = err.value.errors
    assert error.limit == "max_files" and error.code == "limit_exceeded"


def test_the_yaml_of_all_files_together_is_bounded(tmp_path):
    for index in range(3):
        (tmp_path / f"n{index}.yaml").write_text(NODE.replace("n1", f"n{index}"))
    with pytest.raises(ScenarioInvalid) as err:
        load_paths([tmp_path], Limits(max_bytes=len(NODE) * 2 + 10))
    assert err.value.errors[0].limit == "max_bytes"


def test_a_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "big.yaml"
    path.write_text(NODE * 3)
    with pytest.raises(ScenarioInvalid) as err:
        read_sources([path], Limits(max_bytes=len(NODE)))
    assert err.value.errors[0].limit == "max_bytes"
