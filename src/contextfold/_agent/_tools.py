"""Tools for the agent loop: plain Python functions with JSON schemas derived from their signatures.

A model can only call what it can read a schema for, and hand-written schemas
drift from the code they describe. So `Tool.from_function` (or the `tool`
decorator) builds the schema from the type hints with pydantic and takes the
descriptions from the docstring (its first paragraph for the tool, the
``Args:`` section or ``:param x:`` lines for the parameters). The same pydantic
model validates the arguments the model sends, so a wrong type becomes an
error result the model can read and fix instead of an exception in the loop.

Everything a tool does wrong ends up as an error `ToolResultBlock`: invalid
JSON arguments, arguments that do not match the schema, an unknown tool name,
an exception raised by the function. The loop never crashes on a tool.

`ToolExecutor` is the small interface the agent runs tools through (``specs``
plus ``execute(call)``); `Toolbox` is the usual one, a set of `Tool`s by name.
The replay (`contextfold._replay.ReplayTools`) is another.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import re
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeAlias, get_type_hints, overload, runtime_checkable

from pydantic import BaseModel, ConfigDict, ValidationError, create_model
from pydantic import Field as PydanticField

from contextfold._errors import ConfigError, ToolError
from contextfold._messages import DataBlock, TextBlock, ToolCallBlock, ToolResultBlock, ToolSpec

__all__ = [
    "Tool",
    "ToolChain",
    "ToolError",
    "ToolExecutor",
    "ToolLike",
    "Toolbox",
    "error_result",
    "to_result_content",
    "tool",
]

_NAME_RE = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")
"""Names both OpenAI and Anthropic accept for a tool."""


ResultContent: TypeAlias = tuple[TextBlock | DataBlock, ...]


def to_result_content(value: Any) -> tuple[ResultContent, bool]:
    """Turn what a tool function returned into result blocks, and whether it is an error.

    ``str`` becomes text; text/data blocks (or a sequence of them) pass as
    they are; a `ToolResultBlock` gives its content and error flag; a pydantic
    model is dumped as JSON; ``None`` is empty; anything else is JSON
    (``default=str`` for what JSON cannot hold).
    """
    match value:
        case None:
            return (), False
        case str():
            return (TextBlock(text=value),), False
        case TextBlock() | DataBlock():
            return (value,), False
        case ToolResultBlock():
            return value.content, value.is_error
        case BaseModel():
            return (TextBlock(text=value.model_dump_json()),), False
        case list() | tuple() if value and all(isinstance(v, TextBlock | DataBlock) for v in value):
            return tuple(value), False
        case _:
            try:
                text = json.dumps(value, ensure_ascii=False, default=str)
            except (TypeError, ValueError):
                text = str(value)
            return (TextBlock(text=text),), False


def error_result(call: ToolCallBlock, message: str) -> ToolResultBlock:
    """An error result answering ``call``: what the model sees instead of a crash."""
    return ToolResultBlock(call_id=call.id, name=call.name, content=(TextBlock(text=message),), is_error=True)


# --------------------------------------------------------------------------------------------- docstrings


_SECTION_RE = re.compile(r"^\s*(Args|Arguments|Parameters|Params|Returns|Return|Raises|Yields|Examples?|Notes?):\s*$")
_ARG_RE = re.compile(r"^\s*\**(\w+)\s*(?:\([^)]*\))?\s*:\s*(.*)$")
_SPHINX_RE = re.compile(r"^\s*:param\s+(?:[^:]*\s)?(\w+)\s*:\s*(.*)$")


def _parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """The description (first paragraph) and parameter descriptions of a Google- or Sphinx-style docstring."""
    if not doc:
        return "", {}
    text = inspect.cleandoc(doc)
    lines = text.splitlines()
    summary: list[str] = []
    for line in lines:
        if not line.strip() or _SECTION_RE.match(line) or _SPHINX_RE.match(line):
            break
        summary.append(line.strip())
    params: dict[str, str] = {}
    section: str | None = None
    current: str | None = None
    base_indent = 0
    for line in lines:
        sphinx = _SPHINX_RE.match(line)
        if sphinx:
            current = sphinx.group(1)
            params[current] = sphinx.group(2).strip()
            section = "sphinx"
            continue
        header = _SECTION_RE.match(line)
        if header:
            section = header.group(1)
            current = None
            continue
        if section in ("Args", "Arguments", "Parameters", "Params"):
            if not line.strip():
                current = None
                continue
            indent = len(line) - len(line.lstrip())
            match = _ARG_RE.match(line)
            if match and (current is None or indent <= base_indent):
                current = match.group(1)
                base_indent = indent
                params[current] = match.group(2).strip()
            elif current is not None:
                params[current] = f"{params[current]} {line.strip()}".strip()
        elif section == "sphinx" and current is not None and line.strip() and line[:1].isspace():
            params[current] = f"{params[current]} {line.strip()}".strip()
    return " ".join(summary), params


def _strip_titles(schema: Any) -> Any:
    """Drop pydantic's generated ``title`` keys: they cost tokens and tell the model nothing."""
    if isinstance(schema, list):
        return [_strip_titles(s) for s in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key in ("properties", "$defs", "definitions") and isinstance(value, dict):
            out[key] = {name: _strip_titles(sub) for name, sub in value.items()}
        else:
            out[key] = _strip_titles(value)
    return out


# --------------------------------------------------------------------------------------------- Tool


@dataclass(frozen=True, slots=True)
class Tool:
    """A Python function the model may call, with its `ToolSpec` and an argument validator.

    Build it with `Tool.from_function` or the `tool` decorator. Sync functions
    run in a worker thread, so parallel calls run concurrently and a slow tool
    does not block the event loop.
    """

    spec: ToolSpec
    function: Callable[..., Any]
    arguments_model: type[BaseModel]
    positional: tuple[str, ...] = field(default=())
    """Positional-only parameter names, passed positionally."""

    @property
    def name(self) -> str:
        """The name the model calls the tool by."""
        return self.spec.name

    @classmethod
    def from_function(
        cls,
        function: Callable[..., Any],
        *,
        name: str | None = None,
        description: str | None = None,
        spec: ToolSpec | None = None,
    ) -> Tool:
        """Derive the tool from ``function``'s signature, type hints and docstring.

        ``spec`` replaces the derived definition (the validator is still
        derived from the signature). Raises `ConfigError` for ``*args`` /
        ``**kwargs`` parameters, an invalid name, or hints pydantic cannot
        express as JSON schema.
        """
        tool_name = str(name or (spec.name if spec else getattr(function, "__name__", "")))
        if not _NAME_RE.match(tool_name):
            raise ConfigError(f"tool name {tool_name!r} must match [a-zA-Z0-9_-]{{1,64}} (pass name=...)")
        summary, param_docs = _parse_docstring(inspect.getdoc(function))
        signature = inspect.signature(function)
        try:
            hints = get_type_hints(function, include_extras=True)
        except Exception as exc:  # unresolvable forward references
            raise ConfigError(f"tool {tool_name!r}: cannot resolve its type hints ({exc})") from exc
        fields: dict[str, Any] = {}
        positional: list[str] = []
        for param in signature.parameters.values():
            if param.kind in (param.VAR_POSITIONAL, param.VAR_KEYWORD):
                raise ConfigError(f"tool {tool_name!r}: *args/**kwargs cannot be described to a model")
            if param.kind is param.POSITIONAL_ONLY:
                positional.append(param.name)
            annotation = hints.get(param.name, Any)
            default = ... if param.default is param.empty else param.default
            fields[param.name] = (annotation, PydanticField(default, description=param_docs.get(param.name)))
        model_name = "".join(part.capitalize() for part in re.split(r"[_-]", tool_name)) + "Arguments"
        try:
            model = create_model(model_name, __config__=ConfigDict(extra="forbid"), **fields)
            parameters = _strip_titles(model.model_json_schema())
        except Exception as exc:  # pydantic cannot express a hint
            raise ConfigError(f"tool {tool_name!r}: cannot build a JSON schema from its type hints ({exc})") from exc
        parameters.setdefault("properties", {})
        parameters.pop("additionalProperties", None)
        if spec is None:
            spec = ToolSpec(name=tool_name, description=description or summary, parameters=parameters)
        elif description is not None:
            spec = ToolSpec(name=spec.name, description=description, parameters=spec.parameters, meta=spec.meta)
        return cls(spec=spec, function=function, arguments_model=model, positional=tuple(positional))

    async def call(self, arguments: Mapping[str, Any]) -> Any:
        """Validate ``arguments`` and run the function; raises what the function raises."""
        validated = self.arguments_model.model_validate(dict(arguments))
        values = {name: getattr(validated, name) for name in type(validated).model_fields}
        args = [values.pop(name) for name in self.positional]
        if inspect.iscoroutinefunction(self.function):
            return await self.function(*args, **values)
        result = await asyncio.to_thread(self.function, *args, **values)
        if inspect.isawaitable(result):  # a sync wrapper that returns a coroutine
            return await result
        return result

    async def execute(self, call: ToolCallBlock) -> ToolResultBlock:
        """Answer ``call``: the function's output, or an error result the model can act on."""
        try:
            arguments = call.parsed_arguments()
        except ValueError as exc:
            return error_result(call, f"Error: the arguments of {call.name} are not valid JSON ({exc}); resend them")
        if not isinstance(arguments, Mapping):
            return error_result(call, f"Error: the arguments of {call.name} must be a JSON object")
        try:
            value = await self.call(arguments)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or '(arguments)'}: {err['msg']}"
                for err in exc.errors(include_url=False)
            )
            return error_result(call, f"Error: invalid arguments for {call.name}: {problems}")
        except ToolError as exc:
            return error_result(call, str(exc))
        except Exception as exc:
            return error_result(call, f"Error: {call.name} failed: {type(exc).__name__}: {exc}")
        content, is_error = to_result_content(value)
        return ToolResultBlock(call_id=call.id, name=call.name, content=content, is_error=is_error)


ToolLike: TypeAlias = Tool | Callable[..., Any]


@overload
def tool(function: Callable[..., Any], /) -> Tool: ...


@overload
def tool(*, name: str | None = None, description: str | None = None) -> Callable[[Callable[..., Any]], Tool]: ...


def tool(
    function: Callable[..., Any] | None = None, /, *, name: str | None = None, description: str | None = None
) -> Tool | Callable[[Callable[..., Any]], Tool]:
    """Decorator: ``@tool`` or ``@tool(name=..., description=...)`` turns a function into a `Tool`."""
    if function is not None:
        return Tool.from_function(function, name=name, description=description)

    def wrap(fn: Callable[..., Any]) -> Tool:
        return Tool.from_function(fn, name=name, description=description)

    return wrap


# --------------------------------------------------------------------------------------------- executors


@runtime_checkable
class ToolExecutor(Protocol):
    """What the agent runs tool calls through: the definitions it offers, and how a call is answered.

    ``execute`` must not raise for a tool's failure: it returns an error result.
    """

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        """The tool definitions offered to the model."""
        ...

    def execute(self, call: ToolCallBlock) -> Awaitable[ToolResultBlock]:
        """Answer one call."""
        ...


class Toolbox:
    """A set of `Tool`s by name; unknown names get an error result listing the known ones."""

    def __init__(self, tools: Iterable[ToolLike] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for item in tools:
            self.add(item)

    def add(self, item: ToolLike) -> Tool:
        """Add a `Tool` or a plain function; raises `ConfigError` on a duplicate name."""
        t = item if isinstance(item, Tool) else Tool.from_function(item)
        if t.name in self._tools:
            raise ConfigError(f"two tools are named {t.name!r}")
        self._tools[t.name] = t
        return t

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def get(self, name: str) -> Tool | None:
        """The tool called ``name``, if any."""
        return self._tools.get(name)

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        """Definitions of every tool, in the order added."""
        return tuple(t.spec for t in self._tools.values())

    async def execute(self, call: ToolCallBlock) -> ToolResultBlock:
        """Run the named tool, or answer with an error naming the tools that exist."""
        found = self._tools.get(call.name)
        if found is None:
            known = ", ".join(sorted(self._tools)) or "none"
            return error_result(call, f"Error: there is no tool named {call.name!r}; available tools: {known}")
        return await found.execute(call)


class ToolChain:
    """Several executors as one: a call goes to the first whose specs name it, else to the last.

    The agent uses it to put the read-back tools in front of the user's
    tools without changing them.
    """

    def __init__(self, executors: Sequence[ToolExecutor]) -> None:
        if not executors:
            raise ConfigError("ToolChain needs at least one executor")
        self._executors = tuple(executors)

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        """Every executor's definitions; on a name clash the first executor's wins."""
        seen: set[str] = set()
        out: list[ToolSpec] = []
        for executor in self._executors:
            for spec in executor.specs:
                if spec.name not in seen:
                    seen.add(spec.name)
                    out.append(spec)
        return tuple(out)

    async def execute(self, call: ToolCallBlock) -> ToolResultBlock:
        """Dispatch by name (see the class docstring)."""
        for executor in self._executors:
            if any(spec.name == call.name for spec in executor.specs):
                return await executor.execute(call)
        return await self._executors[-1].execute(call)
