"""``RuleJudge``: a deterministic word-overlap judge for evalmark's own judge prompts.

It answers the line-verdict templates (``VERDICT: yes|no``, ``GRADE: n``) and every prompt of
the catalog (a JSON reply of the shape asked for; see :mod:`evalmark.models._rule_catalog` for
the rule of each). It is a stand-in for tests and demos, not a judge of meaning. Known,
pinned failures:

* it **accepts a dropped negation**: negation words are function words here, so "the drug is
  approved" is supported by "the drug is not approved";
* it **rejects a correct paraphrase**: "the meeting was postponed" shares too few words with
  "the meeting was delayed to a later date";
* it ignores word order, so "Alice paid Bob" is supported by "Bob paid Alice";
* a wrong number is one missing word among several, so "the tower is 500 metres" passes against
  "the tower is 330 metres tall" (3 of 4 content words match).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

from evalmark.models._lexical import STOPWORDS, content_words, overlap
from evalmark.models._prompts import JudgePrompt, ParseMode
from evalmark.models._prompts.answers import RESPONSE_SCHEMA_BLOCK
from evalmark.models._prompts.catalog import get_prompt
from evalmark.models._prompts.model import RenderedPrompt, read_prompt
from evalmark.models._rule_catalog import (
    RuleOutcome,
    answer_catalog_prompt,
    requested_schema,
    rule_outcome,
    schema_instance,
)
from evalmark.models._values import ChatReply, MessageLike, last_user_text, message_dicts

__all__ = ["STOPWORDS", "RuleJudge", "content_words", "overlap"]


class RuleJudge:
    """A deterministic judge that reads the claim and the evidence out of an evalmark judge
    prompt (see :mod:`evalmark.models._prompts`) and answers by word overlap.

    Catalog prompts (``evalmark-prompt:`` header): the prompt's rule. Line-verdict prompts
    (``evalmark-judge:`` header): at least ``min_overlap`` of the claim's content words and
    numbers appear in the evidence. It answers in the form the prompt asks for: a JSON object
    of the requested shape (structured), ``VERDICT: yes|no``, ``GRADE: g`` with
    g = low + round((high − low) × overlap), or a JSON judgment. The overlap is in the
    reply's metadata. Lexical only; see the module docstring for what it gets wrong.
    """

    model_id = "rule-judge"

    def __init__(self, min_overlap: float = 0.6) -> None:
        if not 0.0 <= min_overlap <= 1.0:
            raise ValueError(f"min_overlap must be in [0, 1], got {min_overlap}")
        self.min_overlap = min_overlap

    @property
    def default_params(self) -> Mapping[str, Any]:
        """Its threshold, so cassettes of different thresholds never mix."""
        return {"min_overlap": self.min_overlap}

    def chat(self, messages: Sequence[MessageLike], **params: Any) -> ChatReply:
        """Judge the prompt in the last user message, answering in the form it asks for."""
        text = last_user_text(message_dicts(messages)) or ""
        rendered = read_prompt(text)
        if rendered is None:
            raise ValueError(
                "RuleJudge reads only evalmark's own judge prompts (evalmark.models._prompts): "
                "the last user message has no 'evalmark-judge:' or 'evalmark-prompt:' header "
                "line"
            )
        try:
            prompt = get_prompt(rendered.name)
        except KeyError as exc:
            raise ValueError(f"RuleJudge: {exc.args[0]}") from None
        asked = _asked_form(text, params, prompt)
        if prompt.rule.get("kind") != "line":
            if asked == "structured":
                answer, metadata = answer_catalog_prompt(prompt, rendered, params, self.min_overlap)
                return ChatReply(text=answer, metadata=metadata)
            outcome = rule_outcome(prompt, rendered, self.min_overlap)
            metadata = {"rule": prompt.rule.get("kind"), "share": outcome.share}
            return ChatReply(text=_line_answer(asked, outcome, prompt), metadata=metadata)
        outcome = self._line_outcome(prompt, rendered)
        if asked == "structured":
            schema = requested_schema(params) or rendered.schema or prompt.response().json_schema()
            reply = json.dumps(schema_instance(schema, outcome), ensure_ascii=False)
            return ChatReply(text=reply, metadata={"overlap": outcome.share})
        return ChatReply(
            text=_line_answer(asked, outcome, prompt), metadata={"overlap": outcome.share}
        )

    def _line_outcome(self, prompt: JudgePrompt, rendered: RenderedPrompt) -> RuleOutcome:
        claim, evidence = str(prompt.rule["claim"]), str(prompt.rule["evidence"])
        for block in (claim, evidence):
            if block not in rendered.blocks:
                raise ValueError(f"the {rendered.name} prompt has no {block} block")
        share, missing = overlap(rendered.blocks[claim], rendered.blocks[evidence])
        found = (
            f"{share:.0%} of the content words of the {claim.lower()} appear in "
            f"the {evidence.lower()}"
        )
        if missing:
            found += f"; missing: {', '.join(missing[:10])}"
        return RuleOutcome(share >= self.min_overlap, share, found + ".")

    async def achat(self, messages: Sequence[MessageLike], **params: Any) -> ChatReply:
        """Same as :meth:`chat`."""
        return self.chat(messages, **params)


def _asked_form(text: str, params: Mapping[str, Any], prompt: JudgePrompt) -> ParseMode:
    """The parse mode a rendered prompt asks for: structured when a JSON Schema is in it or in
    the request, else the line it asks to end with, else a JSON judgment, else the prompt's."""
    if requested_schema(params) is not None or f"<<<BEGIN {RESPONSE_SCHEMA_BLOCK}>>>" in text:
        return "structured"
    if "`VERDICT: yes` or `VERDICT: no`" in text:
        return "verdict"
    if "`GRADE: n`" in text:
        return "grade"
    if '{"passed": true or false' in text:
        return "json"
    return prompt.reply


def _line_answer(asked: ParseMode, outcome: RuleOutcome, prompt: JudgePrompt) -> str:
    """The answer of a line reply (``verdict``, ``grade``, ``json``) holding ``outcome``."""
    if asked == "grade":
        low, high = prompt.grades
        grade = min(high, max(low, low + math.floor((high - low) * outcome.share + 0.5)))
        return f"{outcome.reasoning}\nGRADE: {grade}"
    if asked == "json":
        judgment = {
            "passed": outcome.passed,
            "score": round(outcome.share, 4),
            "explanation": outcome.reasoning,
        }
        return json.dumps(judgment, ensure_ascii=False)
    return f"{outcome.reasoning}\nVERDICT: {'yes' if outcome.passed else 'no'}"
