"""The README's Python quick start and its two opening commands stay true."""

from __future__ import annotations

import re
from pathlib import Path

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
    result, budget = namespace["result"], namespace["budget"]
    assert result.privacy_loss.epsilon == 1.0 and result.secure
    assert budget.remaining_epsilon == 1.0  # the quick start spends the release's ε = 1 of 2
    assert len(namespace["curve"]) == 100
