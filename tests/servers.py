"""Real Redis, PostgreSQL and S3-compatible (moto) servers for the tests, on loopback ports in temporary folders.

Each ``start_*`` launches the real server binary as a child process bound to
127.0.0.1 on a free port, with its data in a temporary folder, waits until it
answers, and returns a `Server` whose ``stop()`` ends it and removes the
folder. The binaries come from Debian packages (``redis-server``,
``postgresql``) and PyPI (``moto[server]``); ``.ci/run`` installs what is
missing. When one cannot be found, `missing` says how to get it: the fixtures
in ``conftest.py`` skip with that message locally and fail when
``CONTEXTFOLD_REQUIRE_SERVERS=1`` (set by ``.ci/run``), so CI never skips.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

POSTGRES_BIN_DIRS = sorted(Path("/usr/lib/postgresql").glob("*/bin"), reverse=True)
STARTUP_SECONDS = 60.0  # generous: the test machines are shared and loaded


class ServerUnavailable(RuntimeError):
    """The server binary is missing or did not come up; the message says how to get it."""


@dataclass
class Server:
    """A running server: where to reach it and how to stop it."""

    name: str
    url: str
    host: str
    port: int
    process: subprocess.Popen[bytes]
    folder: Path
    log: Path
    env: dict[str, str] = field(default_factory=dict)
    command: list[str] = field(default_factory=list)
    ready: Callable[[], bool] | None = None

    def stop(self) -> None:
        """Stop the server's process group (SIGTERM, then SIGKILL) and remove its folder."""
        if self.process.poll() is None:
            _signal_group(self.process, signal.SIGTERM)
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                _signal_group(self.process, signal.SIGKILL)
                self.process.wait(timeout=20)
        _signal_group(self.process, signal.SIGKILL)  # children the leader left behind (PostgreSQL backends)
        shutil.rmtree(self.folder, ignore_errors=True)

    def kill(self) -> None:
        """SIGKILL the whole server (for tests of an unreachable store); the folder stays for `restart`.

        The server runs in its own process group (PostgreSQL under ``runuser`` is a child of it, with its
        backends): the whole group is killed, and this returns once the port no longer accepts connections.
        """
        _signal_group(self.process, signal.SIGKILL)
        self.process.wait(timeout=20)
        deadline = time.monotonic() + STARTUP_SECONDS
        while time.monotonic() < deadline:
            try:
                _connects(self.port)
            except OSError:
                break
            time.sleep(0.05)
        else:
            raise RuntimeError(f"{self.name} still accepts connections on port {self.port} after SIGKILL")
        while time.monotonic() < deadline and _group_alive(self.process.pid):
            time.sleep(0.05)  # orphaned children are reaped by init, not by us: give it a moment

    def restart(self) -> None:
        """Start the same server again on the same port (after `kill`), and wait until it answers."""
        self.kill()
        # The killed server left its lock file (PostgreSQL's postmaster.pid): every process of it is gone, so it
        # is stale, but a not yet reaped PID in it would make the new server refuse to start.
        for stale in self.folder.glob("*/postmaster.pid"):
            stale.unlink(missing_ok=True)
        with open(self.log, "ab") as out:
            self.process = subprocess.Popen(self.command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        _wait(self.ready or (lambda: _connects(self.port)), self.process, self.log, self.name)


def _signal_group(process: subprocess.Popen[bytes], sig: int) -> None:
    """Send ``sig`` to the process group the server leads (it was started in a new session)."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, sig)


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return False
    return True


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait(ready: Callable[[], bool], process: subprocess.Popen[bytes], log: Path, name: str) -> None:
    deadline = time.monotonic() + STARTUP_SECONDS
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise ServerUnavailable(f"{name} exited with code {process.returncode}: {_tail(log)}")
        with contextlib.suppress(OSError):
            if ready():
                return
        time.sleep(0.05)
    process.kill()
    raise ServerUnavailable(f"{name} did not answer within {STARTUP_SECONDS:.0f} s: {_tail(log)}")


def _tail(log: Path) -> str:
    try:
        return " | ".join(log.read_text(errors="replace").strip().splitlines()[-5:])
    except OSError:
        return "(no log)"


def _connects(port: int) -> bool:
    with socket.create_connection(("127.0.0.1", port), timeout=1):
        return True


def missing(name: str) -> str | None:
    """Why ``name`` (redis, postgres, s3) cannot start here, with how to get it; ``None`` when it can."""
    if name == "redis" and shutil.which("redis-server") is None:
        return "redis-server not found: install Debian's package (apt-get install -y redis-server)"
    if name == "postgres" and _postgres_bin("initdb") is None:
        return "PostgreSQL not found: install Debian's package (apt-get install -y postgresql)"
    if name == "postgres" and os.geteuid() == 0 and _run_as() is None:
        return "PostgreSQL refuses to run as root and no 'postgres' user exists (apt-get install -y postgresql)"
    if name == "s3":
        try:
            import moto.server  # noqa: F401
        except ImportError:
            return "moto not installed: pip install -e '.[dev]' (it brings moto[server])"
    return None


def start_redis() -> Server:
    """``redis-server`` on a free loopback port, no persistence, in a temporary folder."""
    if (why := missing("redis")) is not None:
        raise ServerUnavailable(why)
    folder = Path(tempfile.mkdtemp(prefix="cf-redis-"))
    port = free_port()
    log = folder / "redis.log"
    args = ["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--dir", str(folder), "--save", ""]
    args += ["--appendonly", "no", "--protected-mode", "yes", "--daemonize", "no", "--logfile", str(log)]
    process = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, start_new_session=True)

    def ready() -> bool:
        with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
            s.sendall(b"PING\r\n")
            return s.recv(16).startswith(b"+PONG")

    _wait(ready, process, log, "redis-server")
    url = f"redis://127.0.0.1:{port}/0"
    return Server("redis", url, "127.0.0.1", port, process, folder, log, command=args, ready=ready)


def _postgres_bin(name: str) -> str | None:
    for folder in POSTGRES_BIN_DIRS:
        if (folder / name).exists():
            return str(folder / name)
    return shutil.which(name)


def _run_as() -> list[str] | None:
    """The prefix that runs a command as the 'postgres' user when we are root (PostgreSQL refuses root)."""
    if os.geteuid() != 0:
        return []
    try:
        import pwd

        pwd.getpwnam("postgres")
    except KeyError:
        return None
    return ["runuser", "-u", "postgres", "--"] if shutil.which("runuser") else ["su", "postgres", "-s", "/bin/sh", "-c"]


def start_postgres(*, durable: bool = False) -> Server:
    """A fresh PostgreSQL cluster (``initdb``, trust auth on loopback) on a free port, in a temporary folder.

    The URL names the superuser ``contextfold`` and the database ``contextfold``, created here. For speed a
    commit returns before its WAL is written (``synchronous_commit=off``); ``durable=True`` keeps PostgreSQL's
    default, so what was committed survives a SIGKILL of the server (outage tests).
    """
    if (why := missing("postgres")) is not None:
        raise ServerUnavailable(why)
    prefix = _run_as()
    assert prefix is not None  # checked by missing()
    folder = Path(tempfile.mkdtemp(prefix="cf-pg-"))
    data = folder / "data"
    log = folder / "postgres.log"
    if prefix:
        shutil.chown(folder, "postgres", "postgres")
    port = free_port()
    initdb, postgres = _postgres_bin("initdb"), _postgres_bin("postgres")
    assert initdb is not None and postgres is not None

    def as_user(args: list[str]) -> list[str]:
        if prefix and prefix[0] == "su":
            return [*prefix, " ".join(args)]
        return [*prefix, *args]

    done = subprocess.run(
        as_user([initdb, "-D", str(data), "-U", "contextfold", "--auth=trust", "-E", "UTF8", "--no-sync"]),
        capture_output=True,
        timeout=STARTUP_SECONDS * 2,
    )
    if done.returncode != 0:
        shutil.rmtree(folder, ignore_errors=True)
        raise ServerUnavailable(f"initdb failed: {done.stderr.decode(errors='replace')[-500:]}")
    settings = ["-c", "listen_addresses=127.0.0.1", "-c", f"unix_socket_directories={folder}", "-c", "fsync=off"]
    settings += ["-c", "full_page_writes=off", "-p", str(port)]
    if not durable:
        settings += ["-c", "synchronous_commit=off"]
    command = as_user([postgres, "-D", str(data), *settings])
    with open(log, "wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    isready = _postgres_bin("pg_isready")

    def ready() -> bool:
        if isready is None:  # pragma: no cover - pg_isready ships with the server
            return _connects(port)
        probe = [isready, "-q", "-h", "127.0.0.1", "-p", str(port), "-U", "contextfold", "-d", "postgres"]
        return subprocess.run(probe, capture_output=True, timeout=STARTUP_SECONDS).returncode == 0

    _wait(ready, process, log, "postgres")  # accepting connections, not just listening (crash recovery)
    createdb = _postgres_bin("createdb")
    if createdb is not None:
        subprocess.run(
            [createdb, "-h", "127.0.0.1", "-p", str(port), "-U", "contextfold", "contextfold"],
            capture_output=True,
            timeout=STARTUP_SECONDS,
            check=True,
        )
    url = f"postgresql://contextfold@127.0.0.1:{port}/contextfold"
    return Server("postgres", url, "127.0.0.1", port, process, folder, log, command=command, ready=ready)


def start_s3() -> Server:
    """moto's S3-compatible server (``python -m moto.server``) on a free loopback port.

    ``env`` holds the settings an S3 client needs (endpoint, dummy credentials, region).
    """
    if (why := missing("s3")) is not None:
        raise ServerUnavailable(why)
    folder = Path(tempfile.mkdtemp(prefix="cf-s3-"))
    port = free_port()
    log = folder / "moto.log"
    command = [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)]
    with open(log, "wb") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    endpoint = f"http://127.0.0.1:{port}"

    def ready() -> bool:
        try:
            with urllib.request.urlopen(endpoint + "/", timeout=2) as reply:
                return bool(reply.status == 200)
        except urllib.error.HTTPError:
            return True  # answered

    _wait(ready, process, log, "moto server")
    env = {
        "AWS_ENDPOINT_URL": endpoint,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
    }
    return Server("s3", endpoint, "127.0.0.1", port, process, folder, log, env, command=command, ready=ready)


def flush_redis(server: Server) -> None:
    """Empty database 0 of a redis-server started by `start_redis` (FLUSHDB over a plain socket)."""
    with socket.create_connection(("127.0.0.1", server.port), timeout=10) as s:
        s.sendall(b"FLUSHDB\r\n")
        reply = s.recv(64)
    if not reply.startswith(b"+OK"):
        raise RuntimeError(f"FLUSHDB failed: {reply!r}")


_DATABASES = iter(range(1, 1 << 30))


def create_database(server: Server) -> str:
    """A new empty database on a cluster started by `start_postgres`; its URL."""
    name = f"cf_{os.getpid()}_{next(_DATABASES)}"
    _psql(server, f"CREATE DATABASE {name}")
    return server.url.rsplit("/", 1)[0] + "/" + name


def drop_database(server: Server, url: str) -> None:
    """Drop a database made by `create_database` (its connections are ended first)."""
    if server.process.poll() is None:
        _psql(server, f"DROP DATABASE IF EXISTS {url.rsplit('/', 1)[1]} WITH (FORCE)")


def _psql(server: Server, sql: str) -> None:
    psql = _postgres_bin("psql")
    if psql is None:
        raise ServerUnavailable("psql not found: install Debian's package (apt-get install -y postgresql)")
    done = subprocess.run(
        [psql, "-h", "127.0.0.1", "-p", str(server.port), "-U", "contextfold", "-d", "contextfold", "-q", "-c", sql],
        capture_output=True,
        timeout=STARTUP_SECONDS,
    )
    if done.returncode != 0:
        raise RuntimeError(f"psql {sql!r} failed: {done.stderr.decode(errors='replace')[-300:]}")


def make_bucket(s3: Server, name: str | None = None) -> str:
    """A new bucket on the moto server (a fresh random name unless ``name`` is given); its name."""
    import boto3

    name = name or f"cf-{uuid.uuid4().hex[:16]}"
    client = boto3.client(
        "s3",
        endpoint_url=s3.url,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    try:
        client.create_bucket(Bucket=name)
    finally:
        client.close()  # its connection pool: an open socket left to the garbage collector is a ResourceWarning
    return name


def bucket_keys(s3: Server, bucket: str) -> list[str]:
    import boto3

    client = boto3.client(
        "s3", endpoint_url=s3.url, region_name="us-east-1", aws_access_key_id="testing", aws_secret_access_key="testing"
    )
    keys: list[str] = []
    try:
        for page in client.get_paginator("list_objects_v2").paginate(Bucket=bucket):
            keys += [item["Key"] for item in page.get("Contents", [])]
    finally:
        client.close()
    return sorted(keys)
