"""Tenants: a one-way hash of the client's credential, the key every stored item is filed under.

The credential itself is forwarded verbatim and never stored or logged; only
this hash is. ``x-api-key: K`` and ``Authorization: Bearer K`` are the same
tenant, so the MCP server can find a client's content from the same key in
its environment (`CREDENTIAL_ENV`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

__all__ = ["CREDENTIAL_ENV", "credential_of", "tenant_from_env", "tenant_of"]

CREDENTIAL_ENV = ("CONTEXTFOLD_API_KEY", "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "OPENAI_API_KEY")
"""Environment variables the MCP server and ``proxy stats`` read the caller's credential from, first set wins."""
_SALT = b"contextfold-tenant-v1:"


def credential_of(headers: Mapping[str, str]) -> str:
    """The credential a request carries: ``x-api-key``, else the token of ``Authorization``, else ''."""
    key = headers.get("x-api-key")
    if key:
        return key.strip()
    auth = headers.get("authorization", "").strip()
    scheme, _, token = auth.partition(" ")
    if token and scheme.lower() == "bearer":
        return token.strip()
    return auth


def tenant_of(credential: str) -> str:
    """The tenant id of a credential: 32 hex digits, the same in every process."""
    return hashlib.blake2b(_SALT + credential.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()


def tenant_from_env(env: Mapping[str, str], variable: str | None = None) -> tuple[str, str] | None:
    """``(variable, tenant)`` for the first credential variable set (or the one named), else None."""
    names = (variable,) if variable else CREDENTIAL_ENV
    for name in names:
        value = env.get(name)
        if value:
            return name, tenant_of(value.strip())
    return None
