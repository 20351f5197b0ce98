"""`StructuredSummary`: the five fields a summary model fills.

Its own module, so that ``import contextfold`` does not load pydantic: the model is built the first time a program
asks for it (``contextfold.StructuredSummary``, or a `StructuredSummarizer` that summarizes).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from contextfold._public import publish

__all__ = ["StructuredSummary"]


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


# Loaded on first use, by the facade or by the session: shown under its public path either way (as `publish` in the
# facade would show it), so a config the session built reprs, pickles and type-checks like one the user built.
publish("contextfold", globals(), __all__)
