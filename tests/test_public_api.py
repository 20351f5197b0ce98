"""The public surface: what `contextfold` exports, and that importing it is cheap.

The README and docs examples run in tests/test_docs_examples.py.
"""

import subprocess
import sys

import contextfold

PINNED: frozenset[str] = frozenset(
    {
        "END_OF_RECORDING",
        "MEDIA_TOKENS",
        "Agent",
        "AgentEvent",
        "AgentResult",
        "Block",
        "BudgetError",
        "BytesCounter",
        "CacheReport",
        "CalibratedCounter",
        "Cancel",
        "ChannelFullError",
        "Clock",
        "CompactionPlan",
        "CompactionReport",
        "CompactionStrategy",
        "ConfigError",
        "Context",
        "ContextConfig",
        "ContextEvent",
        "ContextOverflowError",
        "ContextUsage",
        "ContextfoldError",
        "DataBlock",
        "DiscoveredLayers",
        "Fence",
        "Finding",
        "FollowUp",
        "GuardConfig",
        "GuardInfo",
        "HFCounter",
        "HintBlock",
        "HintConfig",
        "InputError",
        "LocalWorkspace",
        "Message",
        "MissingExtraError",
        "ModelCallInfo",
        "OffloadRef",
        "Offloader",
        "PathRefusedError",
        "Prepared",
        "Problem",
        "PromptFile",
        "ProviderName",
        "ReadCache",
        "RedactedThinkingBlock",
        "RedactionResult",
        "ReplayExhausted",
        "ReplayModel",
        "ReplayTools",
        "RequestPause",
        "ResultLimitError",
        "Role",
        "SanitizeResult",
        "SkippedFile",
        "SteeringChannel",
        "SteeringInfo",
        "SteeringMessage",
        "StructuredSummarizer",
        "StructuredSummary",
        "SummarizerError",
        "SummaryModel",
        "SystemClock",
        "SystemPromptBuilder",
        "SystemReminder",
        "Task",
        "TextBlock",
        "ThinkingBlock",
        "TiktokenCounter",
        "TokenCounter",
        "TokenTally",
        "Tool",
        "ToolCallBlock",
        "ToolError",
        "ToolResultBlock",
        "ToolSpec",
        "Toolbox",
        "Transcript",
        "UnknownFormatError",
        "WorkspaceError",
        "__version__",
        "anthropic_to_messages",
        "apply_steering",
        "bind_readback_tools",
        "builtin_tools",
        "count_messages",
        "count_tools",
        "data_tokens",
        "detect_format",
        "discover",
        "dump_transcripts",
        "guard_tool_result",
        "inject_hint",
        "load_transcript",
        "load_transcripts",
        "make_counter",
        "messages_to_anthropic",
        "messages_to_openai",
        "offload_oversized_result",
        "openai_to_messages",
        "parse_transcripts",
        "plan_hint",
        "read_offloaded",
        "redact_secrets",
        "render",
        "replay",
        "sanitize_injection",
        "sanitize_tool_output",
        "scan_injection",
        "search_offloaded",
        "split_tool_result",
        "to_canonical",
        "tool",
        "tools_from_anthropic",
        "tools_from_openai",
        "tools_to_anthropic",
        "tools_to_openai",
        "validate",
    }
)
"""The public names of `contextfold`, written out: a change to the public surface is a change to this list."""
FILES = frozenset({"DEFAULT_MAX_INPUT_BYTES", "OutputFile", "escape_surrogates", "read_text"})
"""The public names of `contextfold.files` (what the CLI reads and writes user files with)."""


def test_the_public_names_are_the_pinned_ones() -> None:
    import contextfold.files

    assert set(contextfold.__all__) == PINNED
    assert set(contextfold.files.__all__) == FILES
    for name in FILES:
        obj = getattr(contextfold.files, name)
        assert getattr(obj, "__module__", "contextfold.files") == "contextfold.files", name


def test_all_names_exist_and_are_unique() -> None:
    for name in contextfold.__all__:
        assert hasattr(contextfold, name), name
    assert len(set(contextfold.__all__)) == len(contextfold.__all__)


def test_exported_members_are_pinned() -> None:
    # A change to the public surface must be deliberate: update this list with it.
    expected = set(contextfold.__all__)
    public = {n for n in dir(contextfold) if not n.startswith("_")}
    submodules = {"adapters", "compaction", "files", "models", "proxy", "strategies", "testing"}
    assert public - expected - submodules == set(), "public names missing from __all__"


def test_every_exception_derives_from_the_root() -> None:
    for name in contextfold.__all__:
        obj = getattr(contextfold, name)
        if isinstance(obj, type) and issubclass(obj, BaseException):
            assert issubclass(obj, contextfold.ContextfoldError), name


def test_import_is_cheap_and_quiet() -> None:
    code = (
        "import sys, contextfold, contextfold.models, contextfold.testing\n"
        "heavy = [m for m in ('rich', 'openai', 'anthropic', 'httpx', 'tiktoken', 'tokenizers', 'matplotlib')"
        " if m in sys.modules]\n"
        "print(heavy)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
    assert out.stderr == ""


# -- public names show their public path (the facade rewrites __module__) -------------------------------------------


def _published() -> list[tuple[str, object]]:
    import types

    import contextfold.compaction
    import contextfold.models
    import contextfold.testing

    out: list[tuple[str, object]] = []
    for package in (contextfold, contextfold.compaction, contextfold.models, contextfold.testing):
        for name in package.__all__:
            obj = getattr(package, name)
            if isinstance(obj, type | types.FunctionType):
                out.append((f"{package.__name__}.{name}", obj))
    return out


def test_public_classes_and_functions_show_a_public_path_that_resolves() -> None:
    import contextfold.compaction
    import contextfold.models

    published = _published()
    assert len(published) > 100
    for where, obj in published:
        module: str = obj.__module__  # type: ignore[attr-defined]
        assert not any(part.startswith("_") for part in module.split(".")), f"{where} shows {module}"
        assert getattr(sys.modules[module], obj.__qualname__) is obj, where  # type: ignore[attr-defined]
    assert repr(contextfold.Context) == "<class 'contextfold.Context'>"
    assert repr(contextfold.ConfigError) == "<class 'contextfold.ConfigError'>"
    assert contextfold.render.__module__ == "contextfold"
    assert repr(contextfold.compaction.DigestStrategy) == "<class 'contextfold.compaction.DigestStrategy'>"
    assert repr(contextfold.models.ModelError) == "<class 'contextfold.models.ModelError'>"


def test_published_classes_keep_their_type_hints() -> None:
    import typing

    for _, obj in _published():
        if isinstance(obj, type):
            typing.get_type_hints(obj)  # resolves in the public namespace: no NameError
    hints = typing.get_type_hints(contextfold.Message)
    assert hints["content"] == tuple[contextfold.Block, ...]


def test_published_objects_pickle_and_extend() -> None:
    import dataclasses
    import pickle

    import pydantic

    import contextfold.compaction
    import contextfold.models

    values: list[object] = [
        contextfold.ContextConfig(window=8000),
        contextfold.GuardConfig(mode="redact"),
        contextfold.HintConfig(),
        contextfold.Task(subject="x"),
        contextfold.OffloadRef(path="tool_results/a.txt", kind="tool_result", size=1, created="x"),
        contextfold.BytesCounter(),
        contextfold.models.Usage(prompt_tokens=3),
        contextfold.compaction.Fact(kind="file", value="src/a.py"),
        contextfold.compaction.LoopGuard(),
        contextfold.ConfigError("bad"),
        contextfold.ToolError("no"),
    ]
    for value in values:
        back = pickle.loads(pickle.dumps(value))
        assert type(back) is type(value)
        if not isinstance(value, BaseException | contextfold.BytesCounter | contextfold.compaction.LoopGuard):
            assert back == value
    assert pickle.loads(pickle.dumps(contextfold.render)) is contextfold.render
    assert pickle.loads(pickle.dumps(contextfold.compaction.DigestStrategy)) is contextfold.compaction.DigestStrategy

    class Wider(contextfold.ContextConfig):  # a pydantic subclass of a published model still builds
        note: str = ""

    assert Wider(window=9000, note="n").window == 9000
    ref = contextfold.OffloadRef(path="a", kind="context", size=1, created="x")
    assert dataclasses.replace(ref, size=2).size == 2
    block = pydantic.TypeAdapter(contextfold.TextBlock).validate_python({"text": "hi"})
    assert block == contextfold.TextBlock(text="hi")
