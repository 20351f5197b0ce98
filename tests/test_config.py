from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from contextfold import ConfigError, ContextConfig


def test_defaults_and_derived_values() -> None:
    config = ContextConfig(window=120_000)
    assert (config.trigger_ratio, config.reserve_ratio, config.safety_margin) == (0.8, 0.1, 1.2)
    assert (config.min_recent_messages, config.summary_ratio, config.tool_result_limit) == (6, 0.4, 50_000)
    assert config.trigger_tokens == 96_000
    assert config.budget == 80_000  # 120k x 0.8 / 1.2
    assert config.reserve_tokens == 12_000
    assert config.recent_cap_tokens == 40_000
    assert config.summary_tokens == 32_000


@pytest.mark.parametrize(
    ("kwargs", "field", "rule"),
    [
        ({"window": 0}, "window", "greater than 0"),
        ({"window": -5}, "window", "greater than 0"),
        ({"window": 100, "trigger_ratio": 0.95}, "trigger_ratio", "less than or equal to 0.9"),
        ({"window": 100, "trigger_ratio": 0}, "trigger_ratio", "greater than 0"),
        ({"window": 100, "reserve_ratio": -0.1}, "reserve_ratio", "greater than or equal to 0"),
        ({"window": 100, "reserve_ratio": 0.8}, "reserve_ratio", "must be < trigger_ratio"),
        ({"window": 100, "trigger_ratio": 0.5, "reserve_ratio": 0.6}, "reserve_ratio", "must be < trigger_ratio"),
        ({"window": 100, "safety_margin": 0.9}, "safety_margin", "greater than or equal to 1"),
        ({"window": 100, "min_recent_messages": -1}, "min_recent_messages", "greater than or equal to 0"),
        ({"window": 100, "summary_ratio": 1}, "summary_ratio", "less than 1"),
        ({"window": 100, "summary_ratio": 0}, "summary_ratio", "greater than 0"),
        ({"window": 100, "tool_result_limit": 0}, "tool_result_limit", "greater than 0"),
        ({"window": True}, "window", "not a bool"),
        ({"window": "big"}, "window", "valid integer"),
        ({}, "window", "field required"),
        ({"window": 100, "windw": 5}, "windw", "Extra inputs"),
    ],
)
def test_violation_names_field_and_rule_on_one_line(kwargs: dict[str, object], field: str, rule: str) -> None:
    with pytest.raises(ConfigError) as info:
        ContextConfig(**kwargs)  # type: ignore[arg-type]
    message = str(info.value)
    assert message.startswith(f"ContextConfig.{field}: ")
    assert rule in message
    assert "\n" not in message
    assert isinstance(info.value, ValueError)
    assert not isinstance(info.value, ValidationError)


def test_model_validate_also_raises_config_error() -> None:
    with pytest.raises(ConfigError, match=r"ContextConfig\.window: "):
        ContextConfig.model_validate({"window": -1})
    assert ContextConfig.model_validate({"window": 10}).window == 10


def test_frozen() -> None:
    config = ContextConfig(window=1000)
    with pytest.raises(ValidationError):
        config.window = 5  # type: ignore[misc]


@settings(max_examples=150, deadline=None)
@given(
    window=st.integers(1, 10_000_000),
    trigger=st.floats(0.01, 0.9),
    reserve_share=st.floats(0, 0.99),
    margin=st.floats(1, 3),
)
def test_valid_values_give_consistent_budgets(window: int, trigger: float, reserve_share: float, margin: float) -> None:
    config = ContextConfig(
        window=window, trigger_ratio=trigger, reserve_ratio=trigger * reserve_share, safety_margin=margin
    )
    assert 0 <= config.reserve_tokens <= config.trigger_tokens <= window
    assert config.budget <= config.trigger_tokens
    assert config.recent_cap_tokens <= config.budget
    assert config.summary_tokens < config.budget or config.budget == 0
