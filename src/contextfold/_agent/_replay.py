"""Replay a recorded transcript through the agent loop: real data, no key, no network.

`ReplayModel` is a `ChatModel` that answers each call with the next recorded
assistant turn, whatever it is sent (so compaction, hints and the guard change
what the model *sees*, never what it *says*: the run follows the recording).
`ReplayTools` is a `ToolExecutor` that answers each tool call with the result
recorded for its call id. Together they push a real session through
steering, compaction, hints, guard and offloading, which is what
``contextfold demo`` shows and what the unit tests of the loop run on.

How the recording maps onto the loop:

* Messages before the first assistant turn (system prompt, task) are the
  run's input: `ReplayModel.initial_messages`.
* User messages between two assistant turns are sent as `FollowUp`s on the
  steering channel when the turn before them is served; the loop drains them
  before its next model call, after the tool results, as in the recording.
  A system message in the middle becomes a `SystemReminder`.
* Usage is estimated with the model's counter (default `BytesCounter`):
  the prompt is everything sent, tools included.
* The end: messages after the last assistant turn (a user reply nobody
  answered) are not fed. When the last turn calls tools, `ReplayTools`
  answers them (a call with no recorded result, e.g. OpenHands' final
  ``finish``, gets an error result saying the recording ends there) and then
  cancels the run with reason ``"end of recording"``, so the loop stops with
  a consistent context instead of asking the model for a turn that does not
  exist. Calling the model past the end raises `ReplayExhausted`.

`replay` runs an agent built on these to the end of the recording.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from contextfold._agent._loop import Agent, AgentResult, StopReason
from contextfold._agent._tools import error_result
from contextfold._errors import ConfigError, InputError, ReplayExhausted
from contextfold._formats._transcript import Transcript
from contextfold._messages import Block, Message, ToolCallBlock, ToolResultBlock, ToolSpec
from contextfold._runtime._steering import (
    DEFAULT_STEERING_CAPACITY,
    FollowUp,
    SteeringChannel,
    SteeringMessage,
    SystemReminder,
)
from contextfold._tokens._counting import BytesCounter, TokenCounter, count_messages, count_tools
from contextfold.models._base import ModelResponse, StreamHandler, Usage, emit_delta

__all__ = [
    "END_OF_RECORDING",
    "RecordedTurn",
    "ReplayExhausted",
    "ReplayModel",
    "ReplayScript",
    "ReplayTools",
    "replay",
]

END_OF_RECORDING = "end of recording"
"""The cancel reason `ReplayTools` gives once the last recorded turn's tools are answered."""


@dataclass(frozen=True, slots=True)
class RecordedTurn:
    """One recorded assistant turn and what the user said after its results."""

    message: Message
    follow_ups: tuple[SteeringMessage, ...] = ()


@dataclass(frozen=True, slots=True)
class ReplayScript:
    """A recording cut into what the loop needs: input, assistant turns, results by call id."""

    initial: tuple[Message, ...]
    turns: tuple[RecordedTurn, ...]
    results: dict[str, tuple[ToolResultBlock, ...]]
    """Recorded results by call id, in recording order (a repeated call id is renamed ``ID_rN``)."""
    tools: tuple[ToolSpec, ...]
    trailing: tuple[Message, ...] = ()
    """Messages after the last assistant turn's results that are not fed (nobody answers them)."""
    final_calls: tuple[str, ...] = field(default=())
    """Call ids of the last assistant turn."""

    @classmethod
    def from_recording(cls, recording: Transcript | Sequence[Message]) -> ReplayScript:
        """Cut a transcript (or its messages) into a script; raises `InputError` when it has no assistant turn."""
        if isinstance(recording, Transcript):
            messages, tools = recording.messages, recording.tools
        else:
            messages, tools = tuple(recording), ()
        first = next((i for i, m in enumerate(messages) if m.role == "assistant"), None)
        if first is None:
            raise InputError("the recording has no assistant turn to replay")
        turns: list[tuple[Message, list[SteeringMessage]]] = []
        results: dict[str, list[ToolResultBlock]] = {}
        pending: list[Message] = []  # user/system messages since the last turn
        seen: Counter[str] = Counter()
        renamed: dict[str, str] = {}  # recorded id -> id of its latest call in the replay
        for message in messages[first:]:
            if message.role == "assistant":
                if turns:
                    turns[-1][1].extend(_as_steering(m) for m in pending)
                pending = []
                message = _unique_call_ids(message, seen, renamed)
                turns.append((message, []))
            elif message.role == "tool":
                for block in message.tool_results:
                    call_id = renamed.get(block.call_id, block.call_id)
                    results.setdefault(call_id, []).append(replace(block, call_id=call_id))
            else:
                pending.append(message)
        if not tools:
            tools = _tools_from_calls(m for m, _ in turns)
        return cls(
            initial=tuple(messages[:first]),
            turns=tuple(RecordedTurn(m, tuple(f)) for m, f in turns),
            results={k: tuple(v) for k, v in results.items()},
            tools=tuple(tools),
            trailing=tuple(pending),
            final_calls=tuple(c.id for c in turns[-1][0].tool_calls),
        )


def _unique_call_ids(message: Message, seen: Counter[str], renamed: dict[str, str]) -> Message:
    """Rename a call id the recording already used (tau-bench reuses them), so every replayed request is valid."""
    blocks: list[Block] = []
    changed = False
    for block in message.content:
        if isinstance(block, ToolCallBlock):
            seen[block.id] += 1
            new_id = block.id if seen[block.id] == 1 else f"{block.id}_r{seen[block.id]}"
            renamed[block.id] = new_id
            if new_id != block.id:
                block = replace(block, id=new_id)
                changed = True
        blocks.append(block)
    return message.replace(content=tuple(blocks)) if changed else message


def _as_steering(message: Message) -> SteeringMessage:
    if message.role == "user":
        return FollowUp(message)
    return SystemReminder(message.text or "(empty system message)")


def _tools_from_calls(turns: Iterable[Message]) -> tuple[ToolSpec, ...]:
    """Definitions for a recording that did not keep its tool schemas: one per tool name called."""
    names: dict[str, None] = {}
    for message in turns:
        for call in message.tool_calls:
            names.setdefault(call.name, None)
    return tuple(ToolSpec(name=n, description="A tool of the recorded session.") for n in names)


class ReplayModel:
    """A `ChatModel` that returns the recorded assistant turns in order.

    ``steering`` is where follow-ups are sent; give the same channel to the
    `Agent` (a fresh one is made when none is given). ``counter`` estimates
    the usage it reports.
    """

    provider = "replay"

    def __init__(
        self,
        recording: Transcript | Sequence[Message] | ReplayScript,
        *,
        steering: SteeringChannel | None = None,
        counter: TokenCounter | None = None,
    ) -> None:
        self.script = recording if isinstance(recording, ReplayScript) else ReplayScript.from_recording(recording)
        if steering is None:
            most = max((len(t.follow_ups) for t in self.script.turns), default=0)
            steering = SteeringChannel(max(DEFAULT_STEERING_CAPACITY, most + 1))
        self.steering = steering
        self.counter = counter if counter is not None else BytesCounter()
        self._next = 0
        self.requests: list[tuple[int, int]] = []
        """(messages, estimated tokens) of every request received, for reports."""

    @property
    def initial_messages(self) -> tuple[Message, ...]:
        """What the recording starts with (system prompt, task): the run's input."""
        return self.script.initial

    @property
    def tools(self) -> tuple[ToolSpec, ...]:
        """The recorded tool definitions (or ones derived from the calls)."""
        return self.script.tools

    @property
    def served(self) -> int:
        """Recorded turns returned so far."""
        return self._next

    @property
    def remaining(self) -> int:
        """Recorded turns not returned yet."""
        return len(self.script.turns) - self._next

    async def complete(
        self,
        messages: Sequence[Message],
        *,
        tools: Sequence[ToolSpec] = (),
        stream: StreamHandler | None = None,
    ) -> ModelResponse:
        """The next recorded turn (its follow-ups are queued on the steering channel)."""
        if self._next >= len(self.script.turns):
            raise ReplayExhausted(
                f"the recording has no assistant turn left (all {len(self.script.turns)} were replayed)",
                provider=self.provider,
            )
        turn = self.script.turns[self._next]
        self._next += 1
        prompt = count_messages(self.counter, messages) + count_tools(self.counter, tools)
        self.requests.append((len(messages), prompt))
        for follow_up in turn.follow_ups:
            self.steering.send(follow_up)
        await emit_delta(stream, turn.message.text)
        calls = turn.message.tool_calls
        return ModelResponse(
            message=turn.message,
            usage=Usage(prompt_tokens=prompt, completion_tokens=self.counter.count_message(turn.message)),
            stop_reason="tool_use" if calls else "end_turn",
            raw_stop_reason="replay",
            model="replay",
        )


class ReplayTools:
    """A `ToolExecutor` answering each call with the result recorded for its id.

    A call with no recorded result gets an error result. Once every call of
    the last recorded turn is answered, the run is cancelled on ``steering``
    with reason `END_OF_RECORDING` (see the module docstring).
    """

    def __init__(
        self,
        recording: Transcript | Sequence[Message] | ReplayScript,
        *,
        steering: SteeringChannel | None = None,
    ) -> None:
        self.script = recording if isinstance(recording, ReplayScript) else ReplayScript.from_recording(recording)
        self.steering = steering
        self._queues = {k: deque(v) for k, v in self.script.results.items()}
        self._final_left = set(self.script.final_calls)
        self.answered = 0
        self.missing = 0

    @property
    def specs(self) -> tuple[ToolSpec, ...]:
        """The recorded tool definitions."""
        return self.script.tools

    async def execute(self, call: ToolCallBlock) -> ToolResultBlock:
        """The recorded result for ``call.id`` (the next one, if the id repeats)."""
        queue = self._queues.get(call.id)
        if queue:
            recorded = queue.popleft()
            result = ToolResultBlock(
                call_id=call.id,
                content=recorded.content,
                is_error=recorded.is_error,
                name=recorded.name or call.name,
                meta=recorded.meta,
            )
            self.answered += 1
        else:
            self.missing += 1
            result = error_result(
                call, f"Error: no result was recorded for call {call.id} ({call.name}); the recording ends here."
            )
        if call.id in self._final_left:
            self._final_left.discard(call.id)
            if not self._final_left and self.steering is not None:
                self.steering.cancel(END_OF_RECORDING)
        return result


async def replay(agent: Agent, model: ReplayModel) -> AgentResult:
    """Run ``agent`` through the whole recording of ``model``; one result for the whole session.

    The agent's model is ``model`` or a wrapper around it (the demo's validates
    every request), and its steering channel is ``model.steering``.

    The recording's opening messages are the input; when the loop ends on a
    turn without tool calls while recorded turns remain (two assistant turns
    in a row), it is resumed. The result's ``stop_reason`` is ``end_turn``
    when the recording ended on a plain answer, ``cancelled`` with reason
    `END_OF_RECORDING` when it ended on tool calls.
    """
    if agent.steering is not model.steering:
        raise ConfigError("replay: give the agent the replay model's steering channel (steering=model.steering)")
    results = [await agent.run(list(model.initial_messages))]
    while model.remaining and results[-1].stop_reason == "end_turn":
        results.append(await agent.run(None))
    last = results[-1]
    stop: StopReason = last.stop_reason
    usage = Usage()
    for r in results:
        usage = usage + r.usage
    return AgentResult(
        stop_reason=stop,
        output=last.output,
        messages=last.messages,
        steps=tuple(s for r in results for s in r.steps),
        usage=usage,
        compactions=tuple(c for r in results for c in r.compactions),
        offloaded=tuple(o for r in results for o in r.offloaded),
        cancel_reason=last.cancel_reason,
    )
