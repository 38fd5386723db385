"""The explanation text of a threshold metric, written for one row or a whole column."""

from __future__ import annotations

__all__ = ["ThresholdExplanation"]


class ThresholdExplanation:
    """``MetricStrategy._explain``'s text, with the parts that do not vary per row made once;
    ``many`` writes a whole column's explanations in one formatting call, and ``around_score`` gives
    the text around the score to a writer that templates it."""

    __slots__ = ("_forms", "_head", "_tails")

    def __init__(self, label: str, threshold: float) -> None:
        self._head = f"{label} "
        self._tails = (f" < threshold {threshold:g}", f" >= threshold {threshold:g}")
        escaped = self._head.replace("%", "%%")
        self._forms = tuple(escaped + "%.3f" + tail.replace("%", "%%") for tail in self._tails)

    def __call__(self, index: int, score: float, passed: bool) -> str:
        """The explanation of one row."""
        return self._head + format(score, ".3f") + self._tails[passed]

    @property
    def around_score(self) -> tuple[str, tuple[str, str]]:
        """``(head, (tail if failed, tail if passed))``: a row's text is ``head``, the score
        with three decimals (``format(score, ".3f")``), then the tail of its verdict."""
        return self._head, self._tails

    def many(self, scores: list[float], passed: list[bool]) -> list[str]:
        """The explanations of rows with these scores and verdicts, in order."""
        if not scores:
            return []
        if "\0" in self._head or any("\0" in tail for tail in self._tails):
            return list(map(self, range(len(scores)), scores, passed))
        # "%.3f" % x and format(x, ".3f") write the same digits.
        text = "\0".join(map(self._forms.__getitem__, passed)) % tuple(scores)
        return text.split("\0")
