"""The README's Python quick start and its two opening commands stay true."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from dpcount.errors import BudgetExceededError

README = Path(__file__).resolve().parents[1] / "README.md"


def _code_blocks(language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", README.read_text(), flags=re.S)


def test_readme_opens_with_the_main_job_and_the_test_command():
    first, second = _code_blocks("bash")[:2]
    assert "dpcount count --dataset" in first
    assert "pytest" in second
    # .ci/run finds the test command through this marker.
    assert "<!-- test-command -->\n```bash\n" + second in README.read_text()


def test_python_quick_start_runs(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (quick_start,) = _code_blocks("python")
    namespace: dict[str, object] = {}
    exec(compile(quick_start, "README.md quick start", "exec"), namespace)
    result, session = namespace["result"], namespace["session"]
    assert result.privacy_loss.epsilon == 1.0 and result.secure
    assert session.remaining.epsilon == 0.0  # the quick start spends ε = 1 + 3 of 4
    assert [e.mechanism for e in session.log] == ["dp_distinct_count", "dp_sips"]
    with pytest.raises(BudgetExceededError):
        session.r2t(0.1, max_contribution=100)
    assert len(namespace["curve"]) == 100
