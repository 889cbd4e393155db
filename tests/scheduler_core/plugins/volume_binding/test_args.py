import pytest

from scheduler_core.framework.args_errors import ArgsError
from scheduler_core.plugins.volume_binding import VolumeBindingArgs


@pytest.mark.parametrize(
    "raw, expected",
    [
        pytest.param(None, VolumeBindingArgs(600), id="no args default the bind timeout to 600 seconds"),
        pytest.param({"bindTimeoutSeconds": 30}, VolumeBindingArgs(30), id="a bind timeout is kept"),
        pytest.param({"bindTimeoutSeconds": 0}, VolumeBindingArgs(0), id="a zero bind timeout is allowed"),
        pytest.param(
            {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "VolumeBindingArgs", "shape": None},
            VolumeBindingArgs(600),
            id="type metadata and a null shape are accepted",
        ),
    ],
)
def test_it_parses_valid_args(raw, expected):
    assert VolumeBindingArgs.parse(raw) == expected


@pytest.mark.parametrize(
    "raw, problem",
    [
        pytest.param(
            {"bindTimeoutSeconds": -1},
            ("bindTimeoutSeconds", "Invalid value: -1: invalid BindTimeoutSeconds, should not be a negative value"),
            id="a negative bind timeout is refused",
        ),
        pytest.param(
            {"shape": [{"utilization": 0, "score": 10}]},
            (
                "shape",
                "Invalid value: unexpected field `shape`, remove it or turn on the feature gate StorageCapacityScoring",
            ),
            id="a shape is refused while StorageCapacityScoring is off",
        ),
        pytest.param(
            {"bindTimeoutSeconds": "10"},
            ("bindTimeoutSeconds", "Invalid value: '10': must be an integer"),
            id="a bind timeout that is not an integer is refused",
        ),
        pytest.param({"bogus": 1}, ("bogus", 'unknown field "bogus"'), id="an unknown field is refused"),
    ],
)
def test_it_refuses_invalid_args(raw, problem):
    with pytest.raises(ArgsError) as err:
        VolumeBindingArgs.parse(raw)
    assert [(p.path, p.message) for p in err.value.problems] == [problem]
