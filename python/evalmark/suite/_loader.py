"""Reading a suite file: safe YAML with the line and column of every key (the shared reader of
:mod:`evalmark._files.yaml_read`), then checks that report every problem with the file, line,
key and the key or value meant."""

from __future__ import annotations

import difflib
from pathlib import Path
from typing import Any

from evalmark._files.located import PathKey
from evalmark._files.problems import describe_value
from evalmark._files.read import too_deep
from evalmark._files.source import read_bytes
from evalmark._files.yaml_read import read_yaml_document
from evalmark.engine._defaults import DEFAULT_CONCURRENCY
from evalmark.errors import Problem, SuiteError
from evalmark.samples._plugins import loader_for
from evalmark.suite import _sections as sections
from evalmark.suite._conversations import CONVERSATION_KEYS, conversations
from evalmark.suite._document import SuiteDocument, whole
from evalmark.suite._model import (
    SUITE_FILE,
    ApplicationSpec,
    EvaluationSpec,
    Suite,
    check_positive_int,
)
from evalmark.suite._traces import TRACES_KEY
from evalmark.suite._traces import traces as traces_section

__all__ = ["load_suite", "project_root", "resolve_suite_path"]

_TOP_KEYS = (
    "name",
    "description",
    "samples",
    "tags",
    "application",
    "strategies",
    "evaluations",
    "judge",
    "gate",
    "report",
    "concurrency",
    "repeats",
    "judge-rates",
    "judge-certificate",
    "source",
    TRACES_KEY,
    *CONVERSATION_KEYS,
)
_RATES_EXAMPLE = (
    "expected the path of a rates file written by evalmark judge calibrate --rates-out, "
    "e.g. judge-rates: .evalmark/judge-rates.json"
)
_CERTIFICATE_EXAMPLE = (
    "expected the path of a certificate written by evalmark judge calibrate "
    "--certificate-out, e.g. judge-certificate: .evalmark/judge-certificate.json"
)
_EVALUATION_KEYS = (
    "name",
    "samples",
    "tags",
    "application",
    "strategies",
    TRACES_KEY,
    *CONVERSATION_KEYS,
)


def resolve_suite_path(source: str | Path) -> Path:
    """The suite file for ``source``: the file itself, or ``suite.yaml`` inside a folder."""
    path = Path(source)
    if path.is_dir():
        inside = path / SUITE_FILE
        if not inside.exists():
            found = sorted(p.name for p in path.iterdir() if p.suffix in (".yaml", ".yml"))
            listed = ", ".join(found) if found else "no YAML files"
            raise SuiteError(
                [
                    Problem(
                        f"the folder holds no {SUITE_FILE} ({listed}); name the suite file "
                        "itself or add a suite.yaml",
                        path=str(path),
                    )
                ]
            )
        return inside
    if not path.exists() and path.suffix == "" and path.with_suffix(".yaml").exists():
        return path.with_suffix(".yaml")
    return path


def load_suite(source: str | Path) -> Suite:
    """Read and check a suite file (or a folder holding ``suite.yaml``).

    Raises ``SuiteError`` listing every problem found, each with the file, line, key and a fix.
    """
    path = resolve_suite_path(source)
    shown = str(path)
    data = read_bytes(path, SuiteError)
    try:
        return _check(path, data)
    except RecursionError:
        raise SuiteError([too_deep(data, shown, "yaml")]) from None


def _check(path: Path, data: bytes) -> Suite:
    shown = str(path)
    record = read_yaml_document(data, shown, SuiteError)
    if record is None:
        raise SuiteError(
            [Problem("the suite file is empty: give at least samples and strategies", path=shown)]
        )
    doc = SuiteDocument(shown, record)
    value = doc.value
    if not isinstance(value, dict):
        raise SuiteError(
            [
                Problem(
                    "a suite file is a mapping of keys (name, samples, application, "
                    f"strategies, ...), found {describe_value(value)}",
                    path=doc.path,
                    line=1,
                )
            ]
        )
    doc.check_keys((), value, _TOP_KEYS, "suite")
    base = path.parent
    name = doc.string(("name",), value.get("name"), default=_default_name(path))
    description = doc.string(("description",), value.get("description"), default="")
    judge = sections.judge(doc, ("judge",), value.get("judge"), base)
    gate = sections.gate(doc, ("gate",), value.get("gate"), base)
    report = sections.report(doc, ("report",), value.get("report"), base)
    concurrency = doc.option(
        value,
        (),
        "concurrency",
        DEFAULT_CONCURRENCY,
        check_positive_int,
        "expected a whole number of at least 1, e.g. concurrency: 4",
    )
    repeats, repeat_k = _repeats(doc, value.get("repeats"))
    rates, certificate = value.get("judge-rates"), value.get("judge-certificate")
    if rates is not None and (not isinstance(rates, str) or not rates):
        doc.report(("judge-rates",), _RATES_EXAMPLE)
    if certificate is not None and (not isinstance(certificate, str) or not certificate):
        doc.report(("judge-certificate",), _CERTIFICATE_EXAMPLE)
    source = value.get("source")
    if source is not None and not isinstance(source, dict):
        doc.report(("source",), "expected a mapping, e.g. source: {format: promptfoo}")
    evaluations = _evaluations(doc, value, base, name)
    doc.raise_problems()
    return Suite(
        path=path,
        name=name,
        description=description,
        evaluations=evaluations,
        judge=judge,
        gate=gate,
        report=report,
        concurrency=concurrency,
        repeats=repeats,
        repeat_k=repeat_k,
        judge_rates=base / rates if isinstance(rates, str) and rates else None,
        judge_certificate=base / certificate
        if isinstance(certificate, str) and certificate
        else None,
        source=dict(source) if isinstance(source, dict) else {},
    )


def _repeats(doc: SuiteDocument, value: Any) -> tuple[int, int | None]:
    """``repeats: n`` or ``repeats: {runs: n, k: k}``: the application's runs per sample."""
    example = "expected a whole number of runs, e.g. repeats: 5, or repeats: {runs: 5, k: 3}"
    if value is None:
        return 1, None
    runs, k = (value.get("runs"), value.get("k")) if isinstance(value, dict) else (value, None)
    runs, k = whole(runs), whole(k)
    if isinstance(value, dict):
        doc.check_keys(("repeats",), value, ("runs", "k"), "repeats")
    if check_positive_int(runs) is not None:
        doc.report(("repeats",), example)
        return 1, None
    if k is not None and (check_positive_int(k) is not None or k > runs):
        doc.report(("repeats", "k"), f"expected a whole number from 1 to runs ({runs})")
        k = None
    assert isinstance(runs, int)
    return runs, k


def _default_name(path: Path) -> str:
    return path.parent.name if path.name == SUITE_FILE else path.stem


def _evaluations(
    doc: SuiteDocument, value: dict[str, Any], base: Path, suite_name: str
) -> tuple[EvaluationSpec, ...]:
    parts = value.get("evaluations")
    if parts is None:
        if (
            "samples" not in value
            and "samples" not in doc.suggested
            and "conversations" not in value
            and TRACES_KEY not in value
        ):
            doc.report(
                (), "missing 'samples': name the samples file(s), e.g. samples: samples.yaml"
            )
        if "strategies" not in value and "strategies" not in doc.suggested:
            doc.report(
                (), "missing 'strategies': list the checks, e.g. strategies: [contains-facts]"
            )
        return (_evaluation(doc, (), value, base, suite_name),)
    for single in ("samples", "application", "strategies", TRACES_KEY, *CONVERSATION_KEYS):
        if single in value:
            doc.report(
                (single,),
                f"'{single}' belongs inside each item of 'evaluations' when the suite has "
                "several evaluations; move it there",
            )
    if not isinstance(parts, list) or not parts:
        doc.report(
            ("evaluations",),
            "expected a non-empty list of evaluations, e.g. '- name: chatbot' with its own "
            "samples, application and strategies",
        )
        return ()
    out: list[EvaluationSpec] = []
    seen: dict[str, int] = {}
    for index, part in enumerate(parts):
        key: PathKey = ("evaluations", index)
        if not isinstance(part, dict):
            doc.report(key, f"each evaluation is a mapping, found {describe_value(part)}")
            continue
        doc.check_keys(key, part, _EVALUATION_KEYS, "evaluation")
        for needed in ("name", "samples", "strategies"):
            if needed not in part and not (
                needed == "samples" and ("conversations" in part or TRACES_KEY in part)
            ):
                doc.report(key, f"missing '{needed}' in this evaluation")
        evaluation = _evaluation(doc, key, part, base, f"{suite_name}-{index + 1}")
        if evaluation.name in seen:
            doc.report(
                (*key, "name"),
                f"duplicate evaluation name '{evaluation.name}' (also item {seen[evaluation.name]}"
                "); give each evaluation its own name",
            )
        seen[evaluation.name] = index + 1
        out.append(evaluation)
    return tuple(out)


def _evaluation(
    doc: SuiteDocument, key: PathKey, value: dict[str, Any], base: Path, default_name: str
) -> EvaluationSpec:
    name = doc.string((*key, "name"), value.get("name"), default=default_name)
    sample_files = doc.string_list(
        (*key, "samples"), value.get("samples"), "samples: [golden/a.yaml, golden/b.yaml]"
    )
    samples = tuple(_existing(doc, (*key, "samples"), base, f) for f in sample_files)
    tags = doc.string_list((*key, "tags"), value.get("tags"), "tags: [smoke, billing]")
    recorded = traces_section(doc, (*key, TRACES_KEY), value.get(TRACES_KEY), base)
    if recorded is not None and "application" not in value:
        application = ApplicationSpec({}, None, "traces", None, base)
    else:
        application = sections.application(
            doc, (*key, "application"), value.get("application"), base
        )
    strategies = sections.strategies(doc, (*key, "strategies"), value.get("strategies"))
    chats = None
    for alone in CONVERSATION_KEYS[1:]:
        if alone in value and "conversations" not in value:
            doc.report((*key, alone), f"'{alone}' goes with 'conversations'; add them or drop it")
    if "conversations" in value:
        turn_checks = sections.strategies(
            doc, (*key, "turn-strategies"), value.get("turn-strategies")
        )
        chats = conversations(doc, key, value, base, turn_checks)
    return EvaluationSpec(name, samples, tags, application, strategies, chats, recorded)


def project_root(start: Path) -> Path | None:
    """The nearest folder at or above ``start`` holding ``pyproject.toml`` or ``.git``."""
    for folder in (start.resolve(), *start.resolve().parents):
        if (folder / "pyproject.toml").exists() or (folder / ".git").exists():
            return folder
    return None


def _existing(doc: SuiteDocument, key: PathKey, base: Path, name: str) -> Path | str:
    """A source a sample loader claims (kept as written, e.g. ``mem://golden``), else a samples
    file relative to the suite file's folder, else to the project root."""
    if loader_for(name) is not None:
        return name
    path = base / name
    if path.exists():
        return path
    root = project_root(base)
    if root is not None and (root / name).exists():
        return root / name
    hint = ""
    if path.parent.is_dir():
        siblings = sorted(
            p.name for p in path.parent.iterdir() if p.name not in (SUITE_FILE, doc.name)
        )
        close = difflib.get_close_matches(path.name, siblings, n=1, cutoff=0.6)
        if close:
            hint = f"; did you mean '{close[0]}'?"
    tried = f"resolved to {path}"
    if root is not None and root / name != path:
        tried += f" from the suite file, and to {root / name} from the project root"
    doc.report(key, f"no such file '{name}' ({tried}){hint}")
    return path
