"""``NoisyJudge``: a judge wrapper that flips verdicts at a known, seeded rate.

How a call is identified: the evaluation engine wraps each judge call in
``evalmark.models.call_context(run_index=..., sample=..., check=...)``; ``NoisyJudge`` reads it
with ``current_call()``. The flip decision is ``evalmark.models._seeded.uniform(seed, "noisy-judge",
run_index, sample, check) < rate``, a pure function of those four values, so the same seed
gives the same flips whatever the thread scheduling, evaluation order or machine. A call made
outside any ``call_context`` is an error, never a silent fallback to call order.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from evalmark.models._context import CallContext, current_call
from evalmark.models._prompts import Verdict, parse_verdict, replace_verdict
from evalmark.models._protocols import achat_of, model_id_of
from evalmark.models._seeded import randbelow, uniform
from evalmark.models._structured import SCORE_KEY, json_object_texts
from evalmark.models._values import ChatReply, MessageLike

# A reply that starts with yes or no (after markdown and quotes), as plain judges answer.
_LEADING_YES_NO = re.compile(r"^([\s*_#>`\"'“”‘’(\[-]*)(yes|no)\b", re.IGNORECASE)


def _json_verdict(text: str) -> tuple[str, dict[str, Any]] | None:
    """(the object's text, the object) of the first JSON object with a boolean "score"."""
    for found in json_object_texts(text):
        data = json.loads(found)
        if isinstance(data.get(SCORE_KEY), bool):
            return found, data
    return None


def _opposite(answer: str) -> str:
    """no for yes and yes for no, in the same letter case."""
    other = "no" if answer.casefold() == "yes" else "yes"
    if answer.isupper():
        return other.upper()
    return other.capitalize() if answer[0].isupper() else other


class Flip(msgspec.Struct, frozen=True):
    """The noise decision for one (run, sample, check): the draw, the rate, and the outcome."""

    draw: float
    rate: float
    flipped: bool


def _check_rate(rate: float, where: str) -> float:
    if isinstance(rate, bool) or not isinstance(rate, int | float):
        raise TypeError(f"{where} must be a number, got {type(rate).__name__}")
    if not (math.isfinite(rate) and 0.0 <= rate <= 1.0):
        raise ValueError(f"{where} must be a probability in [0, 1], got {rate}")
    return float(rate)


class NoisyJudge:
    """Wraps ``judge`` and flips its verdicts with probability ``flip_rate``.

    A yes/no verdict (a ``VERDICT: yes|no`` line, a JSON reply whose ``"score"`` is true or
    false as :class:`~evalmark.strategies._llm_judge.LLMJudge` asks for, else a reply starting
    with yes or no) is inverted; a graded verdict (``GRADE: n``) is replaced by a different
    grade of ``grades``, drawn uniformly. Numeric JSON scores are not supported. ``flip_rate``
    is one probability or a mapping from sample name to probability (a sample missing from it is an
    error). The reply's metadata gains ``flipped`` (bool), ``original_verdict`` and
    ``flip_rate``. See the module docstring for how calls are identified.
    """

    def __init__(
        self,
        judge: Any,
        flip_rate: float | Mapping[str, float],
        seed: int,
        *,
        grades: Sequence[int] = (1, 2, 3, 4, 5),
    ) -> None:
        if isinstance(flip_rate, Mapping):
            self._rates: float | dict[str, float] = {
                str(sample): _check_rate(rate, f"flip_rate[{sample!r}]")
                for sample, rate in flip_rate.items()
            }
        else:
            self._rates = _check_rate(flip_rate, "flip_rate")
        if len(set(grades)) < 2:
            raise ValueError(f"grades needs at least two distinct values, got {list(grades)}")
        self.judge = judge
        self.seed = int(seed)
        self.grades = tuple(sorted(set(grades)))
        self.model_id = f"noisy:{model_id_of(judge)}"

    @property
    def default_params(self) -> Mapping[str, Any]:
        """The wrapped judge's default parameters."""
        params = getattr(self.judge, "default_params", None)
        return dict(params) if isinstance(params, Mapping) else {}

    def rate_for(self, sample: str) -> float:
        """The flip probability of ``sample``."""
        if isinstance(self._rates, float):
            return self._rates
        try:
            return self._rates[sample]
        except KeyError:
            known = ", ".join(repr(name) for name in sorted(self._rates)[:10])
            raise ValueError(
                f"NoisyJudge has no flip rate for sample {sample!r}; the flip_rate mapping "
                f"covers {known}{'…' if len(self._rates) > 10 else ''}"
            ) from None

    def flip(self, run_index: int, sample: str, check: str) -> Flip:
        """Whether the verdict for (run_index, sample, check) is flipped: a pure function."""
        rate = self.rate_for(sample)
        draw = uniform(self.seed, "noisy-judge", int(run_index), sample, check)
        return Flip(draw=draw, rate=rate, flipped=draw < rate)

    def replacement_grade(self, grade: int, run_index: int, sample: str, check: str) -> int:
        """The grade a flipped ``grade`` becomes: uniform over the other grades, seeded."""
        if grade not in self.grades:
            raise ValueError(f"the judge answered GRADE: {grade}, outside the grades {self.grades}")
        others = [g for g in self.grades if g != grade]
        pick = randbelow(len(others), self.seed, "noisy-judge-grade", int(run_index), sample, check)
        return others[pick]

    def perturb(self, reply: ChatReply, context: CallContext) -> ChatReply:
        """``reply`` with its verdict flipped or kept, and the decision in its metadata."""
        verdict = parse_verdict(reply.text)
        leading = None if verdict is not None else _LEADING_YES_NO.match(reply.text)
        judgment = None if verdict is not None or leading is not None else _json_verdict(reply.text)
        if verdict is None and leading is None and judgment is None:
            raise ValueError(
                "NoisyJudge: the judge's reply has no 'VERDICT: yes|no' or 'GRADE: n' line, no "
                'JSON object with a true/false "score", and does not start with yes or no: '
                f"{reply.text[-120:]!r}"
            )
        decision = self.flip(context.run_index, context.sample, context.check)
        original: bool | int | None
        if judgment is not None:
            found, data = judgment
            original = bool(data["score"])
            new_text = reply.text
            if decision.flipped:
                flipped = json.dumps({**data, "score": not original}, ensure_ascii=False)
                new_text = reply.text.replace(found, flipped, 1)
        elif leading is not None:
            answer = leading.group(2)
            original = answer.casefold() == "yes"
            new_text = reply.text
            if decision.flipped:
                new_text = (
                    reply.text[: leading.start(2)]
                    + _opposite(answer)
                    + reply.text[leading.end(2) :]
                )
        else:
            assert verdict is not None
            original = verdict.passed if verdict.kind == "binary" else verdict.grade
            new_text = reply.text
            if decision.flipped:
                new_text = replace_verdict(reply.text, self._flipped(verdict, context))
        metadata = {
            **reply.metadata,
            "flipped": decision.flipped,
            "original_verdict": original,
            "flip_rate": decision.rate,
        }
        return msgspec.structs.replace(reply, text=new_text, metadata=metadata)

    def _flipped(self, verdict: Verdict, context: CallContext) -> Verdict:
        if verdict.kind == "binary":
            return Verdict(kind="binary", passed=not verdict.passed)
        assert verdict.grade is not None
        grade = self.replacement_grade(
            verdict.grade, context.run_index, context.sample, context.check
        )
        return Verdict(kind="graded", grade=grade)

    def _context(self) -> CallContext:
        context = current_call()
        if context is None:
            raise RuntimeError(
                "NoisyJudge needs to know which run, sample and check a call belongs to: make "
                "the call inside `with evalmark.models.call_context(run_index=..., sample=..., "
                "check=...):`"
            )
        return context

    def chat(self, messages: Sequence[MessageLike], **params: Any) -> ChatReply:
        """Ask the wrapped judge, then flip its verdict or not (see the class docstring)."""
        context = self._context()
        reply: ChatReply = self.judge.chat(messages, **params)
        return self.perturb(reply, context)

    async def achat(self, messages: Sequence[MessageLike], **params: Any) -> ChatReply:
        """Async :meth:`chat`."""
        context = self._context()
        reply = await achat_of(self.judge, messages, **params)
        return self.perturb(reply, context)
