"""The examples of docs/workspace.md's naming section run as written (all pages run in test_docs_examples)."""

from __future__ import annotations

from readme_examples import run_section


def test_naming_rule_example_runs() -> None:
    run_section("The naming rule")
