"""The suite's ``judge-certificate:``: ``evalmark run`` refuses to run a suite whose judge the
certificate does not cover (a failed certification, another model, a changed or uncovered
prompt); see :mod:`evalmark.calibration._certificate`."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evalmark.errors import SuiteError

__all__ = ["judged_prompts", "require_certificate"]


def judged_prompts(suite: Any) -> list[str]:
    """The judge prompts of the suite's judged checks, each once, in order."""
    from evalmark.strategies._registry import STRATEGY_KINDS

    names: dict[str, None] = {}
    for evaluation in suite.evaluations:
        for spec in evaluation.strategies:
            prompt = STRATEGY_KINDS[spec.kind].prompt
            if prompt is None:
                continue
            if prompt == "catalog":  # llm-judge names its prompt
                prompt = str(spec.options.get("prompt", ""))
            names[prompt] = None
    return list(names)


def require_certificate(suite: Any, path: Path, mode: str | None) -> None:
    """A ``SuiteError`` naming the certificate and every reason when it does not cover the
    suite's judge and judged prompts."""
    from evalmark.calibration._certificate import certificate_problems, read_certificate
    from evalmark.models._protocols import model_id_of
    from evalmark.suite._runner import build_judge

    certificate = read_certificate(path)
    model_id = model_id_of(build_judge(suite.judge, mode))
    problems = certificate_problems(certificate, model_id, judged_prompts(suite))
    if problems:
        raise SuiteError(
            f"judge-certificate {path} does not cover this suite's judge: "
            + "; ".join(problems)
            + ". Certify it again with evalmark judge calibrate ... --min-tpr-lower "
            "--min-tnr-lower --certificate-out"
        )
