"""The harness's own configuration: where clients live, the Codex config, when a missing proxy fails."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

import agent_clients as agents
import hops
import pytest


def test_cache_dir_follows_the_environment(tmp_path: Path) -> None:
    assert agents.cache_dir({"CONTEXTFOLD_E2E_CLIENTS": str(tmp_path)}) == tmp_path
    assert agents.cache_dir({"XDG_CACHE_HOME": "/x", "HOME": "/h"}) == Path("/x/contextfold-e2e")
    assert agents.cache_dir({"HOME": "/h"}) == Path("/h/.cache/contextfold-e2e")


def test_missing_clients_are_named_with_their_versions(tmp_path: Path) -> None:
    problem = agents.missing(tmp_path)
    assert problem is not None
    assert "@anthropic-ai/claude-code@2.1.332" in problem and "@openai/codex@0.171.0" in problem


def test_install_without_npm_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    with pytest.raises(RuntimeError, match="npm not found"):
        agents.install(tmp_path / "cache")
    assert not (tmp_path / "cache").exists()


def test_codex_config_points_at_the_hop_and_stays_offline() -> None:
    config = tomllib.loads(agents.codex_config("http://127.0.0.1:9/v1", extra="model_auto_compact_token_limit = 5\n"))
    provider = config["model_providers"][config["model_provider"]]
    assert provider["base_url"] == "http://127.0.0.1:9/v1" and provider["wire_api"] == "responses"
    assert provider["env_key"] == "E2E_OPENAI_API_KEY" and config["model_auto_compact_token_limit"] == 5
    assert config["features"]["plugins"] is False and config["analytics"]["enabled"] is False
    assert config["check_for_update_on_startup"] is False


@pytest.mark.parametrize(
    ("env", "required"),
    [({"CONTEXTFOLD_E2E_REQUIRE_PROXY": "1"}, True), ({"CONTEXTFOLD_E2E_REQUIRE_PROXY": "0"}, False)],
)
def test_proxy_requirement_switch(env: dict[str, str], required: bool) -> None:
    assert hops.proxy_required(env) is required


def test_proxy_required_by_default_once_the_package_exists() -> None:
    exists = (Path(hops.contextfold.__file__).parent / "proxy").is_dir()
    assert hops.proxy_required({}) is exists
    assert hops.proxy_required({"CONTEXTFOLD_E2E_PROXY_CMD": "x"}) is True


def test_the_proxy_command_can_be_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    assert hops.proxy_command("--help") == [sys.executable, "-m", "contextfold", "proxy", "--help"]
    monkeypatch.setenv("CONTEXTFOLD_E2E_PROXY_CMD", "/other/python -m contextfold proxy")
    assert hops.proxy_command("--port", "1") == ["/other/python", "-m", "contextfold", "proxy", "--port", "1"]
    monkeypatch.setenv("CONTEXTFOLD_E2E_PROXY_CMD", f"{sys.executable} -c 'raise SystemExit(3)'")
    assert "exited 3" in (hops.proxy_unavailable() or "")


def test_passthrough_stand_in_forwards_to_the_upstream(tmp_path: Path) -> None:
    import anthropic
    from upstream import ShellScript, Upstream

    with (
        Upstream(ShellScript(["true"])) as upstream,
        hops.through_proxy(
            upstream.url, tmp_path / "state", window=0, command=hops.passthrough_command, name="passthrough"
        ) as hop,
    ):
        client = anthropic.Anthropic(base_url=hop.anthropic_url, api_key="k", max_retries=0)
        with client.messages.stream(model="m", max_tokens=5, messages=[{"role": "user", "content": "hi"}]) as events:
            assert events.get_final_message().content[0].type == "text"
        recorded = upstream.recorded()
    assert [(r.path, r.role) for r in recorded] == [("/v1/messages", "side")]
