"""``contextfold proxy``'s compaction-policy flags: each reaches `ProxyConfig.compaction`, a bad value names it."""

from __future__ import annotations

import dataclasses
import io
import re
from pathlib import Path

import pytest

from contextfold._cli import CLIContext, build_parser, main
from contextfold._cli._proxy import proxy_config
from contextfold.proxy import CompactionPolicy


def _config(argv: list[str], tmp_path: Path) -> object:
    args = build_parser().parse_args(["proxy", "--state", str(tmp_path), *argv])
    return proxy_config(CLIContext(args=args, stdout=io.StringIO(), stderr=io.StringIO(), env={}))


@pytest.mark.parametrize(
    ("argv", "field", "value"),
    [
        (["--offload-tokens", "900"], "offload_tokens", 900),
        (["--offload-tokens", "0"], "offload_tokens", 0),
        (["--dedupe-tokens", "0"], "dedupe_tokens", 0),
        (["--precompute", "replacement"], "precompute", "replacement"),
        (["--precompute", "off"], "precompute", "off"),
        (["--target-ratio", "0.4"], "target_ratio", 0.4),
    ],
)
def test_each_flag_reaches_the_policy(argv: list[str], field: str, value: object, tmp_path: Path) -> None:
    config = _config(argv, tmp_path)
    policy = config.compaction  # type: ignore[attr-defined]
    assert getattr(policy, field) == value
    others = {f.name for f in dataclasses.fields(CompactionPolicy)} - {field}
    assert all(getattr(policy, f) == getattr(CompactionPolicy(), f) for f in others)  # the rest stays default


def test_the_trigger_flag_reaches_the_config_and_no_flag_means_the_defaults(tmp_path: Path) -> None:
    from contextfold.proxy import ProxyConfig

    assert _config(["--trigger-ratio", "0.6"], tmp_path).trigger_ratio == 0.6  # type: ignore[attr-defined]
    plain = _config([], tmp_path)
    assert plain.compaction == CompactionPolicy()  # type: ignore[attr-defined]
    assert plain.trigger_ratio == ProxyConfig().trigger_ratio == 0.7  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--offload-tokens", "100"], "--offload-tokens: must be 0 (off) or at least 500 (got 100)"),
        (["--offload-tokens", "-5"], "--offload-tokens: must be a whole number >= 0 (got -5)"),
        (["--offload-tokens", "lots"], "argument --offload-tokens: invalid int value"),
        (["--dedupe-tokens", "-1"], "--dedupe-tokens: must be a whole number >= 0 (got -1)"),
        (["--target-ratio", "0"], "--target-ratio: must be in (0, 1] (got 0.0)"),
        (["--target-ratio", "1.5"], "--target-ratio: must be in (0, 1] (got 1.5)"),
        (["--trigger-ratio", "0.95"], "--trigger-ratio: must be in (0, 0.9] (got 0.95)"),
        (["--precompute", "later"], "argument --precompute: invalid choice"),
    ],
)
def test_a_bad_value_is_one_line_naming_its_flag(argv: list[str], message: str, tmp_path: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    code = main(["proxy", "--state", str(tmp_path), *argv], stdout=out, stderr=err, env={"COLUMNS": "150"})
    assert code == 2 and message in err.getvalue() and len(err.getvalue().strip().splitlines()) == 1


def test_the_help_names_each_flag_and_its_real_default() -> None:
    out = io.StringIO()
    assert main(["proxy", "--help"], stdout=out, stderr=io.StringIO(), env={"COLUMNS": "200"}) == 0
    text = re.sub(r"\s+", " ", out.getvalue())
    policy = CompactionPolicy()
    for flag in ("--offload-tokens", "--dedupe-tokens", "--precompute", "--target-ratio", "--trigger-ratio"):
        assert flag in text
    assert f"default {policy.offload_tokens};" in text and f"(default {policy.dedupe_tokens})" in text
    assert f"(default {policy.target_ratio:g};" in text and f"{policy.precompute} (default:" in text
