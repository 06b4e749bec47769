"""Test configuration: hypothesis profiles and the fast tier.

``ci`` (used when CI=true) is derandomized so a run is reproducible; ``dev`` explores new
examples each run.  Select explicitly with ``--hypothesis-profile``.

Tests that take long by nature are marked ``slow``: the benchmark smoke runs, the notebooks,
everything that starts Spark, and single tests marked by hand.  ``pytest -m "not slow"`` is the
fast tier for development; CI and the README's command run everything.
"""

import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.register_profile("dev", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("ci" if os.environ.get("CI") else "dev")

TESTS = Path(__file__).resolve().parent
#: Paths (relative to tests/) whose every test is slow: benchmark scripts, notebooks, Spark.
SLOW_PATHS = ("benchmarks/", "spark/", "test_notebooks.py")


def is_slow_path(path: Path) -> bool:
    """Whether a test file lies under one of :data:`SLOW_PATHS`."""
    try:
        relative = path.resolve().relative_to(TESTS).as_posix()
    except ValueError:  # doctests of the packages
        return False
    return relative.startswith(SLOW_PATHS)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if is_slow_path(item.path):
            item.add_marker(pytest.mark.slow)


@pytest.fixture
def progress_labels(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Labels of the progress indicators the CLI commands start (instead of drawing them)."""
    from dpcount.cli import _progress

    labels: list[str] = []

    class Recorder:
        def __init__(self, label: str, stream: object, **kwargs: object) -> None:
            labels.append(label)

        def __enter__(self) -> None:
            return None

        def __exit__(self, *exc: object) -> None:
            return None

    monkeypatch.setattr(_progress, "Progress", Recorder)
    return labels
