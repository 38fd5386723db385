"""pass@k: the chance that at least one of k samples, drawn without replacement from n
generated samples of which c are correct, passes (Chen et al., 2021, the HumanEval paper).

The unbiased estimator is ``1 - C(n - c, k) / C(n, k)``. It is computed as the product
``1 - prod_{i = n - c + 1}^{n} (1 - k / i)``, which equals the ratio of binomials exactly in
real arithmetic and never forms a huge binomial, so it stays finite and accurate for any n.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

__all__ = ["mean_pass_at_k", "pass_at_k"]


def _check_int(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"pass@k: {name} must be an integer, got {value!r}")
    return value


def pass_at_k(n: int, c: int, k: int) -> float:
    """The unbiased pass@k estimate for one task with ``n`` samples, ``c`` of them correct.

    Needs ``0 <= c <= n`` and ``1 <= k <= n``. When fewer than ``k`` samples are wrong every
    draw of ``k`` holds a correct one, so the value is exactly 1.0.
    """
    n, c, k = _check_int("n", n), _check_int("c", c), _check_int("k", k)
    if n < 1:
        raise ValueError(f"pass@k needs at least one sample per task, got n={n}")
    if not 0 <= c <= n:
        raise ValueError(f"pass@k: c (correct samples) must be between 0 and n={n}, got {c}")
    if not 1 <= k <= n:
        raise ValueError(
            f"pass@{k} needs k between 1 and the number of samples n={n}; generate at least "
            f"{k} samples per task or ask for a smaller k"
        )
    if n - c < k:
        return 1.0
    missing = 1.0  # C(n - c, k) / C(n, k): the chance that all k drawn samples are wrong
    for i in range(n - c + 1, n + 1):
        missing *= 1.0 - k / i
    return 1.0 - missing


def mean_pass_at_k(counts: Iterable[tuple[int, int]], k: int) -> float:
    """The mean of :func:`pass_at_k` over tasks given as ``(n, c)`` pairs, as reported for a
    benchmark. Raises ``ValueError`` when there are no tasks."""
    values: Sequence[float] = [pass_at_k(n, c, k) for n, c in counts]
    if not values:
        raise ValueError("pass@k of no tasks is undefined; give at least one task")
    return math.fsum(values) / len(values)
