"""``JsonKeysMatch``: compare a JSON output with the expected document key by key.

Every leaf of the expected document (``address.city``, ``items[0].qty``) is one key with its
own verdict and score; the aggregator turns them into one result (``all``: every key must
pass; ``average``: the mean score must reach ``threshold``). Options:

* ``exclude_keys`` — paths left out: ``"meta.created"``, ``"items[].id"`` (``[]`` stands for any
  index), a bare name such as ``"id"`` (at any depth), or shell-style patterns (``"meta.*"``);
* ``rubrics`` — a strategy (e.g. an ``LLMJudge``) or a function ``(expected, actual) ->
  bool | float | EvaluationResult`` per key path (same path syntax), used instead of equality
  for that key (and everything under it);
* ``lists`` — ``"ordered"`` (item i against item i), ``"unordered"`` (items paired to
  maximize the total score with the Hungarian method, not greedily; OpenEvals calls this
  ``same_elements``), ``"superset"`` (the output may hold items the expected list does not:
  they never fail) or ``"subset"`` (the output may leave expected items out: only the items it
  has are compared, and an item with no expected partner fails);
* ``list_aggregator`` — ``None`` (default: one mean over every key of every item) or, for a
  top-level list of items, ``"all"`` / ``"average"``: each item is first scored on its own with
  ``aggregator`` (``all``: 1 or 0; ``average``: its keys' mean), then the items' scores are
  combined (``all``: every item must pass; ``average``: their mean), as OpenEvals does;
* ``extra_keys`` — ``"ignore"`` (default) or ``"fail"``: whether keys and list items the
  expected document does not have count as failing keys.

Numbers compare by exact value (1 == 1.0); strings exactly; ``true`` is not ``1``.
"""

from __future__ import annotations

import fnmatch
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any, Literal

from evalmark._tracing._direct import recorded
from evalmark.errors import StrategyError
from evalmark.results._results import EvaluationResult
from evalmark.samples._samples import Parameters, Sample
from evalmark.strategies._base import case_expected_output, output_text
from evalmark.strategies._matching import max_weight_assignment
from evalmark.strategies._trajectory import json_equal

__all__ = ["JsonKeysMatch", "KeyOutcome"]

_INDEX = re.compile(r"\[\d+\]")
_LIST_MODES = ("ordered", "unordered", "subset", "superset")


@dataclass(frozen=True, slots=True)
class KeyOutcome:
    """The verdict on one key path."""

    path: str
    passed: bool
    score: float
    explanation: str


def _show(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=_decimal_default)
    return text if len(text) <= 60 else text[:59] + "…"


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


class JsonKeysMatch:
    """Key-by-key comparison of JSON documents; see the module docstring."""

    def __init__(
        self,
        *,
        exclude_keys: Sequence[str] = (),
        rubrics: Mapping[str, object] | None = None,
        aggregator: Literal["all", "average"] = "all",
        threshold: float = 1.0,
        lists: Literal["ordered", "unordered", "subset", "superset"] = "ordered",
        extra_keys: Literal["ignore", "fail"] = "ignore",
        list_aggregator: Literal["all", "average"] | None = None,
        name: str | None = None,
    ) -> None:
        if aggregator not in ("all", "average"):
            raise ValueError(f"aggregator must be 'all' or 'average', got {aggregator!r}")
        if list_aggregator not in (None, "all", "average"):
            raise ValueError(
                f"list_aggregator must be 'all', 'average' or None, got {list_aggregator!r}"
            )
        if lists not in _LIST_MODES:
            raise ValueError(f"lists must be one of {', '.join(_LIST_MODES)}, got {lists!r}")
        if extra_keys not in ("ignore", "fail"):
            raise ValueError(f"extra_keys must be 'ignore' or 'fail', got {extra_keys!r}")
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be in [0, 1], got {threshold}")
        if isinstance(exclude_keys, str):
            exclude_keys = (exclude_keys,)
        self.exclude_keys = tuple(exclude_keys)
        self.rubrics = dict(rubrics or {})
        for pattern, rubric in self.rubrics.items():
            if not (hasattr(rubric, "evaluate") or callable(rubric)):
                raise TypeError(
                    f"rubric for {pattern!r} must be a strategy or a function "
                    "(expected, actual) -> bool | float | EvaluationResult"
                )
        self.aggregator = aggregator
        self.threshold = float(threshold)
        self.lists = lists
        self.list_aggregator = list_aggregator
        self.extra_keys = extra_keys
        self.name = name or "JsonKeysMatch"

    # ------------------------------------------------------------------ paths

    @staticmethod
    def _matches(pattern: str, path: str) -> bool:
        general = _INDEX.sub("[]", path)
        if pattern in (path, general):
            return True
        if "." not in pattern and "[" not in pattern and "*" not in pattern:
            last = general.rsplit(".", 1)[-1]
            return last.split("[", 1)[0] == pattern
        return fnmatch.fnmatchcase(general, pattern) or fnmatch.fnmatchcase(path, pattern)

    def _excluded(self, path: str) -> bool:
        return any(self._matches(p, path) for p in self.exclude_keys)

    def _rubric(self, path: str) -> object | None:
        for pattern, rubric in self.rubrics.items():
            if self._matches(pattern, path):
                return rubric
        return None

    # ------------------------------------------------------------------ comparison

    def compare(
        self, expected: Any, actual: Any, path: str = "", sample: Sample | None = None
    ) -> list[KeyOutcome]:
        """The outcome of every key of ``expected`` (and, with ``extra_keys="fail"``, every
        extra key of ``actual``) under ``path``."""
        if path:
            rubric = self._rubric(path)
            if rubric is not None:
                return [self._apply_rubric(rubric, expected, actual, path, sample)]
        if isinstance(expected, Mapping):
            return self._objects(expected, actual, path, sample)
        if isinstance(expected, list) and expected:
            return self._lists(expected, actual, path, sample)
        where = path or "(document)"
        if json_equal(expected, actual):
            return [KeyOutcome(where, True, 1.0, "")]
        return [KeyOutcome(where, False, 0.0, f"expected {_show(expected)}, got {_show(actual)}")]

    def _objects(
        self, expected: Mapping[str, Any], actual: Any, path: str, sample: Sample | None
    ) -> list[KeyOutcome]:
        if not isinstance(actual, Mapping):
            return [
                KeyOutcome(
                    path or "(document)", False, 0.0, f"expected an object, got {_show(actual)}"
                )
            ]
        out: list[KeyOutcome] = []
        for key in sorted(expected):
            child = _join(path, key)
            if self._excluded(child):
                continue
            if key not in actual:
                out.append(KeyOutcome(child, False, 0.0, "missing"))
            else:
                out.extend(self.compare(expected[key], actual[key], child, sample))
        if self.extra_keys == "fail":
            for key in sorted(set(actual) - set(expected)):
                child = _join(path, key)
                if not self._excluded(child):
                    out.append(
                        KeyOutcome(child, False, 0.0, f"unexpected key ({_show(actual[key])})")
                    )
        return out

    def _lists(
        self, expected: list[Any], actual: Any, path: str, sample: Sample | None
    ) -> list[KeyOutcome]:
        if not isinstance(actual, list):
            return [
                KeyOutcome(
                    path or "(document)", False, 0.0, f"expected a list, got {_show(actual)}"
                )
            ]
        if self.lists == "ordered":
            pairs = [i if i < len(actual) else -1 for i in range(len(expected))]
        else:
            weights = [
                [_mean(self.compare(e, a, f"{path}[{i}]", sample)) for a in actual]
                for i, e in enumerate(expected)
            ]
            pairs = max_weight_assignment(weights) if actual else [-1] * len(expected)
        out: list[KeyOutcome] = []
        for i, j in enumerate(pairs):
            child = f"{path}[{i}]"
            if self._excluded(child) or (j < 0 and self.lists == "subset"):
                continue
            if j < 0:
                out.append(KeyOutcome(child, False, 0.0, f"missing item {_show(expected[i])}"))
            else:
                out.extend(self.compare(expected[i], actual[j], child, sample))
        extra_items_fail = self.lists == "subset" or (
            self.extra_keys == "fail" and self.lists != "superset"
        )
        if extra_items_fail:
            used = {j for j in pairs if j >= 0}
            for j, item in enumerate(actual):
                if j not in used:
                    out.append(
                        KeyOutcome(f"{path}[+{j}]", False, 0.0, f"unexpected item {_show(item)}")
                    )
        return out

    def _apply_rubric(
        self, rubric: object, expected: Any, actual: Any, path: str, sample: Sample | None
    ) -> KeyOutcome:
        evaluate = getattr(rubric, "evaluate", None)
        try:
            if evaluate is not None:
                key_sample = Sample(
                    name=f"{sample.name if sample else 'document'}:{path}",
                    parameters=sample.parameters if sample else Parameters(()),
                    expected_output=_as_text(expected),
                    context=sample.context if sample else (),
                )
                value: Any = evaluate(key_sample, _as_text(actual))
            else:
                call: Callable[[Any, Any], Any] = rubric  # type: ignore[assignment]
                value = call(expected, actual)
        except Exception as exc:
            return KeyOutcome(path, False, 0.0, f"rubric raised {type(exc).__name__}: {exc}")
        if isinstance(value, EvaluationResult):
            return KeyOutcome(
                path, value.passed, value.score, "" if value.passed else value.explanation
            )
        if isinstance(value, bool):
            return KeyOutcome(path, value, float(value), "" if value else "rubric said no")
        if isinstance(value, int | float) and 0.0 <= float(value) <= 1.0:
            score = float(value)
            ok = score >= self.threshold
            return KeyOutcome(path, ok, score, "" if ok else f"rubric score {score:.3f}")
        return KeyOutcome(
            path, False, 0.0, f"rubric returned {value!r}, not a bool, score or result"
        )

    # ------------------------------------------------------------------ strategy

    def _document(self, text: str, what: str, sample: Sample) -> Any:
        try:
            return json.loads(text, parse_float=Decimal)
        except json.JSONDecodeError as exc:
            raise StrategyError(
                f"{self.name}: sample '{sample.name}': the {what} is not valid JSON ({exc})"
            ) from None

    @recorded
    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Compare key by key and aggregate."""
        wanted = case_expected_output(sample, output)
        if wanted is None:
            raise StrategyError(
                f"{self.name}: sample '{sample.name}' has no expected-output JSON document"
            )
        expected = self._document(wanted, "expected output", sample)
        if isinstance(output, dict | list):
            actual: Any = json.loads(_dump(output), parse_float=Decimal)
        else:
            text = output_text(output, strategy=self.name, sample=sample)
            try:
                actual = json.loads(text, parse_float=Decimal)
            except json.JSONDecodeError as exc:
                return EvaluationResult.failing(f"the output is not valid JSON ({exc})")
        outcomes = self.compare(expected, actual, "", sample)
        score = _mean(outcomes)
        bad = [o for o in outcomes if not o.passed]
        passed = not bad if self.aggregator == "all" else score >= self.threshold
        items: dict[str, tuple[bool, float]] = {}
        if self.list_aggregator is not None and isinstance(expected, list):
            items = self._items(outcomes)
            passed, score = self._combine_items(items)
        metadata: dict[str, Any] = {
            "keys": {
                o.path: {"passed": o.passed, "score": o.score}
                | ({"explanation": o.explanation} if o.explanation else {})
                for o in outcomes
            }
        }
        if items:
            metadata["items"] = {k: {"passed": p, "score": v} for k, (p, v) in items.items()}
        if not bad:
            return EvaluationResult(passed, score, f"all {len(outcomes)} keys match", metadata)
        listed = "; ".join(f"{o.path}: {o.explanation}" for o in bad[:10])
        more = f"; … and {len(bad) - 10} more" if len(bad) > 10 else ""
        return EvaluationResult(
            passed,
            score,
            f"{len(bad)} of {len(outcomes)} keys differ ({self._how()} score {score:.3f}): "
            f"{listed}{more}",
            metadata,
        )

    def _how(self) -> str:
        if self.list_aggregator is None:
            return self.aggregator
        return f"{self.aggregator} per item, {self.list_aggregator} over items"

    def _items(self, outcomes: Sequence[KeyOutcome]) -> dict[str, tuple[bool, float]]:
        """Each top-level item's verdict and score under ``aggregator``, in item order."""
        groups: dict[str, list[KeyOutcome]] = {}
        for o in outcomes:
            item = o.path.split("]", 1)[0] + "]" if o.path.startswith("[") else o.path
            groups.setdefault(item, []).append(o)
        out: dict[str, tuple[bool, float]] = {}
        for item, group in groups.items():
            if self.aggregator == "all":
                ok = all(o.passed for o in group)
                out[item] = (ok, 1.0 if ok else 0.0)
            else:
                mean = _mean(group)
                out[item] = (mean >= self.threshold, mean)
        return out

    def _combine_items(self, items: Mapping[str, tuple[bool, float]]) -> tuple[bool, float]:
        if not items:
            return True, 1.0
        if self.list_aggregator == "all":
            ok = all(p for p, _ in items.values())
            return ok, 1.0 if ok else 0.0
        mean = math.fsum(v for _, v in items.values()) / len(items)
        return mean >= self.threshold, mean


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else _dump(value)


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=_decimal_default)


def _decimal_default(value: object) -> Any:
    if isinstance(value, Decimal):
        return float(value) if value != value.to_integral_value() else int(value)
    return str(value)


def _mean(outcomes: Sequence[KeyOutcome]) -> float:
    return math.fsum(o.score for o in outcomes) / len(outcomes) if outcomes else 1.0
