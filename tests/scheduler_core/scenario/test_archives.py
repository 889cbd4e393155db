"""Untrusted archives: read in memory within a budget; no escapes, no links followed, bombs stopped early."""

from __future__ import annotations

import gzip
import io
import zipfile

import pytest

from scheduler_core.scenario import Limits
from scheduler_core.scenario.archives import Budget, ReadRefused, archive_kind, read_archive
from scheduler_core.scenario.layouts import is_yaml_or_json

from tests.scheduler_core.scenario.support import NODE, tar_bytes, zip_bytes

MIB = 1024 * 1024


def read(data: bytes, limits: Limits = Limits(), name: str = "dump.tgz"):
    kind = archive_kind(data[:512])
    budget = Budget(limits)
    return read_archive(io.BytesIO(data), name, kind, is_yaml_or_json, budget), budget


@pytest.mark.parametrize(
    "data, kind",
    [
        pytest.param(zip_bytes({"a.yaml": b"x"}), "zip", id="a zip by its PK header"),
        pytest.param(tar_bytes({"a.yaml": b"x"}, mode="w:gz"), "compressed", id="a tar.gz by its gzip header"),
        pytest.param(tar_bytes({"a.yaml": b"x"}, mode="w"), "tar", id="a plain tar by its ustar mark"),
        pytest.param(NODE.encode(), None, id="YAML is no archive"),
    ],
)
def test_it_tells_an_archive_by_its_first_bytes(data, kind):
    assert archive_kind(data[:512]) == kind


def test_it_reads_the_yaml_and_json_members_in_name_order_and_lists_the_rest():
    contents, _ = read(tar_bytes({"d/b.json": b"{}", "d/a.yaml": b"a: 1", "d/pod/logs.txt": b"log"}))
    assert [m.name for m in contents.members] == ["d/a.yaml", "d/b.json"] and contents.unread == ["d/pod/logs.txt"]


def test_a_symbolic_link_member_is_reported_and_not_followed():
    contents, _ = read(tar_bytes({"d/a.yaml": b"a: 1"}, links={"d/nodes.yaml": "/etc/passwd"}))
    assert [m.name for m in contents.members] == ["d/a.yaml"] and contents.links == ["d/nodes.yaml"]


def test_a_zip_symlink_member_is_reported_and_not_followed():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        link = zipfile.ZipInfo("d/nodes.yaml")
        link.external_attr = 0o120777 << 16  # S_IFLNK: the data is the link's target
        archive.writestr(link, "/etc/passwd")
        archive.writestr("d/a.yaml", "a: 1")
    contents, _ = read(buffer.getvalue(), name="dump.zip")
    assert [m.name for m in contents.members] == ["d/a.yaml"] and contents.links == ["d/nodes.yaml"]


@pytest.mark.parametrize(
    "name", ["../evil.yaml", "d/../../evil.yaml", "/etc/cron.d/evil.yaml", "C:/evil.yaml", "..\\evil.yaml"]
)
@pytest.mark.parametrize("pack", ["tar", "zip"])
def test_a_member_pointing_outside_the_archive_refuses_the_archive(name, pack):
    data = tar_bytes({name: b"a: 1"}) if pack == "tar" else zip_bytes({name: b"a: 1"})
    with pytest.raises(ReadRefused, match="points outside the archive"):
        read(data)


def test_a_zip_bomb_is_stopped_at_the_size_limit_before_it_is_inflated():
    bomb = zip_bytes({"nodes.json": b"\0" * (64 * MIB)})  # about 64 KB packed
    with pytest.raises(ReadRefused, match=r"\(Limits.max_bytes\)$"):
        _, budget = read(bomb, Limits(max_bytes=4 * MIB))
    assert len(bomb) < MIB


def test_the_bomb_read_stops_within_one_chunk_of_the_limit():
    budget = Budget(Limits(max_bytes=4 * MIB))
    with pytest.raises(ReadRefused):
        read_archive(
            io.BytesIO(zip_bytes({"nodes.json": b"\0" * (64 * MIB)})), "bomb.zip", "zip", is_yaml_or_json, budget
        )
    assert budget.unpacked_bytes <= 5 * MIB


def test_a_tar_whose_skipped_members_inflate_too_much_is_refused():
    data = tar_bytes({"d/huge.log": b"\0" * (8 * MIB), "d/a.yaml": b"a: 1"})
    with pytest.raises(ReadRefused, match=r"\(Limits.max_unpacked_bytes\)$"):
        read(data, Limits(max_unpacked_bytes=4 * MIB))


def test_a_zip_skips_unwanted_members_without_inflating_them():
    contents, budget = read(
        zip_bytes({"d/huge.log": b"\0" * (8 * MIB), "d/a.yaml": b"a: 1"}), Limits(max_unpacked_bytes=4 * MIB)
    )
    assert contents.unread == ["d/huge.log"] and budget.unpacked_bytes == 4


def test_too_many_members_is_refused_naming_the_limit():
    with pytest.raises(ReadRefused, match=r"more than 3 files \(Limits.max_files\)$"):
        read(tar_bytes({f"d/{i}.yaml": b"a: 1" for i in range(5)}), Limits(max_files=3))


def test_a_gzip_of_one_file_is_that_file():
    contents, _ = read(gzip.compress(NODE.encode()), name="nodes.yaml.gz")
    assert [(m.name, m.data) for m in contents.members] == [("nodes.yaml", NODE.encode())]


def test_a_broken_archive_is_refused_with_what_is_wrong():
    with pytest.raises(ReadRefused, match="not a readable archive"):
        read(zip_bytes({"a.yaml": b"a: 1"})[:40])
