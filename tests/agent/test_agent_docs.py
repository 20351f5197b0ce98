"""The agent README section's example runs as written."""

from __future__ import annotations

import pytest

from readme_examples import run_section


def test_agent_readme_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    run_section("The agent loop")
    assert capsys.readouterr().out.splitlines() == [
        "1 hint",  # the time, on the first call
        "1 model_call",
        "1 tool_call",
        "1 tool_result",
        "2 model_call",
        "end_turn - There are 3 files.",
    ]
