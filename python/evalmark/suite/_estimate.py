"""What a suite run will ask before it runs (``evalmark run --dry-run``): the application and
judge calls, their tokens and their cost, with no model call.

For each evaluation, the application is asked once per selected sample and repeat. A recorded
build gives each sample's answer and, when the cassette recorded it, the token counts; other
counts are estimated from the text at about four characters a token (:func:`estimate_tokens`).
Each judged check asks the judge once per answer and judge repeat; its prompt is rendered from
the check's own template with the recorded answer (or, without one, the expected output), so
its size is the size that will be sent. A judge cassette that recorded token counts gives the
reply size; otherwise replies are estimated at :data:`JUDGE_REPLY_TOKENS`. A rule judge answers
locally: its calls are counted, never priced. Cost is tokens times the prices given, per
million tokens.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from pathlib import Path
from typing import Any

from evalmark.models._cassette_file import read_cassette
from evalmark.models._values import ChatReply
from evalmark.report._render.terminal import table
from evalmark.samples._samples import Sample
from evalmark.suite._application import application_messages, question_of
from evalmark.suite._conversations import ConversationSpec
from evalmark.suite._model import EvaluationSpec, JudgeSpec, Suite
from evalmark.suite._runner import build_strategy, selected_samples

__all__ = [
    "JUDGE_REPLY_TOKENS",
    "Estimate",
    "EstimateRow",
    "estimate_run",
    "estimate_text",
    "estimate_tokens",
]

JUDGE_REPLY_TOKENS = 60
_CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """About how many tokens ``text`` is: one per four characters, rounded up."""
    return math.ceil(len(text) / _CHARS_PER_TOKEN)


def _message_tokens(messages: Sequence[Mapping[str, Any]]) -> int:
    return sum(estimate_tokens(str(m.get("content", ""))) for m in messages)


@dataclass(frozen=True, slots=True)
class EstimateRow:
    """One caller of a model in one evaluation: its calls, tokens in and out, and where the
    counts come from (``recorded``, ``estimated`` or both); ``priced`` is False for calls
    answered locally (a rule judge)."""

    evaluation: str
    caller: str
    calls: int
    input_tokens: int
    output_tokens: int
    source: str
    priced: bool = True

    def cost(self, price_input: Decimal | None, price_output: Decimal | None) -> Decimal | None:
        """The cost at these prices per million tokens (None without prices)."""
        if price_input is None and price_output is None:
            return None
        if not self.priced:
            return Decimal(0)
        cost = Decimal(self.input_tokens) * (price_input or 0) + Decimal(self.output_tokens) * (
            price_output or 0
        )
        return cost / Decimal(1_000_000)


@dataclass(frozen=True, slots=True)
class Estimate:
    """Every row of a dry run, in suite order."""

    rows: tuple[EstimateRow, ...]

    @property
    def calls(self) -> int:
        """Model calls in all (local rule-judge answers not counted)."""
        return sum(r.calls for r in self.rows if r.priced)

    @property
    def tokens(self) -> int:
        """Tokens in and out of every priced call."""
        return sum(r.input_tokens + r.output_tokens for r in self.rows if r.priced)


class _Unasked:
    """Stands in for the judge while prompts are rendered: asking it is a bug."""

    model_id = "dry-run"
    default_params: Mapping[str, Any] = {}

    def chat(self, messages: Any, **params: Any) -> ChatReply:
        raise AssertionError("a dry run makes no model call")


def _recorded(path: Path | None) -> dict[str, dict[str, Any]]:
    """The recorded responses of a cassette by the last user message of their request."""
    if path is None or not path.exists():
        return {}
    found: dict[str, dict[str, Any]] = {}
    for entry in read_cassette(path).entries:
        messages = entry.request.get("messages") or []
        users = [m for m in messages if isinstance(m, Mapping) and m.get("role") == "user"]
        if users:
            found.setdefault(str(users[-1].get("content", "")), entry.response)
    return found


def _usage(response: Mapping[str, Any] | None) -> tuple[int, int] | None:
    usage = (response or {}).get("usage")
    if isinstance(usage, Mapping) and usage.get("total_tokens"):
        return int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))
    return None


def _judge_messages(strategy: Any, sample: Sample, output: str) -> list[dict[str, Any]] | None:
    """The messages a judged check sends for this answer (None: it is not judged)."""
    judge = strategy.judge_for(sample, output) if hasattr(strategy, "judge_for") else strategy
    values = getattr(judge, "values", None)
    if callable(values) and hasattr(judge, "response"):
        return list(judge.messages(values(sample, output), "prompted"))
    if hasattr(judge, "messages") and hasattr(judge, "parse"):
        return list(judge.messages(sample, output))
    return None


def _judge_cassette(spec: JudgeSpec) -> tuple[Path | None, bool]:
    """The judge's cassette (if any) and whether its calls are priced (not a rule judge)."""
    if spec.kind == "noisy":
        return _judge_cassette(spec.inner or JudgeSpec())
    return spec.cassette, spec.kind == "recorded"


def _evaluation_rows(
    suite: Suite, evaluation: EvaluationSpec, samples: Sequence[Sample], build: str | None
) -> list[EstimateRow]:
    app = evaluation.application
    runs = suite.repeats
    chosen = build if build in app.builds else (app.build_names[0] if app.builds else None)
    recorded = _recorded(app.builds.get(chosen) if chosen else None)
    answers: list[str] = []
    tokens_in = tokens_out = 0
    sources: set[str] = set()
    for sample in samples:
        question = question_of(sample)
        response = recorded.get(question)
        answer = str((response or {}).get("text", sample.expected_output or ""))
        answers.append(answer)
        usage = _usage(response)
        if usage is None:
            messages = application_messages(app, question)
            usage = (_message_tokens(messages), estimate_tokens(answer))
            sources.add("estimated")
        else:
            sources.add("recorded")
        tokens_in += usage[0]
        tokens_out += usage[1]
    rows = [
        EstimateRow(
            evaluation.name,
            f"application ({chosen})" if chosen else "application",
            len(samples) * runs,
            tokens_in * runs,
            tokens_out * runs,
            " + ".join(sorted(sources)),
        )
    ]
    cassette, priced = _judge_cassette(suite.judge)
    replies = [u for r in _recorded(cassette).values() if (u := _usage(r)) is not None]
    reply_tokens = (
        round(sum(u[1] for u in replies) / len(replies)) if replies else JUDGE_REPLY_TOKENS
    )
    for spec in evaluation.strategies:
        if not spec.judged:
            continue
        strategy = build_strategy(spec, _Unasked())
        asks = int(spec.options.get("repeats", 1))
        prompt_tokens = 0
        for sample, answer in zip(samples, answers, strict=True):
            try:
                messages = _judge_messages(strategy, sample, answer) or []
            except (ValueError, LookupError):  # a variable this sample lacks: the run says so
                messages = []
            prompt_tokens += _message_tokens(messages)
        calls = len(samples) * runs * asks
        rows.append(
            EstimateRow(
                evaluation.name,
                f"judge: {spec.label}",
                calls,
                prompt_tokens * runs * asks,
                reply_tokens * calls,
                "estimated" + (" + recorded replies" if replies else ""),
                priced,
            )
        )
    return rows


def _conversation_rows(
    suite: Suite, evaluation: EvaluationSpec, cases: Sequence[ConversationSpec]
) -> list[EstimateRow]:
    """Upper bounds for conversation cases: a scripted case makes one application call a
    scripted turn, a persona case up to ``max-turns`` (and as many user-model calls); each
    per-turn check is asked once a turn, each whole-conversation check once a case."""
    turns = [len(case.turns) if case.turns is not None else case.max_turns for case in cases]
    user_text = sum(
        estimate_tokens(turn.text) for case in cases for turn in (case.turns or ()) if turn.text
    )
    calls = sum(turns) * suite.repeats
    rows = [
        EstimateRow(
            evaluation.name,
            "application (conversation turns, at most)",
            calls,
            user_text,
            0,
            "estimated: user turns only; replies unknown before the run",
        )
    ]
    personas = sum(t for t, case in zip(turns, cases, strict=True) if case.turns is None)
    if personas:
        rows.append(
            EstimateRow(
                evaluation.name,
                "simulated user (at most)",
                personas * suite.repeats,
                0,
                0,
                "estimated",
            )
        )
    _, priced = _judge_cassette(suite.judge)
    assert evaluation.conversations is not None
    for spec, asks in (
        *((s, sum(turns)) for s in evaluation.conversations.turn_strategies if s.judged),
        *((s, len(cases)) for s in evaluation.strategies if s.judged),
    ):
        rows.append(
            EstimateRow(
                evaluation.name,
                f"judge: {spec.label}",
                asks * suite.repeats,
                0,
                0,
                "estimated: calls only",
                priced,
            )
        )
    return rows


def estimate_run(suite: Suite, *, build: str | None = None, tags: Sequence[str] = ()) -> Estimate:
    """The calls and tokens a run of ``suite`` with this build and these tags would make."""
    rows: list[EstimateRow] = []
    for evaluation, samples in selected_samples(suite, tags):
        if evaluation.conversations is not None:
            rows.extend(_conversation_rows(suite, evaluation, list(samples)))
        else:
            rows.extend(_evaluation_rows(suite, evaluation, list(samples), build))
    return Estimate(tuple(rows))


def _money(value: Decimal | None) -> str:
    return "-" if value is None else f"{value.quantize(Decimal('0.000001')):f}"


def estimate_text(
    estimate: Estimate,
    *,
    price_input: Decimal | None = None,
    price_output: Decimal | None = None,
) -> str:
    """The estimate as a table, one row per caller, then the totals and how it was made."""
    header = ["evaluation", "caller", "calls", "tokens in", "tokens out", "cost", "counts"]
    rows = []
    for row in estimate.rows:
        cost = row.cost(price_input, price_output)
        counts = row.source if row.priced else f"{row.source}; rule judge, answered locally"
        rows.append(
            [
                row.evaluation,
                row.caller,
                str(row.calls),
                str(row.input_tokens),
                str(row.output_tokens),
                _money(cost),
                counts,
            ]
        )
    priced = [r for r in estimate.rows if r.priced]
    costs = [r.cost(price_input, price_output) for r in priced]
    total = (
        None if any(c is None for c in costs) else sum((c or Decimal(0) for c in costs), Decimal(0))
    )
    rows.append(
        [
            "total",
            "model calls",
            str(estimate.calls),
            str(sum(r.input_tokens for r in priced)),
            str(sum(r.output_tokens for r in priced)),
            _money(total),
            "",
        ]
    )
    note = (
        "dry run: no model was called. Tokens are recorded counts where the cassettes hold "
        f"them, else about {_CHARS_PER_TOKEN} characters a token"
    )
    if price_input is None and price_output is None:
        note += "; give --price-input and --price-output (per million tokens) for a cost"
    return table(header, rows, right=(2, 3, 4, 5)) + note + ".\n"
