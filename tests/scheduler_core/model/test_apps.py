"""model/apps.py: a workload is named by its namespace and name, and compares by identity (the
run's cluster tells its versions apart by writes, not by value)."""

from __future__ import annotations

from dataclasses import replace

from tests.scheduler_core.builders import controlled_workload


def test_a_controlled_workload_is_keyed_by_namespace_and_name_and_each_version_is_its_own():
    web = controlled_workload("Deployment", "web", replicas=2)
    assert web.key == "default/web"
    same_fields = replace(web)
    assert same_fields is not web and same_fields != web  # identity: a version is one object
