"""The proxy's dependencies stay out of `import contextfold` (and out of `import contextfold.proxy`)."""

import subprocess
import sys

HEAVY = ("starlette", "uvicorn", "httpx2", "mcp", "prometheus_client", "anyio", "rich")


def test_core_and_proxy_package_imports_stay_light() -> None:
    code = f"import sys, contextfold, contextfold.proxy\nprint([m for m in {HEAVY!r} if m in sys.modules])"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_public_proxy_names() -> None:
    import contextfold.proxy as proxy

    assert sorted(proxy.__all__) == sorted(
        [
            "AUTH_HEADER",
            "CREDENTIAL_ENV",
            "CompactionPolicy",
            "PRECOMPUTE_MODES",
            "DEFAULT_ANTHROPIC_UPSTREAM",
            "DEFAULT_OPENAI_UPSTREAM",
            "DEFAULT_RETENTION",
            "DEFAULT_WINDOWS",
            "STATE_DB",
            "LineageRecord",
            "ProxyConfig",
            "SessionStats",
            "SessionStore",
            "StoreError",
            "UsageMode",
            "check_deployment",
            "create_app",
            "default_state_dir",
            "display_url",
            "open_store",
            "parse_duration",
            "serve",
            "serve_mcp",
            "tenant_from_env",
            "tenant_of",
        ]
    )
    for name in proxy.__all__:
        assert hasattr(proxy, name)
