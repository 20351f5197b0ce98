"""contextfold: keep long-running, tool-using LLM agents inside their context window.

The public API is re-exported here; implementation lives in private modules.
Extension points are public sub-packages: `contextfold.strategies` (compaction
strategies), `contextfold.models` (model adapters) and `contextfold.testing`
(test doubles). Importing this package loads no provider SDK, no rich and no
HTTP client, and prints nothing.
"""

import typing as _typing

from contextfold._context import CacheReport, CompactionReport, Context, ContextEvent, Prepared
from contextfold._errors import (
    BudgetError,
    ConfigError,
    ContextfoldError,
    ContextOverflowError,
    InputError,
    MissingExtraError,
    PathRefusedError,
    ResultLimitError,
    SummarizerError,
    UnknownFormatError,
    WorkspaceError,
)
from contextfold._formats import (
    ProviderName,
    anthropic_to_messages,
    detect_format,
    messages_to_anthropic,
    messages_to_openai,
    openai_to_messages,
    render,
    to_canonical,
    tools_from_anthropic,
    tools_from_openai,
    tools_to_anthropic,
    tools_to_openai,
)
from contextfold._guard import (
    Fence,
    Finding,
    RedactionResult,
    SanitizeResult,
    guard_tool_result,
    redact_secrets,
    sanitize_injection,
    sanitize_tool_output,
    scan_injection,
)
from contextfold._messages import (
    Block,
    DataBlock,
    HintBlock,
    Message,
    RedactedThinkingBlock,
    Role,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
    ToolSpec,
)
from contextfold._public import publish as _publish
from contextfold._runtime._hints import Clock, ContextUsage, SystemClock, Task, inject_hint, plan_hint
from contextfold._runtime._layers import DiscoveredLayers, PromptFile, SkippedFile, SystemPromptBuilder, discover
from contextfold._runtime._read_cache import ReadCache
from contextfold._tokens._calibrated import CalibratedCounter
from contextfold._tokens._counting import (
    MEDIA_TOKENS,
    BytesCounter,
    TokenCounter,
    TokenTally,
    count_messages,
    count_tools,
    data_tokens,
)
from contextfold._tokens._exact import HFCounter, TiktokenCounter
from contextfold._tokens._factory import make_counter
from contextfold._workspace._offload import Offloader, OffloadRef
from contextfold._workspace._split import offload_oversized_result, split_tool_result
from contextfold.compaction._plan import CompactionPlan, CompactionStrategy
from contextfold.compaction._summary import StructuredSummarizer, SummaryModel

if _typing.TYPE_CHECKING:  # loaded on first use, by __getattr__ below
    from contextfold._agent._builtin_tools import builtin_tools
    from contextfold._agent._loop import Agent, AgentEvent, AgentResult, ModelCallInfo, SteeringInfo
    from contextfold._agent._replay import END_OF_RECORDING, ReplayExhausted, ReplayModel, ReplayTools, replay
    from contextfold._agent._tools import Tool, Toolbox, ToolError, tool
    from contextfold._config import ContextConfig
    from contextfold._formats._transcript import (
        Transcript,
        dump_transcripts,
        load_transcript,
        load_transcripts,
        parse_transcripts,
    )
    from contextfold._formats._validate import Problem, validate
    from contextfold._guard._config import GuardConfig
    from contextfold._runtime._hint_config import HintConfig
    from contextfold._runtime._steering import (
        Cancel,
        ChannelFullError,
        FollowUp,
        RequestPause,
        SteeringChannel,
        SteeringMessage,
        SystemReminder,
        apply_steering,
    )
    from contextfold._tool_results import GuardInfo
    from contextfold._workspace._local import LocalWorkspace
    from contextfold._workspace._readback import bind_readback_tools, read_offloaded, search_offloaded
    from contextfold.compaction._structured_summary import StructuredSummary

__version__ = "0.1.0"

# The agent loop, its tools and the replay doubles (and the model adapters they import) load on first use, so
# ``import contextfold`` for a Context, the formats or the guard does not pay for them; so do the settings models and
# the summary's model, the only pydantic models of the session (pydantic's model machinery is most of the import cost
# otherwise: it loads with the first of them, e.g. when a `Context` builds its `ContextConfig`), and what only some
# programs use: steering, transcript files, provider validation, the local workspace and the read-back tools.
_LAZY: dict[str, str] = {
    "GuardInfo": "contextfold._tool_results",
    "LocalWorkspace": "contextfold._workspace._local",
    "ContextConfig": "contextfold._config",
    "Problem": "contextfold._formats._validate",
    "validate": "contextfold._formats._validate",
    "Transcript": "contextfold._formats._transcript",
    "dump_transcripts": "contextfold._formats._transcript",
    "load_transcript": "contextfold._formats._transcript",
    "load_transcripts": "contextfold._formats._transcript",
    "parse_transcripts": "contextfold._formats._transcript",
    "Cancel": "contextfold._runtime._steering",
    "ChannelFullError": "contextfold._runtime._steering",
    "FollowUp": "contextfold._runtime._steering",
    "RequestPause": "contextfold._runtime._steering",
    "SteeringChannel": "contextfold._runtime._steering",
    "SteeringMessage": "contextfold._runtime._steering",
    "SystemReminder": "contextfold._runtime._steering",
    "apply_steering": "contextfold._runtime._steering",
    "bind_readback_tools": "contextfold._workspace._readback",
    "read_offloaded": "contextfold._workspace._readback",
    "search_offloaded": "contextfold._workspace._readback",
    "GuardConfig": "contextfold._guard._config",
    "HintConfig": "contextfold._runtime._hint_config",
    "StructuredSummary": "contextfold.compaction._structured_summary",
    "Agent": "contextfold._agent._loop",
    "AgentEvent": "contextfold._agent._loop",
    "AgentResult": "contextfold._agent._loop",
    "ModelCallInfo": "contextfold._agent._loop",
    "SteeringInfo": "contextfold._agent._loop",
    "END_OF_RECORDING": "contextfold._agent._replay",
    "ReplayExhausted": "contextfold._agent._replay",
    "ReplayModel": "contextfold._agent._replay",
    "ReplayTools": "contextfold._agent._replay",
    "replay": "contextfold._agent._replay",
    "Tool": "contextfold._agent._tools",
    "ToolError": "contextfold._agent._tools",
    "Toolbox": "contextfold._agent._tools",
    "tool": "contextfold._agent._tools",
    "builtin_tools": "contextfold._agent._builtin_tools",
}

__all__ = [
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
]


def __getattr__(name: str) -> object:
    """Load a name of `_LAZY` on first use (then it is a plain module attribute, shown under its public path)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    _publish(__name__, {name: value}, [name])
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


_publish(__name__, globals(), [name for name in __all__ if name not in _LAZY])
