"""The ``contextfold`` command line: a thin, injectable shell over the library.

``main(argv, stdout, stderr, env)`` returns the exit code, so tests drive it
in-process with their own streams. Each sub-command lives in its own module
with a ``register(subparsers)`` function; the handler it sets receives a
`CLIContext` and returns the exit code. A user mistake is one line on stderr
and exit code 2; a traceback only with ``--debug``.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import IO, TYPE_CHECKING, Any, cast

from contextfold._errors import ContextfoldError, InputError

if TYPE_CHECKING:
    from rich.console import Console

__all__ = ["CLIContext", "main", "run"]

EXIT_OK = 0
EXIT_FOUND = 1
EXIT_USAGE = 2


@dataclass
class CLIContext:
    """What a sub-command handler gets: its arguments and the injected streams."""

    args: argparse.Namespace
    stdout: IO[str]
    stderr: IO[str]
    env: Mapping[str, str]

    def console(self, *, stderr: bool = False) -> Console:
        """A rich console on the injected stream (fixed width when not a terminal; NO_COLOR honoured)."""
        from rich.console import Console

        stream = self.stderr if stderr else self.stdout
        is_tty = bool(getattr(stream, "isatty", lambda: False)())
        width = None if is_tty else int(self.env.get("COLUMNS", "100"))
        return Console(
            file=cast(IO[str], _Utf8Safe(stream)),
            width=width,
            no_color="NO_COLOR" in self.env or not is_tty,
            force_terminal=is_tty,
            highlight=False,
            soft_wrap=False,
        )


Handler = Callable[[CLIContext], int]


class _Utf8Safe:
    r"""A text stream that writes lone surrogates (from input JSON such as ``"\ud800"``) as escapes.

    UTF-8 cannot carry them, so printing one would raise `UnicodeEncodeError`; everything else is passed through.
    """

    def __init__(self, stream: IO[str]) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        from contextfold._formats._files import escape_surrogates

        return self._stream.write(escape_surrogates(text))

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class _Parser(argparse.ArgumentParser):
    """An argparse parser that raises instead of exiting, so ``main`` controls output."""

    def error(self, message: str) -> Any:
        raise _UsageError(f"{self.prog}: {message}")


class _UsageError(ContextfoldError):
    """A command line argparse refused; ``main`` prints it and exits with the usage status."""


def _command_modules() -> list[Any]:
    from contextfold._cli import (
        _compact,
        _count,
        _demo,
        _guard,
        _inspect,
        _prompt,
        _proxy,
        _run,
        _validate,
        _workspace,
    )

    return [_compact, _count, _demo, _guard, _inspect, _prompt, _proxy, _run, _validate, _workspace]


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser with every sub-command registered."""
    parser = _Parser(prog="contextfold", description="Keep tool-using LLM agents inside their context window.")
    parser.add_argument("--debug", action="store_true", help="show tracebacks for errors")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for module in _command_modules():
        module.register(sub)
    return parser


def main(
    argv: Sequence[str] | None = None,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> int:
    """Run the CLI and return its exit code (never raises for a user mistake)."""
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    environ = env if env is not None else os.environ
    parser = build_parser()
    try:
        with contextlib.redirect_stdout(out):  # --help prints to the injected stdout, not the process's
            args = parser.parse_args(list(argv) if argv is not None else None)
    except _UsageError as exc:
        print(str(exc), file=err)
        return EXIT_USAGE
    except SystemExit as exc:  # --help: argparse exits after printing
        return exc.code if isinstance(exc.code, int) else EXIT_OK
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help(file=out)
        return EXIT_USAGE
    ctx = CLIContext(args=args, stdout=out, stderr=err, env=environ)
    try:
        return handler(ctx)
    except (InputError, ContextfoldError, OSError) as exc:
        if args.debug:
            raise
        from contextfold._formats._files import escape_surrogates

        print(f"contextfold: error: {escape_surrogates(_describe(exc))}", file=err)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("contextfold: interrupted", file=err)
        return 130


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.filename is not None:
        return f"{exc.filename}: {exc.strerror or exc}"
    return str(exc)


def run() -> None:
    """Console-script entry point."""
    raise SystemExit(main())
