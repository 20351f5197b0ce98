"""`ProxyConfig`: everything the proxy app needs, validated once, with the documented defaults."""

from __future__ import annotations

import ipaddress
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal

from contextfold._errors import ConfigError
from contextfold._stores._ops import DEFAULT_RETENTION, display_url

if TYPE_CHECKING:
    from contextfold._stores import SessionStore

__all__ = [
    "AUTH_HEADER",
    "DEFAULT_ANTHROPIC_UPSTREAM",
    "DEFAULT_OPENAI_UPSTREAM",
    "DEFAULT_WINDOWS",
    "MIN_OFFLOAD_TOKENS",
    "PRECOMPUTE_MODES",
    "CompactionPolicy",
    "ProxyConfig",
    "UsageMode",
    "default_state_dir",
    "env_proxy",
    "is_loopback",
]

AUTH_HEADER = "x-contextfold-auth"
"""Header carrying the proxy's ``--auth-token`` (``Proxy-Authorization: Bearer TOKEN`` works too)."""
DEFAULT_ANTHROPIC_UPSTREAM = "https://api.anthropic.com"
DEFAULT_OPENAI_UPSTREAM = "https://api.openai.com/v1"
DEFAULT_WINDOW = 128_000
DEFAULT_WINDOWS: Mapping[str, int] = MappingProxyType(
    {
        "claude-": 200_000,
        "gpt-5": 272_000,
        "gpt-4.1": 1_047_576,
        "gpt-4o": 128_000,
        "gpt-4-turbo": 128_000,
        "o1": 200_000,
        "o3": 200_000,
        "o4": 200_000,
    }
)
"""Context windows by model-name prefix (the longest matching prefix wins); other models get 128,000."""

UsageMode = Literal["real", "virtual"]
PRECOMPUTE_MODES = ("warm", "replacement", "off")
"""The values of `CompactionPolicy.precompute`."""
MIN_OFFLOAD_TOKENS = 500
"""The smallest first-sight cut (`CompactionPolicy.offload_tokens`) allowed: its notice and path take ~300."""


@dataclass(frozen=True, slots=True, kw_only=True)
class CompactionPolicy:
    """How deep a proxy compaction cuts (the trigger, ``ProxyConfig.trigger_ratio``, says when).

    A compaction plans the history into ``target_ratio`` of the room the trigger leaves above the fixed part
    (tools, and items carried verbatim): of that plan the summary takes at most ``summary_ratio``, and
    ``reserve_ratio`` of it (at least ``min_recent_messages`` messages) of the newest messages stays verbatim.
    Every compaction rewrites the provider's prompt cache from the replacement on, so the deeper the cut, the
    fewer rewrites a session pays for (``benchmarks/bench_proxy.py --engine-only --sweep`` measures cost and
    retention per policy).
    """

    target_ratio: float = 0.25
    summary_ratio: float = 0.4
    reserve_ratio: float = 0.1
    min_recent_messages: int = 2
    precompute: str = "warm"
    """What happens in the background once the forwarded request passes ``precompute_ratio`` of the trigger:

    - ``"warm"`` (default): the plan of that request's history runs in the engine's worker thread and is dropped;
      what it leaves cached (each message's canonical form, counts and facts) makes the compaction at the trigger,
      which still compacts that request's own history (the same bytes as ``"off"``), about twice as fast;
    - ``"replacement"``: the next replacement itself is computed from the history's shortest prefix past the
      pre-trigger, stored under ``lineage + NEXT_SUFFIX`` by compare-and-set, and promoted by the request at the
      trigger (no compaction on the request path; costlier sessions, see ``docs/proxy.md``);
    - ``"off"``: nothing; the request at the trigger compacts on the request path.
    """
    precompute_ratio: float = 0.9
    """Share of the trigger from which the background work starts."""
    offload_tokens: int = 1000
    """A new tool result above this many tokens (by more than the notice adds) is cut to them and offloaded when it
    first arrives: cache-neutral (it is new content anyway), and it saves its tokens on every later request; 0: only
    what passes the library's ``result_limit`` (a quarter of the budget) is cut."""
    fact_share: float = 0.5
    """Share of a cut's tokens given to the lines of the omitted part that carry facts (error lines, ids, paths, by
    the facts ledger's rules), listed with their line numbers after the notice; the kept head shrinks by what they
    take. 0: the head (and the last lines) only."""
    dedupe_tokens: int = 300
    """A new tool result of at least this many tokens whose text is the same as an earlier result still forwarded
    (the same file read twice) goes out as a pointer to that one (its text saved in the workspace too); 0: never."""

    def __post_init__(self) -> None:
        """Every field in range, named when it is not (a `ConfigError`: the CLI reports it as the flag's)."""
        for name in ("target_ratio", "summary_ratio", "reserve_ratio"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= 1:
                raise ConfigError(f"CompactionPolicy.{name}: must be in (0, 1] (got {value!r})")
        if not 0 < self.precompute_ratio <= 1:
            raise ConfigError(f"CompactionPolicy.precompute_ratio: must be in (0, 1] (got {self.precompute_ratio!r})")
        if not 0 <= self.fact_share <= 0.8:
            raise ConfigError(f"CompactionPolicy.fact_share: must be in [0, 0.8] (got {self.fact_share!r})")
        for name in ("min_recent_messages", "offload_tokens", "dedupe_tokens"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ConfigError(f"CompactionPolicy.{name}: must be a whole number >= 0 (got {value!r})")
        if 0 < self.offload_tokens < MIN_OFFLOAD_TOKENS:
            raise ConfigError(
                f"CompactionPolicy.offload_tokens: must be 0 (off) or at least {MIN_OFFLOAD_TOKENS} "
                f"(got {self.offload_tokens}): a cut's notice alone takes a few hundred tokens"
            )
        if self.precompute not in PRECOMPUTE_MODES:
            raise ConfigError(
                f"CompactionPolicy.precompute: must be one of {', '.join(PRECOMPUTE_MODES)} (got {self.precompute!r})"
            )


def default_state_dir(env: Mapping[str, str] | None = None) -> Path:
    """``$XDG_DATA_HOME/contextfold`` (``~/.local/share/contextfold``; ``%LOCALAPPDATA%`` on Windows)."""
    env = os.environ if env is None else env
    if env.get("XDG_DATA_HOME"):
        return Path(env["XDG_DATA_HOME"]) / "contextfold"
    if os.name == "nt" and env.get("LOCALAPPDATA"):
        return Path(env["LOCALAPPDATA"]) / "contextfold"
    return Path(env.get("HOME") or Path.home()) / ".local" / "share" / "contextfold"


def env_proxy(url: str, environ: Mapping[str, str] | None = None) -> tuple[str, str | None]:
    """``url``'s origin and the forward proxy the environment names for it (None: connect directly).

    The standard variables as curl, urllib and httpx read them (lower case first): ``https_proxy`` for an https
    origin, ``http_proxy`` for http, else ``all_proxy``; ``no_proxy`` (host suffixes, ``*``) and loopback hosts
    bypass them. ``environ`` defaults to the process environment.
    """
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    netloc = parts.netloc.rpartition("@")[2].lower()
    origin = f"{scheme}://{netloc}"
    host = parts.hostname or ""
    if not host or is_loopback(host):
        return origin, None
    proxies: dict[str, str] = {}
    for name, value in (os.environ if environ is None else environ).items():
        low = name.lower()
        if value and low.endswith("_proxy") and (name == low or low[:-6] not in proxies):
            proxies[low[:-6]] = value  # the lower-case variable wins, as in urllib
    if _bypassed(host.lower(), netloc, proxies.get("no", "")):
        return origin, None
    variable = scheme if proxies.get(scheme) else "all"
    proxy = proxies.get(variable)
    if not proxy:
        return origin, None
    if "://" not in proxy:
        proxy = f"http://{proxy}"
    if not proxy.lower().startswith(("http://", "https://")):
        raise ConfigError(
            f"{variable.upper()}_PROXY={display_url(proxy)}: only http:// and https:// forward proxies are supported "
            f"for the upstream {origin}; unset it, add the host to NO_PROXY, or pass --no-trust-env"
        )
    return origin, proxy


def _bypassed(host: str, netloc: str, no_proxy: str) -> bool:
    """Whether ``NO_PROXY`` names the host: ``*``, it or a parent domain, its ``host:port``, an IP network."""
    for entry in no_proxy.split(","):
        name = entry.strip().lower().lstrip(".")
        if name == "*":
            return True
        if not name:
            continue
        if name in (host, netloc) or host.endswith("." + name):
            return True
        try:
            if ipaddress.ip_address(host.strip("[]")) in ipaddress.ip_network(name.strip("[]"), strict=False):
                return True
        except ValueError:
            continue
    return False


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (``127.0.0.0/8``, ``::1``, ``localhost``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True, kw_only=True)
class ProxyConfig:
    """Settings of one proxy app (``contextfold proxy`` builds it from its flags)."""

    anthropic_upstream: str = DEFAULT_ANTHROPIC_UPSTREAM
    """Where ``/v1/messages`` (and any request with an Anthropic key) goes."""
    openai_upstream: str = DEFAULT_OPENAI_UPSTREAM
    """Where ``/v1/chat/completions``, ``/v1/responses`` and other OpenAI requests go (includes ``/v1``)."""
    window: int | None = None
    """One window for every model (``--window``); None uses `windows`."""
    windows: Mapping[str, int] = field(default_factory=lambda: DEFAULT_WINDOWS)
    """Window by model-name prefix, overridable."""
    default_window: int = DEFAULT_WINDOW
    """Window of a model no prefix matches."""
    trigger_ratio: float = 0.7
    """Compact when a forwarded request would pass this share of the window.

    Lower than the library's 0.8 (`ContextConfig`): a proxy's requests are paid with a prompt cache, where every
    turn re-reads the whole prefix, so a compaction that comes earlier saves on every later turn for one rewrite.
    Measured by ``benchmarks/bench_proxy.py --engine-only --sweep`` over the dev corpus at a 64,000 window: 0.7
    against 0.8 forwards 0.72x instead of 0.75x of direct's tokens, costs 0.46-0.50x instead of 0.48-0.54x of direct
    on the sessions that outgrow the window, keeps more (retention 79.4 against 78.6 %), and no session costs more
    than direct; 0.6 is cheaper still but made one session cost 1.005x of direct."""
    compaction: CompactionPolicy = field(default_factory=lambda: CompactionPolicy())
    """How deep a compaction cuts, what runs ahead of the trigger, and the cuts at first sight (`CompactionPolicy`;
    ``--offload-tokens``, ``--dedupe-tokens``, ``--precompute``, ``--target-ratio``)."""
    state_dir: Path = field(default_factory=default_state_dir)
    """Session store and workspace (offloaded content) live here."""
    store: SessionStore | None = None
    """A session store to use instead of the SQLite file in `state_dir` (embedding, other backends)."""
    store_url: str | None = None
    """``--store``: ``sqlite:///PATH``, ``redis://HOST:PORT/DB``, ``postgresql://...``; None: SQLite in `state_dir`."""
    workspace_url: str | None = None
    """``--workspace-url``: offloaded content in an object store (``s3://BUCKET/PREFIX``, ``file:///DIR``, ...)."""
    retention: float | None = DEFAULT_RETENTION
    """Seconds a shared store keeps an idle session (Redis TTL, Postgres purge); None keeps everything."""
    host: str = "127.0.0.1"
    port: int = 8787
    auth_token: str | None = None
    """Required on every request when set (header ``x-contextfold-auth`` or ``Proxy-Authorization: Bearer``)."""
    usage: UsageMode = "real"
    """``real``: relay the upstream's usage; ``virtual``: report the tokens of the history the client sent."""
    max_body_bytes: int = 64 * 1024 * 1024
    """Request bodies above this are not parsed: they are streamed to the upstream unchanged."""
    counter: str = "calibrated"
    """Token counter spec (see `contextfold._tokens._factory.make_counter`)."""
    quiet: bool = False
    """No console line per request."""
    connect_timeout: float = 30.0
    read_timeout: float = 900.0
    """Seconds between two chunks of an upstream response before the proxy gives up (long generations stream)."""
    trust_env: bool = True
    """Reach the upstreams as the official SDKs do: through ``HTTPS_PROXY`` / ``HTTP_PROXY`` / ``ALL_PROXY`` unless
    ``NO_PROXY`` names the host, trusting ``SSL_CERT_FILE`` / ``SSL_CERT_DIR``; a loopback upstream is always reached
    directly. False (``--no-trust-env``) ignores those variables."""

    def __post_init__(self) -> None:
        self._check_network()
        self._check_limits()
        object.__setattr__(self, "state_dir", Path(self.state_dir))
        self._check_shared_state()

    def _check_network(self) -> None:
        """Upstream URLs (normalized without a trailing slash), port, and the auth token a non-loopback host needs."""
        for name in ("anthropic_upstream", "openai_upstream"):
            url = getattr(self, name)
            if not isinstance(url, str) or not url.startswith(("http://", "https://")):
                raise ConfigError(f"ProxyConfig.{name}: must be an http:// or https:// URL (got {url!r})")
            object.__setattr__(self, name, url.rstrip("/"))
        if not 0 <= self.port <= 65535:
            raise ConfigError(f"ProxyConfig.port: must be 0-65535 (got {self.port})")
        if self.auth_token is not None and len(self.auth_token) < 16:
            raise ConfigError("ProxyConfig.auth_token: use at least 16 characters")
        if not is_loopback(self.host) and not self.auth_token:
            raise ConfigError(
                f"binding {self.host} makes the proxy reachable from other machines: "
                "set an auth token (--auth-token, at least 16 characters)"
            )

    def _check_limits(self) -> None:
        """Windows, trigger, usage mode and body cap."""
        if self.window is not None and (isinstance(self.window, bool) or self.window < 1000):
            raise ConfigError(f"ProxyConfig.window: must be at least 1000 tokens (got {self.window!r})")
        for prefix, size in self.windows.items():
            if not isinstance(size, int) or size < 1000:
                raise ConfigError(f"ProxyConfig.windows[{prefix!r}]: must be at least 1000 tokens (got {size!r})")
        if not 0 < self.trigger_ratio <= 0.9:
            raise ConfigError(f"ProxyConfig.trigger_ratio: must be in (0, 0.9] (got {self.trigger_ratio})")
        if self.usage not in ("real", "virtual"):
            raise ConfigError(f"ProxyConfig.usage: must be 'real' or 'virtual' (got {self.usage!r})")
        if not isinstance(self.compaction, CompactionPolicy):
            got = type(self.compaction).__name__
            raise ConfigError(f"ProxyConfig.compaction: must be a CompactionPolicy (got {got})")
        if self.max_body_bytes < 1024:
            raise ConfigError(f"ProxyConfig.max_body_bytes: must be at least 1024 (got {self.max_body_bytes})")

    def _check_shared_state(self) -> None:
        """The store and workspace URLs replicas share, and the retention."""
        if self.store_url is not None:
            from contextfold._stores import STORE_SCHEMES

            scheme = self.store_url.partition("://")[0].lower().split("+")[0]
            if "://" not in self.store_url or scheme not in STORE_SCHEMES:
                raise ConfigError(
                    "ProxyConfig.store_url: use sqlite:///PATH, redis://HOST:PORT/DB or postgresql://USER@HOST/DB "
                    f"(got {self.store_url.partition('@')[2] or self.store_url!r})"
                )
        if self.workspace_url is not None:
            from contextfold._workspace._object import is_object_url

            if not is_object_url(self.workspace_url):
                raise ConfigError(
                    "ProxyConfig.workspace_url: use s3://BUCKET/PREFIX, gs://BUCKET/PREFIX, az://ACCOUNT/CONTAINER, "
                    f"file:///ABSOLUTE/DIR or memory:/// (got {self.workspace_url!r})"
                )
        if self.retention is not None and not self.retention >= 1:
            raise ConfigError(f"ProxyConfig.retention: must be at least 1 second, or None (got {self.retention!r})")

    def upstream_proxies(self, environ: Mapping[str, str] | None = None) -> dict[str, str]:
        """The forward proxy of each upstream origin that has one (``{"https://api.anthropic.com": "http://..."}``).

        Read from ``environ`` (default: the process environment) when called, if `trust_env`; raises `ConfigError`
        naming the variable when its proxy is not an ``http://`` or ``https://`` URL, which the clients cannot speak.
        """
        if not self.trust_env:
            return {}
        out: dict[str, str] = {}
        for url in (self.anthropic_upstream, self.openai_upstream):
            origin, proxy = env_proxy(url, environ)
            if proxy is not None:
                out[origin] = proxy
        return out

    def window_for(self, model: str | None) -> int:
        """The window of ``model``: `window` if set, else the longest matching prefix, else `default_window`."""
        if self.window is not None:
            return self.window
        name = (model or "").lower()
        best = ""
        for prefix in self.windows:
            if name.startswith(prefix.lower()) and len(prefix) > len(best):
                best = prefix
        return self.windows[best] if best else self.default_window
