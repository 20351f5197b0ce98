"""The store and object-store clients are imported only by their adapters, when a URL asks for them."""

import subprocess
import sys

CLIENTS = ("redis", "sqlalchemy", "asyncpg", "obstore", "boto3")


def _loaded(code: str) -> list[str]:
    probe = f"import sys\n{code}\nprint(sorted(m for m in {CLIENTS!r} if m in sys.modules))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return list(eval(out.stdout.strip()))


def test_the_proxy_and_its_engine_import_no_store_client() -> None:
    code = "import contextfold, contextfold.proxy, contextfold.proxy._engine, contextfold._stores, contextfold._cli"
    assert _loaded(code) == []


def test_each_url_loads_only_its_own_client() -> None:
    sqlite = "from contextfold._stores import open_store\nopen_store('sqlite:///tmp/cf-imports.sqlite3')"
    assert _loaded(sqlite) == []
    redis = "from contextfold._stores import open_store\nopen_store('redis://127.0.0.1:1/0')"
    assert _loaded(redis) == ["redis"]
    postgres = "from contextfold._stores import open_store\nopen_store('postgresql://u@127.0.0.1:1/db')"
    assert _loaded(postgres) == ["asyncpg", "sqlalchemy"]
    objects = "from contextfold._workspace._object import ObjectRoot\nObjectRoot('memory:///')"
    assert _loaded(objects) == ["obstore"]
