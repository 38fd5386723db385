"""``TrajectoryMatch``: compare the tool calls an agent made with the expected ones.

Modes (how the two lists must relate):

* ``strict`` — same calls in the same order;
* ``unordered`` — the same calls in any order (a perfect pairing exists);
* ``subset`` — every call made is among the expected ones (no call outside the plan);
* ``superset`` — every expected call was made (extra calls allowed).

Argument modes (when two calls of the same tool match): ``exact`` (equal arguments by JSON
value: 1 == 1.0, key order ignored), ``ignore`` (names only), ``subset`` (the actual
arguments are a subset of the expected ones), ``superset`` (the actual arguments include every
expected one). ``tool_arguments`` overrides the mode per tool name with one of those modes, a
predicate ``(expected_arguments, actual_arguments) -> bool``, or a mapping of dotted argument
paths (``"time.start"``) to ``"ignore"`` or a predicate ``(expected_value, actual_value) ->
bool``; the paths it names are judged that way and the rest by ``arguments``. A path judged by a
predicate must be in both calls (absent from both fails, as OpenEvals' ``requires_key`` cases
expect); end it with ``?`` (``"time.start?"``) to let both calls leave it out.

Both sides may be plain lists of calls or chat message lists: OpenAI-style (assistant messages
with ``tool_calls`` of ``{"function": {"name", "arguments"}}``, arguments possibly JSON text) or
LangChain-style (``type="ai"`` messages with ``tool_calls`` of ``{"name", "args"}``, as dicts
or message objects). When both are message lists, ``strict`` compares message by message: the
i-th assistant message's calls against the i-th expected one's, in any order within a message.

Pairing is a maximum bipartite matching (Hopcroft–Karp), so repeated calls of one tool are
paired optimally rather than first-come; the explanation names the calls left unmatched.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from evalmark._tracing._direct import recorded
from evalmark.errors import StrategyError
from evalmark.results._results import EvaluationResult
from evalmark.samples._samples import Sample
from evalmark.strategies._matching import max_matching
from evalmark.strategies._tool_calls import (
    Call,
    drop_path,
    get_path,
    json_equal,
    read_calls,
    read_steps,
)

__all__ = ["ArgumentMode", "Call", "TrajectoryMatch", "TrajectoryMode", "json_equal"]

TrajectoryMode = Literal["strict", "unordered", "subset", "superset"]
ArgumentMode = Literal["exact", "ignore", "subset", "superset"]
_MODES = ("strict", "unordered", "subset", "superset")
_ARG_MODES = ("exact", "ignore", "subset", "superset")


class TrajectoryMatch:
    """Compares tool calls with the expected ones; see the module docstring.

    The actual calls are the output's ``tool_calls`` (a TestCase or a chat reply) or the
    output itself when it is a list. The expected calls are ``expected`` if given, else the
    TestCase's ``expected_tool_calls``, else the sample's ``expected-tool-calls`` metadata,
    else its ``expected_output`` read as a JSON list.

    Score: pairs found / calls that had to be paired (both lists for strict and unordered, the
    actual calls for subset, the expected calls for superset); passes at 1.0.
    """

    def __init__(
        self,
        mode: TrajectoryMode = "strict",
        *,
        arguments: ArgumentMode = "exact",
        tool_arguments: Mapping[str, ArgumentMode | Callable[..., bool] | Mapping[str, Any]]
        | None = None,
        expected: Sequence[Any] | None = None,
        name: str | None = None,
    ) -> None:
        if mode not in _MODES:
            raise ValueError(
                f"TrajectoryMatch mode must be one of {', '.join(_MODES)}, got {mode!r}"
            )
        for tool, arg_mode in {"*": arguments, **dict(tool_arguments or {})}.items():
            if isinstance(arg_mode, Mapping):
                for path, rule in arg_mode.items():
                    if not isinstance(path, str) or not (rule == "ignore" or callable(rule)):
                        raise ValueError(
                            f"argument override {path!r} of {tool!r} must be 'ignore' or a "
                            f"predicate (expected_value, actual_value) -> bool, got {rule!r}"
                        )
                continue
            if callable(arg_mode):
                continue
            if arg_mode not in _ARG_MODES:
                raise ValueError(
                    f"argument mode for {tool!r} must be one of {', '.join(_ARG_MODES)}, "
                    f"got {arg_mode!r}"
                )
        self.mode: TrajectoryMode = mode
        self.arguments: ArgumentMode = arguments
        self.tool_arguments = dict(tool_arguments or {})
        self.expected = read_calls(list(expected), "expected") if expected is not None else None
        self._expected_steps = (
            read_steps(list(expected), "expected") if expected is not None else None
        )
        self.name = name or f"TrajectoryMatch({mode})"

    def _arguments_match(self, expected: Call, actual: Call) -> bool:
        rule = self.tool_arguments.get(expected.name, self.arguments)
        e, a = expected.arguments, actual.arguments
        if isinstance(rule, Mapping):
            for written, check in rule.items():
                optional = written.endswith("?")
                path = written[:-1] if optional else written
                if check != "ignore":
                    found_e, value_e = get_path(e, path)
                    found_a, value_a = get_path(a, path)
                    if found_e != found_a or not (found_e or optional):
                        return False  # a path checked by a predicate must be there
                    if found_e and not check(value_e, value_a):
                        return False
                e, a = drop_path(e, path), drop_path(a, path)
            return self._by_mode(self.arguments, e, a)
        if callable(rule):
            return bool(rule(e, a))
        return self._by_mode(rule, e, a)

    @staticmethod
    def _by_mode(mode: str, e: Mapping[str, Any], a: Mapping[str, Any]) -> bool:
        if mode == "ignore":
            return True
        if mode == "exact":
            return json_equal(e, a)
        if mode == "subset":
            return all(k in e and json_equal(e[k], v) for k, v in a.items())
        return all(k in a and json_equal(a[k], v) for k, v in e.items())

    def matches(self, expected: Call, actual: Call) -> bool:
        """Whether ``actual`` counts as the ``expected`` call."""
        return expected.name == actual.name and self._arguments_match(expected, actual)

    def _expectedread_calls(self, sample: Sample, output: Any) -> list[Call]:
        if self.expected is not None:
            return self.expected
        from_case = getattr(output, "expected_tool_calls", None)
        if from_case is not None:
            return read_calls(list(from_case), f"{self.name}: sample '{sample.name}': expected")
        for key in ("expected-tool-calls", "expected_tool_calls"):
            if key in sample.metadata:
                return read_calls(
                    sample.metadata[key], f"{self.name}: sample '{sample.name}': {key}"
                )
        if sample.expected_output is not None:
            return read_calls(
                sample.expected_output, f"{self.name}: sample '{sample.name}': expected-output"
            )
        raise StrategyError(
            f"{self.name}: sample '{sample.name}' has no expected tool calls; give them as "
            "TrajectoryMatch(expected=[...]), the TestCase's expected-tool-calls, the sample's "
            "metadata 'expected-tool-calls', or a JSON list in expected-output"
        )

    def _actualread_calls(self, sample: Sample, output: Any) -> list[Call]:
        where = f"{self.name}: sample '{sample.name}': output"
        calls = getattr(output, "tool_calls", None)
        if calls is not None and not isinstance(output, Sequence):
            return read_calls(list(calls), where)
        if isinstance(output, Sequence) and not isinstance(output, str | bytes):
            return read_calls(output, where)
        if calls is None and hasattr(output, "text"):
            return []  # a chat reply without tool calls made none
        raise StrategyError(
            f"{where}: expected a TestCase, a chat reply or a list of tool calls, got "
            f"{type(output).__name__}"
        )

    @recorded
    def evaluate(self, sample: Sample, output: Any) -> EvaluationResult:
        """Pair the calls and judge the trajectory."""
        expected = self._expectedread_calls(sample, output)
        actual = self._actualread_calls(sample, output)
        if self.mode == "strict":
            steps = self._message_steps(sample, output)
            if steps is not None:
                return self._strictread_steps(*steps)
            return self._strict(expected, actual)
        edges = [[j for j, a in enumerate(actual) if self.matches(e, a)] for e in expected]
        pairs = max_matching(len(expected), len(actual), edges)
        matched = sum(1 for p in pairs if p >= 0)
        used = {p for p in pairs if p >= 0}
        lost_expected = [expected[i] for i, p in enumerate(pairs) if p < 0]
        lost_actual = [actual[j] for j in range(len(actual)) if j not in used]
        if self.mode == "unordered":
            needed = max(len(expected), len(actual))
            problems = bool(lost_expected or lost_actual)
        elif self.mode == "subset":
            needed = len(actual)
            problems = bool(lost_actual)
            lost_expected = []
        else:
            needed = len(expected)
            problems = bool(lost_expected)
            lost_actual = []
        score = matched / needed if needed else 1.0
        metadata = {
            "mode": self.mode,
            "expected": len(expected),
            "actual": len(actual),
            "matched": matched,
        }
        if not problems:
            return EvaluationResult.passing(
                score,
                f"every call paired ({self.mode}): {matched} matched, {len(expected)} expected, "
                f"{len(actual)} made",
                metadata,
            )
        return EvaluationResult.failing(
            score, _unmatched(lost_expected, lost_actual, self.mode), metadata
        )

    def _message_steps(
        self, sample: Sample, output: Any
    ) -> tuple[list[list[Call]], list[list[Call]]] | None:
        """Both sides' per-message calls when both are message lists, else None."""
        if not isinstance(output, Sequence) or isinstance(output, str | bytes):
            return None
        actual = read_steps(output, f"{self.name}: sample '{sample.name}': output")
        expected = self._expected_steps
        if expected is None and self.expected is None:
            raw = sample.metadata.get("expected-tool-calls", sample.expected_output)
            if raw is not None:
                expected = read_steps(raw, f"{self.name}: sample '{sample.name}': expected")
        if actual is None or expected is None:
            return None
        return expected, actual

    def _same_step(self, expected: list[Call], actual: list[Call]) -> bool:
        if len(expected) != len(actual):
            return False
        edges = [[j for j, a in enumerate(actual) if self.matches(e, a)] for e in expected]
        return all(p >= 0 for p in max_matching(len(expected), len(actual), edges))

    def _strictread_steps(
        self, expected: list[list[Call]], actual: list[list[Call]]
    ) -> EvaluationResult:
        metadata = {"mode": "strict", "expected_messages": len(expected), "messages": len(actual)}
        longest = max(len(expected), len(actual))
        if longest == 0:
            return EvaluationResult.passing(1.0, "no calls expected and none made", metadata)
        same = [self._same_step(e, a) for e, a in zip(expected, actual, strict=False)] + [False] * (
            longest - min(len(expected), len(actual))
        )
        good = sum(same)
        if good == longest:
            return EvaluationResult.passing(
                1.0, f"all {good} assistant messages make the expected calls", metadata
            )
        first = same.index(False)
        wanted = expected[first] if first < len(expected) else "no message"
        got = actual[first] if first < len(actual) else "no message"
        return EvaluationResult.failing(
            good / longest,
            f"assistant message {first + 1} differs: expected {wanted}, got {got} "
            f"({good} of {longest} messages match)",
            metadata,
        )

    def _strict(self, expected: list[Call], actual: list[Call]) -> EvaluationResult:
        metadata = {"mode": "strict", "expected": len(expected), "actual": len(actual)}
        longest = max(len(expected), len(actual))
        if longest == 0:
            return EvaluationResult.passing(1.0, "no calls expected and none made", metadata)
        good = sum(1 for e, a in zip(expected, actual, strict=False) if self.matches(e, a))
        score = good / longest
        if good == longest:
            return EvaluationResult.passing(score, f"all {good} calls match in order", metadata)
        first = next(
            (
                i
                for i in range(longest)
                if i >= len(expected)
                or i >= len(actual)
                or not self.matches(expected[i], actual[i])
            ),
            0,
        )
        wanted = repr(expected[first]) if first < len(expected) else "no call"
        got = repr(actual[first]) if first < len(actual) else "no call"
        return EvaluationResult.failing(
            score,
            f"call {first + 1} differs: expected {wanted}, got {got} "
            f"({good} of {longest} positions match; {len(expected)} expected, {len(actual)} made)",
            metadata,
        )

    def __repr__(self) -> str:
        return (
            f"TrajectoryMatch(mode={self.mode!r}, arguments={self.arguments!r}, name={self.name!r})"
        )


def _unmatched(expected: list[Call], actual: list[Call], mode: str) -> str:
    parts = []
    if expected:
        parts.append(f"expected calls not made: {', '.join(map(repr, expected[:10]))}")
    if actual:
        parts.append(f"calls made but not expected: {', '.join(map(repr, actual[:10]))}")
    return f"trajectory does not match ({mode}): " + "; ".join(parts)
