"""The `SessionStore` contract (`store_contract`) against every backend: SQLite, real Redis, real PostgreSQL."""

from __future__ import annotations

from store_contract import *  # noqa: F403  (the contract tests run against the parametrized `store` fixture)
