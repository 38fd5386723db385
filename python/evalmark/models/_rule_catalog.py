"""How ``RuleJudge`` answers the catalog prompts: one lexical rule per prompt, a JSON reply.

Each catalog prompt names its rule in its front matter (``rule: {kind: ..., ...}``):

* ``overlap`` (``claim``, ``evidence``, optional ``min-overlap``): the share of the claim's
  content words found in the evidence, passing at the judge's ``min_overlap``;
* ``absent`` (``block``, ``lexicon``, optional ``roles``): passes when none of a fixed list of
  phrases or patterns occurs (in a conversation, only in the messages of ``roles``);
* ``words`` (``block``, ``max-words``): passes when the text is at most so many words long and
  has no filler phrase;
* ``steps`` (``claim``, ``evidence``): the reference trajectory's tool calls, in order, are
  among the agent's;
* ``tools`` (``calls``, ``tools``, ``request``): every tool called exists and shares a word
  with the request;
* ``language`` and ``intent`` (``block``): classifiers by stop words and by key words;
* ``pairwise`` (``first``, ``second``, ``against``): the answer covering more of the content
  words of the first non-empty ``against`` block wins (``A`` or ``B``); equal shares tie.

The reply is a JSON object of the shape the judge asked for (the ``response_format`` of a
native request, or the schema written into a prompted one): booleans get the verdict, numbers
the share scaled to their range (the nearest of an ``enum``), strings the reasoning. Lexical
stand-ins for tests and demos, like the rest of ``RuleJudge``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evalmark.models._lexical import content_words, overlap
from evalmark.models._prompts.fence import block_name
from evalmark.models._prompts.model import JudgePrompt, RenderedPrompt
from evalmark.models._prompts.values import tool_names
from evalmark.models._rule_lexicons import INTENTS, LANGUAGES, LEXICONS

__all__ = [
    "RuleOutcome",
    "answer_catalog_prompt",
    "requested_schema",
    "rule_outcome",
    "schema_instance",
]

_NOT_GIVEN = "(not given)"
_REASONING_KEYS = ("reasoning", "explanation", "rationale", "reason", "comment")


@dataclass(frozen=True, slots=True)
class RuleOutcome:
    """A rule's answer: the verdict, a share in [0, 1], the reasoning, classifier fields."""

    passed: bool
    share: float
    reasoning: str
    fields: dict[str, Any] = field(default_factory=dict)


def _text(rendered: RenderedPrompt, variable: str) -> str:
    text = rendered.blocks.get(block_name(variable), "")
    return "" if text == _NOT_GIVEN else text


def _names(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, Sequence):
        return [str(v) for v in value]
    return []


_ENTRY = re.compile(r"^\[([a-z]+)\] ", re.M)


def _by_roles(text: str, roles: Sequence[str]) -> str:
    """The messages of a transcript whose role is in ``roles`` (the whole text when it is not
    a transcript)."""
    if not roles or not _ENTRY.search(text):
        return text
    starts = [m for m in _ENTRY.finditer(text)]
    kept = []
    for position, match in enumerate(starts):
        end = starts[position + 1].start() if position + 1 < len(starts) else len(text)
        if match.group(1) in roles:
            kept.append(text[match.end() : end])
    return "\n".join(kept)


def _overlap_rule(
    rule: Mapping[str, Any], rendered: RenderedPrompt, judge_min: float
) -> RuleOutcome:
    claim_var = str(rule["claim"])
    evidence_vars = _names(rule.get("evidence", ()))
    claim = _text(rendered, claim_var)
    evidence = "\n".join(_text(rendered, v) for v in evidence_vars)
    share, missing = overlap(claim, evidence)
    least = float(rule.get("min-overlap", judge_min))
    found = (
        f"{share:.0%} of the content words of the {claim_var} appear in the "
        f"{' and '.join(evidence_vars)}"
    )
    if missing:
        found += f"; missing: {', '.join(missing[:10])}"
    return RuleOutcome(share >= least, share, found + ".")


def _absent_rule(rule: Mapping[str, Any], rendered: RenderedPrompt) -> RuleOutcome:
    variable = str(rule["block"])
    lexicon = str(rule["lexicon"])
    roles = _names(rule.get("roles", ()))
    text = _by_roles(_text(rendered, variable), roles)
    hits: list[str] = []
    for pattern in LEXICONS[lexicon]:
        for match in pattern.finditer(text):
            if match.group(0).strip() and match.group(0) not in hits:
                hits.append(match.group(0).strip())
    where = f"the {' and '.join(roles)} messages of the {variable}" if roles else f"the {variable}"
    if not hits:
        return RuleOutcome(
            True, 1.0, f"none of the {lexicon.replace('_', ' ')} phrases occurs in {where}."
        )
    shown = ", ".join(repr(h) for h in hits[:5])
    return RuleOutcome(False, max(0.0, 1.0 - 0.6 * len(hits)), f"{where} contains {shown}.")


def _words_rule(rule: Mapping[str, Any], rendered: RenderedPrompt) -> RuleOutcome:
    variable = str(rule["block"])
    limit = int(rule.get("max-words", 80))
    text = _text(rendered, variable)
    words = len(text.split())
    filler = [m.group(0) for p in LEXICONS["filler"] for m in p.finditer(text)]
    share = 1.0 if words <= limit else limit / words
    share = max(0.0, share - 0.3 * len(filler))
    found = f"the {variable} has {words} words (at most {limit} wanted)"
    if filler:
        found += f" and filler: {', '.join(repr(f) for f in filler[:5])}"
    return RuleOutcome(words <= limit and not filler, share, found + ".")


def _lcs(a: Sequence[str], b: Sequence[str]) -> int:
    previous = [0] * (len(b) + 1)
    for x in a:
        current = [0]
        for j, y in enumerate(b):
            current.append(previous[j] + 1 if x == y else max(previous[j + 1], current[j]))
        previous = current
    return previous[-1]


def _steps_rule(rule: Mapping[str, Any], rendered: RenderedPrompt) -> RuleOutcome:
    wanted = tool_names(_text(rendered, str(rule["claim"])))
    made = tool_names(_text(rendered, str(rule["evidence"])))
    if not wanted:
        return RuleOutcome(True, 1.0, "the reference calls no tool.")
    common = _lcs(wanted, made)
    share = common / len(wanted)
    found = (
        f"{common} of the reference's {len(wanted)} tool calls ({', '.join(wanted)}) appear in "
        f"order among the agent's ({', '.join(made) or 'none'})."
    )
    return RuleOutcome(common == len(wanted), share, found)


def _tool_list(text: str) -> dict[str, str]:
    try:
        value = json.loads(text)
    except ValueError:
        return {line.split(":")[0].strip(): line for line in text.splitlines() if line.strip()}
    if isinstance(value, Mapping):
        return {str(k): json.dumps(v) for k, v in value.items()}
    tools: dict[str, str] = {}
    for item in value if isinstance(value, list) else []:
        if isinstance(item, Mapping):
            function = item.get("function")
            spec: Mapping[str, Any] = function if isinstance(function, Mapping) else item
            if "name" in spec:
                tools[str(spec["name"])] = json.dumps(spec, sort_keys=True)
        elif isinstance(item, str):
            tools[item] = item
    return tools


def _tools_rule(rule: Mapping[str, Any], rendered: RenderedPrompt) -> RuleOutcome:
    calls = tool_names(_text(rendered, str(rule["calls"])))
    available = _tool_list(_text(rendered, str(rule["tools"])))
    request = set(content_words(_text(rendered, str(rule["request"]))))
    if not calls:
        return RuleOutcome(False, 0.0, "the agent called no tool.")
    unknown = [c for c in calls if c not in available]
    unrelated = [
        c
        for c in calls
        if c in available
        and not request & set(content_words(re.sub(r"[_-]", " ", c) + " " + available[c]))
    ]
    good = len(calls) - len(unknown) - len(unrelated)
    problems = []
    if unknown:
        problems.append(f"not among the tools: {', '.join(unknown)}")
    if unrelated:
        problems.append(f"sharing no word with the request: {', '.join(unrelated)}")
    found = f"the agent called {', '.join(calls)}" + (
        f"; {'; '.join(problems)}" if problems else "; each fits the request"
    )
    return RuleOutcome(not problems, good / len(calls), found + ".")


def _language_rule(rule: Mapping[str, Any], rendered: RenderedPrompt) -> RuleOutcome:
    words = re.findall(r"\w+", _text(rendered, str(rule["block"])).casefold())
    counts = [(sum(w in stop for w in words), code) for code, stop in LANGUAGES]
    best, code = max(counts, key=lambda item: item[0])  # the first language wins a tie
    found = f"{best} of {len(words)} words are common {code} words."
    return RuleOutcome(True, 1.0, found, {"language": code})


def _intent_rule(rule: Mapping[str, Any], rendered: RenderedPrompt) -> RuleOutcome:
    text = _by_roles(_text(rendered, str(rule["block"])), ["user"]).casefold()
    for intent, keys in INTENTS:
        hit = next(
            (key for key in keys if re.search(rf"(?<!\w){re.escape(key)}(?!\w)", text)), None
        )
        if hit is not None:
            return RuleOutcome(True, 1.0, f"the user writes {hit!r}.", {"intent": intent})
    return RuleOutcome(True, 1.0, "no key word of any category occurs.", {"intent": "other"})


def rule_outcome(prompt: JudgePrompt, rendered: RenderedPrompt, min_overlap: float) -> RuleOutcome:
    """The outcome of ``prompt``'s rule on the blocks of a rendered prompt."""
    rule = prompt.rule
    kind = rule.get("kind")
    if kind == "overlap":
        return _overlap_rule(rule, rendered, min_overlap)
    if kind == "absent":
        return _absent_rule(rule, rendered)
    if kind == "words":
        return _words_rule(rule, rendered)
    if kind == "steps":
        return _steps_rule(rule, rendered)
    if kind == "tools":
        return _tools_rule(rule, rendered)
    if kind == "language":
        return _language_rule(rule, rendered)
    if kind == "intent":
        return _intent_rule(rule, rendered)
    if kind == "pairwise":
        return _pairwise_rule(rule, rendered)
    raise ValueError(
        f"RuleJudge has no rule for the judge prompt {prompt.name!r} (its front matter says "
        f"rule: {dict(rule)!r}); give it a rule of kind overlap, absent, words, steps, tools, "
        "language, intent or pairwise"
    )


# --------------------------------------------------------------------------- the reply


def _scaled(schema: Mapping[str, Any], share: float) -> float:
    low = float(schema.get("minimum", 0))
    high = float(schema.get("maximum", 1))
    value = low + (high - low) * share
    if schema.get("type") == "integer":
        return math.floor(value + 0.5)
    return round(value, 4)


def _value(schema: Mapping[str, Any], outcome: RuleOutcome) -> Any:
    enum = schema.get("enum")
    if isinstance(enum, list) and enum:
        numbers = [v for v in enum if isinstance(v, int | float) and not isinstance(v, bool)]
        if len(numbers) == len(enum):
            low, high = min(numbers), max(numbers)
            target = low + (high - low) * outcome.share
            return min(numbers, key=lambda v: (abs(v - target), v))
        return enum[0] if outcome.passed else enum[-1]
    kind = schema.get("type")
    if kind == "boolean":
        return outcome.passed
    if kind in ("number", "integer"):
        return _scaled(schema, outcome.share)
    if kind == "string":
        return outcome.reasoning
    if kind == "array":
        return []
    if kind == "object":
        return schema_instance(schema, outcome)
    return None


def schema_instance(schema: Mapping[str, Any], outcome: RuleOutcome) -> dict[str, Any]:
    """A reply of the shape of ``schema`` (an object schema) holding ``outcome``."""
    properties = schema.get("properties")
    out: dict[str, Any] = {}
    if not isinstance(properties, Mapping):
        return out
    for name, sub in properties.items():
        sub = sub if isinstance(sub, Mapping) else {}
        if name in outcome.fields:
            out[name] = outcome.fields[name]
        elif name in _REASONING_KEYS and sub.get("type", "string") == "string":
            out[name] = outcome.reasoning
        else:
            out[name] = _value(sub, outcome)
    return out


def requested_schema(params: Mapping[str, Any]) -> dict[str, Any] | None:
    """The JSON Schema of a native structured-output request's ``response_format``, or None."""
    requested = params.get("response_format")
    if isinstance(requested, Mapping) and requested.get("type") == "json_schema":
        spec = requested.get("json_schema")
        schema = spec.get("schema") if isinstance(spec, Mapping) else None
        if isinstance(schema, dict):
            return schema
    return None


def answer_catalog_prompt(
    prompt: JudgePrompt,
    rendered: RenderedPrompt,
    params: Mapping[str, Any],
    min_overlap: float,
) -> tuple[str, dict[str, Any]]:
    """(the JSON reply, its metadata) of ``RuleJudge`` to a rendered catalog prompt."""
    outcome = rule_outcome(prompt, rendered, min_overlap)
    schema = requested_schema(params) or rendered.schema or prompt.response().json_schema()
    reply = schema_instance(schema, outcome)
    metadata = {"rule": prompt.rule.get("kind"), "share": outcome.share}
    return json.dumps(reply, ensure_ascii=False), metadata


def _pairwise_rule(rule: Mapping[str, Any], rendered: RenderedPrompt) -> RuleOutcome:
    basis = next(
        (name for name in _names(rule.get("against", ())) if _text(rendered, name).strip()), ""
    )
    target = _text(rendered, basis) if basis else ""
    first, _ = overlap(target, _text(rendered, str(rule["first"])))
    second, _ = overlap(target, _text(rendered, str(rule["second"])))
    winner = "A" if first > second else "B" if second > first else "tie"
    found = (
        f"answer A covers {first:.0%} and answer B {second:.0%} of the content words of the "
        f"{basis or 'request'}; the winner is {winner}."
    )
    return RuleOutcome(winner != "tie", max(first, second), found, {"winner": winner})
