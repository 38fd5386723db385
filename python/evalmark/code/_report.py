"""Plain-text rendering of a :class:`~evalmark.code._tasks.CodeRun` for the command line."""

from __future__ import annotations

from collections.abc import Sequence

from evalmark.code._config import GateCheck
from evalmark.code._tasks import CodeRun

__all__ = ["render_gate", "render_run"]

_WIDTH = 110


def _first_line(text: str, limit: int) -> str:
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def render_run(run: CodeRun, *, failures: bool = True, per_task: bool = True) -> str:
    """The per-task table, the failing samples (one line each) and the overall pass@k."""
    lines: list[str] = []
    samples = run.samples
    lines.append(f"{len(run.tasks)} tasks, {len(samples)} samples, sandbox {run.sandbox}")
    heads = [f"pass@{k}" for k in run.k]
    width = max([len("task"), *(len(t.id) for t in run.tasks)])
    if per_task:
        lines.append("")
        lines.append(f"{'task':<{width}}  passed  " + "  ".join(f"{h:>7}" for h in heads))
        for task in run.tasks:
            values = "  ".join(f"{task.pass_at_k[k]:>7.3f}" for k in run.k)
            lines.append(f"{task.id:<{width}}  {f'{task.correct}/{task.n}':>6}  {values}")
    failed = [s for s in samples if not s.result.passed]
    if failures and failed:
        lines.append("")
        lines.append(f"failing samples ({len(failed)}):")
        for item in failed:
            reason = str(item.result.metadata.get("reason", "failed"))
            label = f"{item.task} #{item.sample}"
            room = max(_WIDTH - len(label) - len(reason) - 6, 30)
            lines.append(f"  {label}  {reason}: {_first_line(item.result.explanation, room)}")
    lines.append("")
    lines.append("  ".join(f"pass@{k} {run.pass_at_k[k]:.3f}" for k in run.k))
    return "\n".join(lines)


def render_gate(checks: Sequence[GateCheck]) -> str:
    """One line per threshold and the verdict; empty when there is no gate."""
    if not checks:
        return ""
    lines = [
        f"gate pass@{c.k} {c.actual:.3f} {'>=' if c.passed else '< '} {c.required:.3f}  "
        f"{'passed' if c.passed else 'FAILED'}"
        for c in checks
    ]
    lines.append("gate passed" if all(c.passed for c in checks) else "gate FAILED")
    return "\n".join(lines)
