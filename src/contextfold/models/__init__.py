"""Model adapters: the `ChatModel` extension point and the OpenAI / Anthropic clients.

Importing this package does not import a provider SDK; each adapter imports
its SDK when it is constructed and raises `contextfold.MissingExtraError`
(naming the ``pip install``) when the SDK is missing.
"""

from contextfold._public import publish as _publish
from contextfold.models._anthropic import AnthropicChatModel
from contextfold.models._base import (
    ChatModel,
    ContextLengthExceeded,
    ModelError,
    ModelResponse,
    StopReason,
    StreamHandler,
    Usage,
)
from contextfold.models._openai import OpenAIChatModel
from contextfold.models._spec import PROVIDERS, model_from_spec

__all__ = [
    "PROVIDERS",
    "AnthropicChatModel",
    "ChatModel",
    "ContextLengthExceeded",
    "ModelError",
    "ModelResponse",
    "OpenAIChatModel",
    "StopReason",
    "StreamHandler",
    "Usage",
    "model_from_spec",
]

_publish(__name__, globals(), __all__)
