import pytest

from scheduler_core.plugins import queue_sort
from tests.scheduler_core.builders import make_pod


@pytest.mark.parametrize(
    "a, b, expected",
    [
        pytest.param(
            make_pod("a", priority=10, doc_index=5),
            make_pod("b", priority=1, doc_index=1),
            True,
            id="a higher priority pod goes first whatever its position",
        ),
        pytest.param(
            make_pod("a", priority=1, doc_index=1),
            make_pod("b", priority=10, doc_index=5),
            False,
            id="a lower priority pod goes after",
        ),
        pytest.param(
            make_pod("a", doc_index=1),
            make_pod("b", doc_index=2),
            True,
            id="with equal priority the earlier document goes first",
        ),
        pytest.param(
            make_pod("a", doc_index=2),
            make_pod("b", doc_index=2),
            False,
            id="a pod is not less than one at the same position",
        ),
    ],
)
def test_priority_sort_orders_by_priority_then_document_order(a, b, expected):
    assert queue_sort.new(None, None).less(a, b) is expected
