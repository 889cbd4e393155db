"""framework/args_errors.py: a plugin's args problems, every one kept and named by its path."""

from __future__ import annotations

from scheduler_core.framework.args_errors import ArgsError, ArgsProblem


def test_an_args_error_keeps_every_problem_and_says_each_with_its_path():
    problems = [
        ArgsProblem("scoringStrategy.type", 'Unsupported value: "Fastest"'),
        ArgsProblem("ignoredResources[0]", "Invalid value"),
    ]
    error = ArgsError(problems)
    assert error.problems == problems
    assert str(error) == 'scoringStrategy.type: Unsupported value: "Fastest"; ignoredResources[0]: Invalid value'
    assert isinstance(error, ValueError)
