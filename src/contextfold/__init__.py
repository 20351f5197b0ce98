"""contextfold: keep long-running, tool-using LLM agents inside their context window.

The public API is re-exported here; implementation lives in private modules.
Importing this package loads no provider SDK, no rich and no HTTP client.
"""

from contextfold._errors import (
    BudgetError,
    ConfigError,
    ContextfoldError,
    ContextOverflowError,
    InputError,
    MissingExtraError,
    PathRefusedError,
    SummarizerError,
    UnknownFormatError,
    WorkspaceError,
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
from contextfold._tokens import (
    MEDIA_TOKENS,
    BytesCounter,
    TokenCounter,
    TokenTally,
    count_messages,
    count_tools,
)

__version__ = "0.1.0"

__all__ = [
    "MEDIA_TOKENS",
    "Block",
    "BudgetError",
    "BytesCounter",
    "ConfigError",
    "ContextOverflowError",
    "ContextfoldError",
    "DataBlock",
    "HintBlock",
    "InputError",
    "Message",
    "MissingExtraError",
    "PathRefusedError",
    "RedactedThinkingBlock",
    "Role",
    "SummarizerError",
    "TextBlock",
    "ThinkingBlock",
    "TokenCounter",
    "TokenTally",
    "ToolCallBlock",
    "ToolResultBlock",
    "ToolSpec",
    "UnknownFormatError",
    "WorkspaceError",
    "__version__",
    "count_messages",
    "count_tools",
]
