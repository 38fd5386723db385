"""Print the share of test functions that use Hypothesis, overall and per test package.

A test is a ``def test_*`` function (module level or in a class); it uses Hypothesis when one of
its decorators is ``given`` (``@given(...)``, ``@hypothesis.given(...)``). Each subclass of
``RuleBasedStateMachine`` counts as one more test that uses Hypothesis (it runs as one
``TestCase``). The package of a test file is its first folder under ``tests/`` (files directly in
``tests/`` are ``(top)``).

Usage: ``python tools/hypothesis_share.py [TESTS_DIR]``.
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from pathlib import Path


def _decorator_name(node: ast.expr) -> str:
    """The last dotted name of a decorator, called or not (``given`` for ``@hp.given(...)``)."""
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _is_machine(node: ast.ClassDef) -> bool:
    """Whether a class derives from ``RuleBasedStateMachine`` by name."""
    return any(_decorator_name(base) == "RuleBasedStateMachine" for base in node.bases)


def count_file(path: Path) -> tuple[int, int]:
    """``(tests, tests using Hypothesis)`` of one Python file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    total = hypothesis = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and _is_machine(node):
            total += 1
            hypothesis += 1
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith(
            "test_"
        ):
            total += 1
            if any(_decorator_name(d) == "given" for d in node.decorator_list):
                hypothesis += 1
    return total, hypothesis


def share(tests_dir: Path) -> dict[str, tuple[int, int]]:
    """Per test package ``(tests, tests using Hypothesis)`` of the ``test_*.py`` files."""
    totals: Counter[str] = Counter()
    hyp: Counter[str] = Counter()
    for path in sorted(tests_dir.rglob("test_*.py")):
        parts = path.relative_to(tests_dir).parts
        package = parts[0] if len(parts) > 1 else "(top)"
        total, hypothesis = count_file(path)
        totals[package] += total
        hyp[package] += hypothesis
    return {name: (totals[name], hyp[name]) for name in sorted(totals)}


def main(argv: list[str]) -> int:
    """Print the table; the last line is the overall share."""
    tests_dir = Path(argv[0]) if argv else Path(__file__).resolve().parent.parent / "tests"
    rows = share(tests_dir)
    all_total = sum(t for t, _ in rows.values())
    all_hyp = sum(h for _, h in rows.values())
    print(f"{'package':<16}{'tests':>7}{'hypothesis':>12}{'share':>8}")
    for name, (total, hypothesis) in rows.items():
        pct = 100 * hypothesis / total if total else 0.0
        print(f"{name:<16}{total:>7}{hypothesis:>12}{pct:>7.1f}%")
    pct = 100 * all_hyp / all_total if all_total else 0.0
    print(f"{'overall':<16}{all_total:>7}{all_hyp:>12}{pct:>7.1f}%")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
