"""contextfold: keep long-running, tool-using LLM agents inside their context window.

The public API is re-exported here; implementation lives in private modules.
Extension points are public sub-packages: `contextfold.strategies` (compaction
strategies), `contextfold.models` (model adapters) and `contextfold.testing`
(test doubles). Importing this package loads no provider SDK, no rich and no
HTTP client, and prints nothing.
"""

import typing as _typing

from contextfold._config import ContextConfig
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
from contextfold._formats._transcript import (
    Transcript,
    dump_transcripts,
    load_transcript,
    load_transcripts,
    parse_transcripts,
)
from contextfold._formats._validate import Problem, validate
from contextfold._guard import (
    Fence,
    Finding,
    GuardConfig,
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
from contextfold._runtime._hints import Clock, ContextUsage, HintConfig, SystemClock, Task, inject_hint, plan_hint
from contextfold._runtime._layers import DiscoveredLayers, SystemPromptBuilder, discover
from contextfold._runtime._read_cache import ReadCache
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
from contextfold._tokens._calibrated import CalibratedCounter
from contextfold._tokens._counting import (
    MEDIA_TOKENS,
    BytesCounter,
    TokenCounter,
    TokenTally,
    count_messages,
    count_tools,
)
from contextfold._tokens._exact import HFCounter, TiktokenCounter
from contextfold._tokens._factory import make_counter
from contextfold._workspace._local import LocalWorkspace
from contextfold._workspace._offload import Offloader, OffloadRef
from contextfold._workspace._readback import bind_readback_tools, read_offloaded, search_offloaded
from contextfold._workspace._split import offload_oversized_result, split_tool_result
from contextfold.compaction._plan import CompactionPlan, CompactionStrategy
from contextfold.compaction._summary import StructuredSummarizer, StructuredSummary, SummaryModel

if _typing.TYPE_CHECKING:  # loaded on first use, by __getattr__ below
    from contextfold._agent._loop import Agent, AgentEvent, AgentResult
    from contextfold._agent._replay import ReplayExhausted, ReplayModel, ReplayTools, replay
    from contextfold._agent._tools import Tool, Toolbox, ToolError, tool

__version__ = "0.1.0"

# The agent loop, its tools and the replay doubles (and the model adapters they import) load on first use, so
# ``import contextfold`` for a Context, the formats or the guard does not pay for them.
_LAZY: dict[str, str] = {
    "Agent": "contextfold._agent._loop",
    "AgentEvent": "contextfold._agent._loop",
    "AgentResult": "contextfold._agent._loop",
    "ReplayExhausted": "contextfold._agent._replay",
    "ReplayModel": "contextfold._agent._replay",
    "ReplayTools": "contextfold._agent._replay",
    "replay": "contextfold._agent._replay",
    "Tool": "contextfold._agent._tools",
    "ToolError": "contextfold._agent._tools",
    "Toolbox": "contextfold._agent._tools",
    "tool": "contextfold._agent._tools",
}

__all__ = [
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
    "HFCounter",
    "HintBlock",
    "HintConfig",
    "InputError",
    "LocalWorkspace",
    "Message",
    "MissingExtraError",
    "OffloadRef",
    "Offloader",
    "PathRefusedError",
    "Prepared",
    "Problem",
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
    "SteeringChannel",
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
    "count_messages",
    "count_tools",
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
