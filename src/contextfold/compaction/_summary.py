"""The structured summary: five fields filled by a model, with fallbacks that never lose the turn.

A summary is summarized again at the next compaction, so the instruction asks
for references that still make sense out of context: absolute dates, full
paths, full commands, ids and the purpose of work still running. The previous
summary is part of the input, so summaries chain.

The summarizer only talks to a `SummaryModel` (an async callable: messages and
a JSON schema in, an object out); adapters for real providers live at the edge.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from contextfold._errors import SummarizerError, looks_like_context_length
from contextfold._messages import (
    DataBlock,
    HintBlock,
    Message,
    RedactedThinkingBlock,
    TextBlock,
    ThinkingBlock,
    ToolCallBlock,
    ToolResultBlock,
)
from contextfold._tokens._counting import TokenCounter, count_messages

__all__ = [
    "SUMMARY_FIELDS",
    "StructuredSummarizer",
    "StructuredSummary",
    "SummaryModel",
    "SummaryOutcome",
    "is_context_length_error",
    "render_summary_text",
    "summary_instruction",
]

SUMMARY_FIELDS = ("task_overview", "current_state", "important_discoveries", "next_steps", "context_to_preserve")

_TITLES = {
    "task_overview": "Task overview",
    "current_state": "Current state",
    "important_discoveries": "Important discoveries",
    "next_steps": "Next steps",
    "context_to_preserve": "Context to preserve",
}


class StructuredSummary(BaseModel):
    """The five-field summary of the compacted part of a conversation."""

    model_config = ConfigDict(extra="forbid", frozen=True, defer_build=True)

    task_overview: str = Field(description="What the user asked for, in full, with the constraints they set.")
    current_state: str = Field(description="What has been done and what state the work is in right now.")
    important_discoveries: str = Field(description="Facts learned: causes found, decisions taken, dead ends.")
    next_steps: str = Field(description="What remains to do, in order, with the exact commands or files involved.")
    context_to_preserve: str = Field(
        description="Verbatim details a later turn needs: paths, commands, ids, preferences, running work."
    )


class SummaryModel(Protocol):
    """An async callable that answers ``messages`` with an object matching ``schema``."""

    def __call__(
        self, messages: Sequence[Message], schema: Mapping[str, Any]
    ) -> Awaitable[Mapping[str, Any] | BaseModel]: ...


def summary_instruction(today: date | None = None) -> str:
    """The system instruction sent to the summary model (our own words)."""
    dated = f" Today is {today.isoformat()}." if today else ""
    return (
        "You compress the early part of a long working session between a user and an AI agent that uses tools, "
        "so that the agent can continue the work from your summary alone. The original messages are archived; "
        "your summary replaces them in the agent's context and will itself be summarized again later." + dated + "\n\n"
        "Fill every field of the requested JSON object:\n"
        "- task_overview: the user's goal and every constraint or preference they stated.\n"
        "- current_state: what has been done and where the work stands now.\n"
        "- important_discoveries: causes found, decisions and their reasons, approaches that failed.\n"
        "- next_steps: what remains, in order.\n"
        "- context_to_preserve: details that must survive verbatim.\n\n"
        "Every reference must make sense to a reader who never saw the conversation:\n"
        "- write absolute dates and times (2026-03-14), never 'today', 'yesterday' or 'earlier';\n"
        "- name files by their full path, code by its symbol name (module.Class.method), issues and pull "
        "requests by number, and commands in full as they were run, never 'that file' or 'the command';\n"
        "- for work still running (background jobs, processes, pending tasks), give its id and its purpose;\n"
        "- if a previous summary is given, carry over everything in it that is still true, then add what "
        "happened since.\n"
        "Be factual and dense. Do not invent anything that is not in the input."
    )


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[:limit] + f" …[{len(text) - limit} chars omitted]"


def transcript_text(messages: Sequence[Message], *, per_block_chars: int = 4000) -> str:
    """Render messages as a plain-text transcript for the summary model.

    Sending text rather than provider turns keeps the request valid whatever
    the pairing of the compacted part, and lets us cap very large blocks.
    """
    lines: list[str] = []
    for i, message in enumerate(messages):
        parts: list[str] = []
        for block in message.content:
            match block:
                case TextBlock():
                    parts.append(_clip(block.text, per_block_chars))
                case HintBlock():
                    parts.append(f"(runtime note) {_clip(block.text, 400)}")
                case ToolCallBlock():
                    parts.append(f"Called tool {block.name} with {_clip(block.arguments, per_block_chars)}")
                case ToolResultBlock():
                    status = "error" if block.is_error else "ok"
                    name = block.name or "tool"
                    parts.append(f"Result of {name} ({status}): {_clip(block.text, per_block_chars)}")
                case ThinkingBlock():
                    parts.append(f"(thinking) {_clip(block.thinking, 1000)}")
                case DataBlock():
                    parts.append(f"[{block.media} omitted]")
                case RedactedThinkingBlock():
                    parts.append("[redacted thinking]")
        lines.append(f"[{i}] {message.role}: " + "\n".join(parts))
    return "\n\n".join(lines)


def render_summary_text(summary: StructuredSummary) -> str:
    """The summary as Markdown, one heading per field, in a fixed order."""
    out = []
    for name in SUMMARY_FIELDS:
        out.append(f"## {_TITLES[name]}\n{getattr(summary, name).strip() or '(none)'}")
    return "\n\n".join(out)


def is_context_length_error(exc: BaseException) -> bool:
    """Whether a provider error means "the request is longer than the model's window"."""
    return looks_like_context_length(type(exc).__name__, str(exc))


@dataclass(frozen=True, kw_only=True)
class SummaryOutcome:
    """What one summarization produced and what it had to give up on the way."""

    summary: StructuredSummary
    messages_summarized: int
    messages_dropped: int = 0
    attempts: int = 1
    notes: tuple[str, ...] = field(default=())


class StructuredSummarizer:
    """Asks a `SummaryModel` for the five-field summary, with the fallbacks the design requires.

    If the summarizer's own input would exceed ``window × trigger_ratio`` (or the
    model says its context is too long), the oldest messages are dropped from the
    input — they are archived, not lost — and the request is retried.
    """

    def __init__(
        self,
        model: SummaryModel | Callable[..., Awaitable[Any]],
        *,
        counter: TokenCounter,
        window: int | None = None,
        trigger_ratio: float = 0.8,
        max_attempts: int = 4,
        today: date | None = None,
    ) -> None:
        self._model = model
        self._counter = counter
        self._window = window
        self._trigger_ratio = trigger_ratio
        self._max_attempts = max_attempts
        self._today = today

    def build_request(self, messages: Sequence[Message], previous: StructuredSummary | None) -> list[Message]:
        """The exact messages sent to the summary model."""
        body = []
        if previous is not None:
            body.append("Previous summary (still in force unless the conversation below changed it):\n")
            body.append(render_summary_text(previous))
            body.append("\n\n")
        body.append("Conversation to summarize:\n\n")
        body.append(transcript_text(messages))
        return [
            Message.text_message("system", summary_instruction(self._today)),
            Message.text_message("user", "".join(body)),
        ]

    def _fits(self, request: Sequence[Message]) -> bool:
        if self._window is None:
            return True
        return count_messages(self._counter, request) <= self._window * self._trigger_ratio

    async def summarize(
        self, messages: Sequence[Message], *, previous: StructuredSummary | None = None
    ) -> SummaryOutcome:
        """Summarize ``messages`` (oldest first); raises `SummarizerError` when the model cannot."""
        schema = StructuredSummary.model_json_schema()
        start = 0
        notes: list[str] = []
        attempts = 0
        while True:
            request = self.build_request(messages[start:], previous)
            while not self._fits(request) and start < len(messages) - 1:
                start = max(start + 1, start + (len(messages) - start) // 4)
                request = self.build_request(messages[start:], previous)
            if not self._fits(request):
                raise SummarizerError(
                    "the summary request does not fit the summarizer's window even with one message; "
                    "use a model with a larger window or the digest strategy"
                )
            attempts += 1
            try:
                raw = await self._model(request, schema)
            except Exception as exc:
                if is_context_length_error(exc) and attempts < self._max_attempts and start < len(messages) - 1:
                    notes.append(f"model reported its context too long; dropped {start} oldest message(s)")
                    start = max(start + 1, start + (len(messages) - start) // 4)
                    continue
                raise SummarizerError(f"summary model failed: {type(exc).__name__}: {exc}") from exc
            try:
                summary = (
                    StructuredSummary.model_validate(raw.model_dump())
                    if isinstance(raw, BaseModel)
                    else StructuredSummary.model_validate(_coerce(raw))
                )
            except (ValidationError, ValueError, TypeError) as exc:
                raise SummarizerError(f"summary model returned an invalid object: {_short(exc)}") from exc
            if start:
                notes.append(f"{start} oldest message(s) left out of the summary input (archived)")
            return SummaryOutcome(
                summary=summary,
                messages_summarized=len(messages) - start,
                messages_dropped=start,
                attempts=attempts,
                notes=tuple(notes),
            )


def _coerce(raw: Any) -> Any:
    if isinstance(raw, str | bytes):
        return json.loads(raw)
    return raw


def _short(exc: BaseException) -> str:
    text = str(exc).splitlines()
    return "; ".join(line.strip() for line in text[:3])
