"""static/js/run.js Pace: a live run's attempts per second and time left, from the server's counts."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.browser

PACE = """async (samples) => {
    const { Pace } = await import("/static/js/run.js");
    let now = 0;
    const pace = new Pace(5000, () => now);
    return samples.map(([at, done, total]) => { now = at; return pace.sample(done, total); });
}"""


def test_it_says_attempts_per_second_and_time_left_once_there_is_a_pace(page):
    page.goto(page.base_url + "/")
    shown = page.evaluate(
        PACE, [[0, 0, 1000], [200, 10, 1000], [1000, 100, 1000], [2000, 300, 1000], [9000, 900, 1000]]
    )
    assert shown[:2] == ["", ""]  # under half a second of history: no figure yet
    assert shown[2] == " · 100 attempts/s · ~9 s left"
    assert shown[3] == " · 150 attempts/s · ~5 s left"
    assert shown[4] == " · 86 attempts/s · ~2 s left"  # the window keeps the last 5 s (and two samples)


def test_it_says_nothing_when_no_cycle_finished_meanwhile(page):
    page.goto(page.base_url + "/")
    assert page.evaluate(PACE, [[0, 5, 10], [3000, 5, 10]]) == ["", ""]
