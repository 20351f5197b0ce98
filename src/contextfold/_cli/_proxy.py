"""``contextfold proxy`` (serve), ``contextfold proxy stats`` and ``contextfold mcp``.

The proxy and the MCP server need the ``proxy`` extra; without it each says
which ``pip install`` to run. A bad flag value is one line and exit code 2.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from contextfold import ConfigError, InputError

if TYPE_CHECKING:
    from contextfold._cli import CLIContext

__all__ = ["register"]


def register(subparsers: Any) -> None:
    """Add ``proxy`` (with its ``stats`` action) and ``mcp``."""
    parser = subparsers.add_parser(
        "proxy",
        help="run the context-managing proxy in front of Anthropic/OpenAI (see docs/proxy.md)",
        description=(
            "Serve an HTTP proxy for Claude Code, Codex CLI and any OpenAI or Anthropic SDK client: requests are "
            "forwarded compacted to the window, oversized tool results offloaded, prompt caching kept intact. "
            "Point the client at it (ANTHROPIC_BASE_URL=http://127.0.0.1:8787, OPENAI_BASE_URL=.../v1)."
        ),
    )
    parser.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default 127.0.0.1; others need --auth-token)"
    )
    parser.add_argument("--port", type=int, default=8787, help="port to listen on (default 8787)")
    parser.add_argument("--anthropic-upstream", default=None, metavar="URL", help="default https://api.anthropic.com")
    parser.add_argument("--openai-upstream", default=None, metavar="URL", help="default https://api.openai.com/v1")
    parser.add_argument("--window", type=int, default=None, metavar="N", help="one context window for every model")
    parser.add_argument(
        "--model-window",
        action="append",
        default=[],
        metavar="PREFIX=N",
        help="window for models whose name starts with PREFIX (repeatable; overrides the built-in table)",
    )
    parser.add_argument("--state", default=None, metavar="DIR", help="state directory (default: per-user data dir)")
    parser.add_argument(
        "--auth-token",
        default=None,
        metavar="TOKEN",
        help="require this token on every request (header x-contextfold-auth); env CONTEXTFOLD_AUTH_TOKEN",
    )
    parser.add_argument(
        "--usage",
        choices=("real", "virtual"),
        default="real",
        help="usage reported to the client: the upstream's (real, default) or the full history's size (virtual)",
    )
    parser.add_argument("--max-body-bytes", type=int, default=64 * 1024 * 1024, metavar="N", help=argparse.SUPPRESS)
    _add_policy_arguments(parser)
    parser.add_argument("--quiet", action="store_true", help="no console line per request")
    parser.add_argument(
        "--no-trust-env",
        action="store_true",
        help="ignore HTTPS_PROXY / HTTP_PROXY / ALL_PROXY / NO_PROXY and SSL_CERT_FILE / SSL_CERT_DIR (by default the "
        "upstreams are reached as the official SDKs reach them; a loopback upstream always directly)",
    )
    _add_store_arguments(parser)
    parser.add_argument(
        "--workspace-url",
        default=None,
        metavar="URL",
        help="offloaded content in an object store shared by replicas: s3://BUCKET/PREFIX, gs://..., az://..., "
        "file:///DIR (default: the workspace under --state); env CONTEXTFOLD_WORKSPACE_URL",
    )
    parser.add_argument(
        "--retention",
        default=None,
        metavar="DURATION",
        help="how long a shared store keeps an idle session: 90s, 12h, 7d (default), 2w, or 'none' "
        "(Redis TTL, Postgres purge; the SQLite file keeps everything)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="check the store (and the workspace URL) and exit: 0 and one line when they answer, 2 otherwise",
    )
    parser.set_defaults(handler=_serve)
    sub = parser.add_subparsers(dest="proxy_command", metavar="ACTION", parser_class=type(parser))
    stats = sub.add_parser("stats", help="per-session counters of the proxy's state (your credential's sessions)")
    stats.add_argument("--state", default=None, metavar="DIR", help="state directory (default: per-user data dir)")
    stats.add_argument("--json", action="store_true", help="print JSON")
    stats.add_argument("--all", action="store_true", help="every credential's sessions (counters only, hashed ids)")
    stats.add_argument("--key-env", default=None, metavar="VAR", help="read your credential from this variable")
    _add_store_arguments(stats)
    stats.set_defaults(handler=_stats)

    mcp = subparsers.add_parser(
        "mcp",
        help="serve read_offloaded/search_offloaded over the proxy's state (MCP, stdio)",
        description=(
            "An MCP stdio server with read_offloaded and search_offloaded over what the proxy offloaded for your "
            "credential, read from the first set of CONTEXTFOLD_API_KEY, ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, "
            "OPENAI_API_KEY (or --key-env VAR). Register it: claude mcp add contextfold -- contextfold mcp"
        ),
    )
    mcp.add_argument("--state", default=None, metavar="DIR", help="state directory (default: per-user data dir)")
    mcp.add_argument("--key-env", default=None, metavar="VAR", help="read your credential from this variable")
    mcp.add_argument(
        "--workspace-url",
        default=None,
        metavar="URL",
        help="the proxy's --workspace-url, when it offloads to an object store; env CONTEXTFOLD_WORKSPACE_URL",
    )
    mcp.set_defaults(handler=_mcp)


_POLICY_FLAGS = {
    "offload_tokens": "--offload-tokens",
    "dedupe_tokens": "--dedupe-tokens",
    "precompute": "--precompute",
    "target_ratio": "--target-ratio",
}
"""`CompactionPolicy` fields set by flags: a field's error is reported as its flag's."""


def _add_policy_arguments(parser: Any) -> None:
    """The compaction policy's flags (defaults: `CompactionPolicy`; see docs/proxy.md, "Tuning")."""
    group = parser.add_argument_group("compaction policy (defaults chosen by benchmarks/bench_proxy.py --sweep)")
    group.add_argument(
        "--trigger-ratio",
        type=float,
        default=None,
        metavar="R",
        help="compact when a request would pass this share of the window (default 0.7; at most 0.9)",
    )
    group.add_argument(
        "--target-ratio",
        type=float,
        default=None,
        metavar="R",
        help="how deep a compaction cuts: the history is planned into this share of the room under the trigger "
        "(default 0.25; smaller: fewer compactions, shorter history)",
    )
    group.add_argument(
        "--offload-tokens",
        type=int,
        default=None,
        metavar="N",
        help="a new tool result above N tokens is cut to N at first sight (its head, the lines of the rest that "
        "name errors, ids and paths, its last lines) and saved whole for read-back; 0: only results above a "
        "quarter of the window (default 1000; at least 500)",
    )
    group.add_argument(
        "--dedupe-tokens",
        type=int,
        default=None,
        metavar="N",
        help="a new tool result of at least N tokens identical to an earlier one still in the context goes out as "
        "a pointer to it; 0: never (default 300)",
    )
    group.add_argument(
        "--precompute",
        choices=("warm", "replacement", "off"),
        default=None,
        help="background work before the trigger: warm (default: the plan's caches warmed, the same bytes as off), "
        "replacement (the next replacement computed ahead and promoted: no compaction on the request path, "
        "costlier), off",
    )


def compaction_policy(args: argparse.Namespace) -> Any:
    """The `CompactionPolicy` of the flags (unset flags keep the defaults); a bad value names its flag."""
    from contextfold.proxy import CompactionPolicy

    values = {field: getattr(args, field) for field in _POLICY_FLAGS if getattr(args, field, None) is not None}
    try:
        return CompactionPolicy(**values)
    except ConfigError as exc:
        text = str(exc)
        for field, flag in _POLICY_FLAGS.items():
            prefix = f"CompactionPolicy.{field}:"
            if text.startswith(prefix):
                raise ConfigError(flag + ":" + text[len(prefix) :]) from None
        raise


def _add_store_arguments(parser: Any) -> None:
    parser.add_argument(
        "--store",
        default=None,
        metavar="URL",
        help="session store: sqlite:///PATH (default: the file under --state), redis://HOST:PORT/DB or "
        "postgresql://USER@HOST:PORT/DB, shared by replicas (see docs/scale-out.md); env CONTEXTFOLD_STORE",
    )


def _store_url(ctx: CLIContext) -> str | None:
    return ctx.args.store or ctx.env.get("CONTEXTFOLD_STORE") or None


def _workspace_url(ctx: CLIContext) -> str | None:
    return ctx.args.workspace_url or ctx.env.get("CONTEXTFOLD_WORKSPACE_URL") or None


def _state_dir(ctx: CLIContext) -> Path:
    from contextfold.proxy import default_state_dir

    return Path(ctx.args.state) if ctx.args.state else default_state_dir(ctx.env)


def _windows(values: list[str]) -> dict[str, int]:
    from contextfold.proxy import DEFAULT_WINDOWS

    table = dict(DEFAULT_WINDOWS)
    for value in values:
        prefix, sep, size = value.partition("=")
        if not sep or not prefix or not size.strip().isdigit():
            raise ConfigError(f"--model-window {value!r}: use PREFIX=TOKENS, e.g. claude-=200000")
        table[prefix] = int(size)
    return table


def _serve(ctx: CLIContext) -> int:
    if getattr(ctx.args, "proxy_command", None):
        return 2  # pragma: no cover - the action's own handler runs instead
    config = proxy_config(ctx)
    if ctx.args.check:
        return _check(ctx, config)
    from contextfold.proxy import display_url, serve

    where = display_url(config.store_url) if config.store_url else f"state {config.state_dir}"
    if config.workspace_url:
        where += f", workspace {config.workspace_url}"
    proxies = config.upstream_proxies(ctx.env)  # an unusable proxy variable is an error now, not per request
    if proxies:
        where += ", via " + ", ".join(f"{origin} -> {display_url(proxy)}" for origin, proxy in proxies.items())
    policy = config.compaction
    banner = (
        f"contextfold proxy on http://{config.host}:{config.port}  "
        f"(anthropic -> {config.anthropic_upstream}, openai -> {config.openai_upstream}, "
        f"window {config.window or 'per model'}, usage {config.usage}, {where}; compaction at "
        f"{config.trigger_ratio:g} to {policy.target_ratio:g}, offload {policy.offload_tokens}, "
        f"dedupe {policy.dedupe_tokens}, precompute {policy.precompute})"
    )
    console = ctx.console(stderr=True)
    quiet = config.quiet
    serve(config, log=None if quiet else lambda line: console.print(line, markup=False, highlight=False), banner=banner)
    return 0


def proxy_config(ctx: CLIContext) -> Any:
    """The `ProxyConfig` of ``contextfold proxy``'s flags and environment (validated: `ConfigError` names the flag)."""
    args = ctx.args
    from contextfold.proxy import (
        DEFAULT_ANTHROPIC_UPSTREAM,
        DEFAULT_OPENAI_UPSTREAM,
        DEFAULT_RETENTION,
        ProxyConfig,
        parse_duration,
    )

    if args.trigger_ratio is not None and not 0 < args.trigger_ratio <= 0.9:
        raise ConfigError(f"--trigger-ratio: must be in (0, 0.9] (got {args.trigger_ratio:g})")
    retention = DEFAULT_RETENTION if args.retention is None else parse_duration(args.retention)
    trigger = {} if args.trigger_ratio is None else {"trigger_ratio": args.trigger_ratio}
    return ProxyConfig(
        **trigger,
        compaction=compaction_policy(args),
        host=args.host,
        port=args.port,
        anthropic_upstream=args.anthropic_upstream or DEFAULT_ANTHROPIC_UPSTREAM,
        openai_upstream=args.openai_upstream or DEFAULT_OPENAI_UPSTREAM,
        window=args.window,
        windows=_windows(args.model_window),
        state_dir=_state_dir(ctx),
        auth_token=args.auth_token or ctx.env.get("CONTEXTFOLD_AUTH_TOKEN") or None,
        usage=args.usage,
        max_body_bytes=args.max_body_bytes,
        quiet=args.quiet,
        store_url=_store_url(ctx),
        workspace_url=_workspace_url(ctx),
        retention=retention,
        trust_env=not args.no_trust_env,
    )


def _check(ctx: CLIContext, config: Any) -> int:
    """``--check``: the store's (and workspace's) one-line verdict; exit 0 when everything answers, else 2."""
    import asyncio

    from contextfold import WorkspaceError
    from contextfold.proxy import StoreError, check_deployment

    try:
        lines = asyncio.run(check_deployment(config))
    except (StoreError, WorkspaceError) as exc:
        print(f"contextfold proxy --check: {exc}", file=ctx.stderr)
        return 2
    print("contextfold proxy --check: ok: " + "; ".join(lines), file=ctx.stdout)
    return 0


def _credential_tenant(ctx: CLIContext) -> tuple[str, str] | None:
    from contextfold.proxy import tenant_from_env

    return tenant_from_env(ctx.env, ctx.args.key_env)


def _stats(ctx: CLIContext) -> int:
    import asyncio

    from contextfold.proxy import STATE_DB, open_store

    state = _state_dir(ctx)
    url = _store_url(ctx)
    if url is None and not (state / STATE_DB).is_file():
        raise InputError(
            f"no proxy state here (no {STATE_DB}); run `contextfold proxy --state {state}` first", source=str(state)
        )
    found = _credential_tenant(ctx)
    if not ctx.args.all and found is None:
        raise InputError(
            "no credential in the environment (CONTEXTFOLD_API_KEY, ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN, "
            "OPENAI_API_KEY): set the one your client uses, or pass --all for every credential's counters"
        )

    async def read() -> list[tuple[str, Any]]:
        store = open_store(url or state, retention=None)
        try:
            tenants = await store.tenants() if ctx.args.all else [found[1]] if found else []
            return [(t, s) for t in tenants for s in await store.session_stats(t)]
        finally:
            await store.aclose()

    rows = asyncio.run(read())
    if ctx.args.json:
        out = [dict(s.to_dict(), tenant=t[:12]) if ctx.args.all else s.to_dict() for t, s in rows]
        json.dump({"sessions": out}, ctx.stdout, indent=2)
        ctx.stdout.write("\n")
        return 0
    from rich.table import Table

    from contextfold.proxy import display_url

    table = Table(title=f"contextfold proxy sessions ({display_url(url) if url else state})")
    if ctx.args.all:
        table.add_column("tenant")
    for name in ("session", "requests", "tokens in", "tokens out", "saved", "compactions", "offloads", "cache reuse"):
        table.add_column(name, justify="left" if name == "session" else "right")
    for tenant, s in rows:
        saved = f"{1 - s.tokens_out / s.tokens_in:.0%}" if s.tokens_in else "-"
        cells = [
            s.session[:40],
            str(s.requests),
            str(s.tokens_in),
            str(s.tokens_out),
            saved,
            str(s.compactions),
            str(s.offloads),
            str(s.cache_reuse),
        ]
        table.add_row(*([tenant[:12]] if ctx.args.all else []), *cells)
    ctx.console().print(table)
    if not rows:
        print("no sessions for this credential yet", file=ctx.stdout)
    return 0


def _mcp(ctx: CLIContext) -> int:
    found = _credential_tenant(ctx)
    if found is None:
        raise InputError(
            "contextfold mcp needs your credential to find your content: set the variable your client uses "
            "(CONTEXTFOLD_API_KEY, ANTHROPIC_API_KEY, ANTHROPIC_AUTH_TOKEN or OPENAI_API_KEY) or pass --key-env VAR"
        )
    from contextfold.proxy import serve_mcp

    serve_mcp(_state_dir(ctx), found[1], workspace_url=_workspace_url(ctx))
    return 0
