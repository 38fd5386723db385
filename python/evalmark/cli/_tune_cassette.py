"""``evalmark tune --from-cassette JUDGE.jsonl``: the judge's flip rate measured from repeated
verdicts in a recording (the entries of one request key are the repeats of one prompt).

Every judge check's replies are read:

- the ``VERDICT: yes|no`` and ``GRADE: n`` lines of the judged checks with plain prompts
  (``relevancy``, ``groundedness``, ``correctness``, ``rubric``);
- the JSON replies of the catalog judges (``llm-judge``, ``faithfulness-judge``,
  ``trajectory-judge``, ``plan-adherence-judge``, the conversation judges): a ``"score"`` of
  true or false is a yes/no verdict; a number is a grade, one of the choices the recorded
  request names (its ``response_format`` schema) or of ``--grades``; a reply with no score (a
  classifier) is graded by its fields other than ``reasoning``.

Yes/no verdicts are what ``tune`` models, so when a recording holds both kinds the flip rate is
measured on the yes/no ones and the line says how many graded prompts were left out. Replies
with no verdict (an error, a refusal) are skipped and counted.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Hashable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalmark.errors import CliError

__all__ = ["flip_rates_from_cassette", "read_verdict"]

_DEFAULT_GRADES = 5  # a GRADE: n judge grades 1 to 5


@dataclass(frozen=True, slots=True)
class RecordedVerdict:
    """One reply read: a yes/no verdict (``binary``) or a grade among ``grades`` possible
    (None when the recording does not say)."""

    value: Hashable
    binary: bool
    grades: int | None = None


def read_verdict(text: str, request: Mapping[str, Any]) -> RecordedVerdict | None:
    """The verdict of one recorded judge reply ``text`` (``request``: the recorded request,
    for the choices it names); None when the reply holds none."""
    from evalmark.models._prompts import parse_verdict
    from evalmark.models._structured import REASONING_KEY, SCORE_KEY, json_objects

    plain = parse_verdict(text)
    if plain is not None:
        if plain.kind == "binary":
            return RecordedVerdict(plain.passed, binary=True)
        return RecordedVerdict(plain.grade, binary=False)
    found = list(json_objects(text))
    if not found:
        return None
    data = next((d for d in found if SCORE_KEY in d), found[0])
    choices = _choices(request, SCORE_KEY if SCORE_KEY in data else None, REASONING_KEY)
    if SCORE_KEY in data:
        score = data[SCORE_KEY]
        if isinstance(score, bool):
            return RecordedVerdict(score, binary=True)
        if isinstance(score, int | float):
            return RecordedVerdict(float(score), binary=False, grades=choices)
        return None
    answer = {k: v for k, v in data.items() if k != REASONING_KEY}
    if not answer:
        return None
    return RecordedVerdict(json.dumps(answer, sort_keys=True), binary=False, grades=choices)


def _choices(request: Mapping[str, Any], score_key: str | None, reasoning_key: str) -> int | None:
    """How many answers the request's native schema allows for the score (or, for a classifier,
    its one answer field): the length of its ``enum``; None when it does not say."""
    params = request.get("params")
    fmt = params.get("response_format") if isinstance(params, Mapping) else None
    spec = fmt.get("json_schema") if isinstance(fmt, Mapping) else None
    schema = spec.get("schema") if isinstance(spec, Mapping) else None
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return None
    names = [score_key] if score_key is not None else [n for n in properties if n != reasoning_key]
    if len(names) != 1 or not isinstance(properties.get(names[0]), Mapping):
        return None
    enum = properties[names[0]].get("enum")
    return len(enum) if isinstance(enum, list) and len(enum) >= 2 else None


@dataclass
class _Tally:
    binary: dict[str, list[Hashable]] = field(default_factory=lambda: defaultdict(list))
    graded: dict[str, list[Hashable]] = field(default_factory=lambda: defaultdict(list))
    grades: set[int] = field(default_factory=set)
    skipped: int = 0


def _tally(path: Path) -> _Tally:
    from evalmark.models._cassette_file import read_cassette

    tally = _Tally()
    for entry in sorted(read_cassette(path).entries, key=lambda e: (e.key, e.index)):
        if entry.kind != "chat":
            continue
        text = entry.response.get("text")
        verdict = read_verdict(text, entry.request) if isinstance(text, str) else None
        if verdict is None:
            tally.skipped += 1
            continue
        (tally.binary if verdict.binary else tally.graded)[entry.key].append(verdict.value)
        if verdict.grades is not None:
            tally.grades.add(verdict.grades)
    return tally


def flip_rates_from_cassette(path: Path, grades: int | None) -> tuple[list[float], str]:
    """The flip-rate estimate and the top of its interval, from the repeated verdicts of a
    judge recording, and a line saying so (see the module docstring)."""
    from evalmark.noise import estimate_flip_rate

    if not path.exists():
        raise CliError(f"--from-cassette: no such file {path}")
    tally = _tally(path)
    binary = [v for v in tally.binary.values() if len(v) >= 2]
    graded = [v for v in tally.graded.values() if len(v) >= 2]
    if not binary and not graded:
        raise CliError(
            f"--from-cassette: {path} holds no prompt judged twice or more; record the judge "
            "with repeats (a check with {repeats: 3}, or LLMJudge(repeats=k)) to measure "
            "its noise"
        )
    notes = []
    if binary:
        rows, count = binary, 2
        if graded:
            notes.append(f"{len(graded)} graded prompts left out")
    else:
        rows = graded
        count = grades or max(tally.grades, default=_DEFAULT_GRADES)
        seen = len({v for row in rows for v in row})
        if seen > count:
            raise CliError(
                f"--from-cassette: {path} holds {seen} different grades but the judge is taken "
                f"to have {count}; give the number of possible grades with --grades"
            )
        notes.append(f"graded, {count} grades")
    if tally.skipped:
        notes.append(f"{tally.skipped} replies without a verdict skipped")
    estimate = estimate_flip_rate(rows, grades=count)
    line = (
        f"judge flip rate from {path}: {estimate.flip_rate:.3f} (95% interval "
        f"{estimate.low:.3f}-{estimate.high:.3f}, {estimate.prompts} prompts, "
        f"{estimate.pairs} pairs" + "".join(f"; {note}" for note in notes) + ")"
    )
    return [estimate.flip_rate, estimate.high], line
