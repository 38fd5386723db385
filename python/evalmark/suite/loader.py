"""Reading a suite file: safe YAML with the line and column of every key, then checks that
report every problem with the file, line, key and the key or value meant."""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import yaml

from evalmark._files.formats import decode_text, read_bytes
from evalmark.errors import Problem, SuiteError
from evalmark.suite.model import (
    COMMON_OPTIONS,
    JUDGED_OPTIONS,
    REPORT_FORMATS,
    STRATEGY_KINDS,
    SUITE_FILE,
    ApplicationSpec,
    EvaluationSpec,
    GateSpec,
    JudgeSpec,
    ReportSpec,
    StrategySpec,
    Suite,
    check_fraction,
    check_integer,
    check_positive_int,
)

__all__ = ["load_suite", "resolve_suite_path"]

# --------------------------------------------------------------------------- keys

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
)
_EVALUATION_KEYS = ("name", "samples", "tags", "application", "strategies")
_APPLICATION_KEYS = ("model-id", "builds", "function", "system-prompt")
_JUDGE_KEYS = ("kind", "min-overlap", "cassette", "model", "model-id", "flip-rate", "seed", "judge")
_GATE_KEYS = ("pass-rate", "tags", "max-drop", "baseline")
_REPORT_KEYS = ("dir", "formats")

# Words people reach for, and the key they mean.
_ALIASES: Mapping[str, str] = {
    "checks": "strategies",
    "metrics": "strategies",
    "evaluators": "strategies",
    "scorers": "strategies",
    "dataset": "samples",
    "datasets": "samples",
    "golden": "samples",
    "app": "application",
    "function-under-test": "application",
    "target": "application",
    "threshold": "pass-rate",
    "min-pass-rate": "pass-rate",
    "pass_rate": "pass-rate",
    "reports": "report",
    "output": "dir",
    "directory": "dir",
    "format": "formats",
    "workers": "concurrency",
    "parallel": "concurrency",
    "recordings": "builds",
    "cassettes": "builds",
    "callable": "function",
    "model": "model-id",
    "system": "system-prompt",
    "prompt": "system-prompt",
    "type": "kind",
    "flip": "flip-rate",
    "noise": "flip-rate",
    "min_overlap": "min-overlap",
    "suites": "evaluations",
    "parts": "evaluations",
}

# --------------------------------------------------------------------------- reading YAML

_Key = tuple[str | int, ...]


class _Located:
    """The parsed suite with the line and column of every key and list item."""

    def __init__(self, path: str, value: Any, marks: dict[_Key, tuple[int, int]]) -> None:
        self.path = path
        self.value = value
        self.marks = marks
        self.problems: list[Problem] = []
        self.suggested: set[str] = set()  # keys already offered for a misspelling
        self.name = Path(path).name

    def where(self, key: _Key) -> tuple[int | None, int | None]:
        while key not in self.marks and key:
            key = key[:-1]
        line, column = self.marks.get(key, (None, None))
        return line, column

    def report(self, key: _Key, message: str) -> None:
        line, column = self.where(key)
        label = _label(key)
        text = f"{label}: {message}" if label else message
        self.problems.append(Problem(text, path=self.path, line=line, column=column))

    def at(self, key: _Key) -> str:
        line, _ = self.where(key)
        return f"{self.path}:{line}" if line is not None else self.path


def _label(key: _Key) -> str:
    out = ""
    for part in key:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def _read_yaml(path: Path) -> _Located:
    shown = str(path)
    text = decode_text(read_bytes(path, SuiteError), shown, SuiteError)
    try:
        node = yaml.compose(text, Loader=yaml.SafeLoader)
        value = yaml.load(text, Loader=yaml.SafeLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        hint = ""
        if "\t" in text and "tab" in str(exc):
            hint = "; YAML indentation must use spaces, not tabs"
        raise SuiteError(
            [
                Problem(
                    f"malformed YAML: {exc.problem or exc.context}{hint}",
                    path=shown,
                    line=mark.line + 1 if mark else None,
                    column=mark.column + 1 if mark else None,
                )
            ]
        ) from None
    except yaml.YAMLError as exc:
        raise SuiteError([Problem(f"malformed YAML: {exc}", path=shown)]) from None
    marks: dict[_Key, tuple[int, int]] = {}
    if node is not None:
        _collect_marks(node, (), marks)
    return _Located(shown, value, marks)


def _collect_marks(node: yaml.Node, key: _Key, marks: dict[_Key, tuple[int, int]]) -> None:
    marks.setdefault(key, (node.start_mark.line + 1, node.start_mark.column + 1))
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            if isinstance(key_node, yaml.ScalarNode):
                child = (*key, key_node.value)
                marks.setdefault(
                    child, (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
                )
                _collect_marks(value_node, child, marks)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _collect_marks(item, (*key, index), marks)


# --------------------------------------------------------------------------- loading


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
    doc = _read_yaml(path)
    value = doc.value
    if value is None:
        raise SuiteError(
            [
                Problem(
                    "the suite file is empty: give at least samples and strategies", path=doc.path
                )
            ]
        )
    if not isinstance(value, dict):
        raise SuiteError(
            [
                Problem(
                    "a suite file is a mapping of keys (name, samples, application, "
                    f"strategies, ...), found {_kind_of(value)}",
                    path=doc.path,
                    line=1,
                )
            ]
        )
    _check_keys(doc, (), value, _TOP_KEYS, "suite")
    base = path.parent
    name = _string(doc, ("name",), value.get("name"), default=_default_name(path))
    description = _string(doc, ("description",), value.get("description"), default="")
    judge = _judge(doc, ("judge",), value.get("judge"), base)
    gate = _gate(doc, ("gate",), value.get("gate"), base)
    report = _report(doc, ("report",), value.get("report"), base)
    concurrency = value.get("concurrency", 4)
    if check_positive_int(concurrency) is not None:
        doc.report(("concurrency",), "expected a whole number of at least 1, e.g. concurrency: 4")
        concurrency = 4
    evaluations = _evaluations(doc, value, base, name)
    if doc.problems:
        raise SuiteError(doc.problems[:20], more=max(0, len(doc.problems) - 20))
    return Suite(
        path=path,
        name=name,
        description=description,
        evaluations=evaluations,
        judge=judge,
        gate=gate,
        report=report,
        concurrency=concurrency,
    )


def _default_name(path: Path) -> str:
    return path.parent.name if path.name == SUITE_FILE else path.stem


def _kind_of(value: Any) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "nothing"
    return "a number" if isinstance(value, int | float) else f"a {type(value).__name__}"


def _suggest(key: str, accepted: Sequence[str]) -> str | None:
    folded = key.strip().lower().replace("_", "-").replace(" ", "-")
    if folded in accepted:
        return folded
    alias = _ALIASES.get(folded) or _ALIASES.get(key)
    if alias in accepted:
        return alias
    # A misspelt alias ("cheks") means what the alias means.
    spellings = {name: name for name in accepted}
    spellings.update({a: t for a, t in _ALIASES.items() if t in accepted and a not in spellings})
    close = difflib.get_close_matches(folded, list(spellings), n=1, cutoff=0.6)
    return spellings[close[0]] if close else None


def _check_keys(
    doc: _Located, key: _Key, value: Mapping[Any, Any], accepted: Sequence[str], what: str
) -> None:
    for raw in value:
        if raw in accepted:
            continue
        if not isinstance(raw, str):
            doc.report(key, f"keys must be strings, found {raw!r}")
            continue
        suggestion = _suggest(raw, accepted)
        if suggestion:
            doc.suggested.add(suggestion)
        hint = (
            f"did you mean '{suggestion}'?"
            if suggestion
            else "the accepted keys are " + ", ".join(f"'{k}'" for k in accepted)
        )
        doc.report((*key, raw), f"unknown key '{raw}' in the {what}; {hint}")


def _string(doc: _Located, key: _Key, value: Any, *, default: str) -> str:
    if value is None:
        return default
    if not isinstance(value, str) or not value.strip():
        doc.report(key, f"expected a non-empty string, found {_kind_of(value)}; put it in quotes")
        return default
    return value


def _mapping(doc: _Located, key: _Key, value: Any, example: str) -> dict[str, Any] | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        doc.report(key, f"expected a mapping, found {_kind_of(value)}; for example {example}")
        return None
    return value


def _string_list(doc: _Located, key: _Key, value: Any, example: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        doc.report(key, f"expected a string or a list of strings; for example {example}")
        return ()
    return tuple(value)


def _evaluations(
    doc: _Located, value: dict[str, Any], base: Path, suite_name: str
) -> tuple[EvaluationSpec, ...]:
    parts = value.get("evaluations")
    if parts is None:
        if "samples" not in value and "samples" not in doc.suggested:
            doc.report(
                (), "missing 'samples': name the samples file(s), e.g. samples: samples.yaml"
            )
        if "strategies" not in value and "strategies" not in doc.suggested:
            doc.report(
                (), "missing 'strategies': list the checks, e.g. strategies: [contains-facts]"
            )
        return (_evaluation(doc, (), value, base, suite_name),)
    for single in ("samples", "application", "strategies"):
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
        key: _Key = ("evaluations", index)
        if not isinstance(part, dict):
            doc.report(key, f"each evaluation is a mapping, found {_kind_of(part)}")
            continue
        _check_keys(doc, key, part, _EVALUATION_KEYS, "evaluation")
        for needed in ("name", "samples", "strategies"):
            if needed not in part:
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
    doc: _Located, key: _Key, value: dict[str, Any], base: Path, default_name: str
) -> EvaluationSpec:
    name = _string(doc, (*key, "name"), value.get("name"), default=default_name)
    sample_files = _string_list(
        doc, (*key, "samples"), value.get("samples"), "samples: [golden/a.yaml, golden/b.yaml]"
    )
    samples = tuple(_existing(doc, (*key, "samples"), base, f) for f in sample_files)
    tags = _string_list(doc, (*key, "tags"), value.get("tags"), "tags: [smoke, billing]")
    application = _application(doc, (*key, "application"), value.get("application"), base)
    strategies = _strategies(doc, (*key, "strategies"), value.get("strategies"))
    return EvaluationSpec(name, samples, tags, application, strategies)


def _existing(doc: _Located, key: _Key, base: Path, name: str) -> Path:
    path = base / name
    if not path.exists():
        hint = ""
        if path.parent.is_dir():
            siblings = sorted(
                p.name for p in path.parent.iterdir() if p.name not in (SUITE_FILE, doc.name)
            )
            close = difflib.get_close_matches(path.name, siblings, n=1, cutoff=0.6)
            if close:
                hint = f"; did you mean '{close[0]}'?"
        doc.report(key, f"no such file '{name}' (resolved to {path}){hint}")
    return path


def _application(doc: _Located, key: _Key, value: Any, base: Path) -> ApplicationSpec:
    mapping = _mapping(doc, key, value, "application: {builds: {healthy: builds/healthy.jsonl}}")
    if mapping is None:
        if value is None:
            doc.report(
                key[:-1],
                "missing 'application': give recorded builds (builds: {name: cassette.jsonl}) "
                "or a live function (function: package.module:answer)",
            )
        return ApplicationSpec({}, None, "application", None, base)
    _check_keys(doc, key, mapping, _APPLICATION_KEYS, "application")
    builds: dict[str, Path] = {}
    raw_builds = mapping.get("builds")
    if raw_builds is not None:
        if not isinstance(raw_builds, dict) or not raw_builds:
            doc.report(
                (*key, "builds"),
                "expected a mapping from build name to cassette file, e.g. "
                "builds: {healthy: builds/healthy.jsonl}",
            )
        else:
            for build, cassette in raw_builds.items():
                if not isinstance(build, str) or not isinstance(cassette, str):
                    doc.report((*key, "builds"), "each build is 'name: path/to/cassette.jsonl'")
                    continue
                builds[build] = base / cassette
    function = mapping.get("function")
    if function is not None and (not isinstance(function, str) or ":" not in function):
        doc.report(
            (*key, "function"),
            "expected 'package.module:function' or 'file.py:function', e.g. "
            "function: myapp.support:answer",
        )
        function = None
    if not builds and function is None and mapping.get("builds") is None:
        doc.report(key, "give recorded 'builds', a live 'function', or both")
    model_id = _string(doc, (*key, "model-id"), mapping.get("model-id"), default="application")
    system_prompt = mapping.get("system-prompt")
    if system_prompt is not None and not isinstance(system_prompt, str):
        doc.report((*key, "system-prompt"), "expected text; use a block scalar (system-prompt: |)")
        system_prompt = None
    return ApplicationSpec(builds, function, model_id, system_prompt, base)


def _strategies(doc: _Located, key: _Key, value: Any) -> tuple[StrategySpec, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not value:
        doc.report(key, "expected a list of checks, e.g. strategies: [contains-facts, relevancy]")
        return ()
    out: list[StrategySpec] = []
    labels: dict[str, int] = {}
    for index, item in enumerate(value):
        item_key: _Key = (*key, index)
        options: dict[str, Any]
        if isinstance(item, str):
            kind, options = item, {}
        elif isinstance(item, dict) and len(item) == 1:
            kind, options = next(iter(item.items()))
            item_key = (*item_key, kind)
            if options is None:
                options = {}
            if not isinstance(options, dict):
                doc.report(
                    item_key,
                    f"the options of '{kind}' are a mapping, e.g. '- {kind}: {{threshold: 0.8}}'",
                )
                continue
        else:
            doc.report(
                item_key,
                "each check is a name ('- contains-facts') or a name with options "
                "('- token-f1: {threshold: 0.6}')",
            )
            continue
        spec = STRATEGY_KINDS.get(kind)
        if spec is None:
            suggestion = _suggest(kind, tuple(STRATEGY_KINDS))
            hint = (
                f"did you mean '{suggestion}'?"
                if suggestion
                else "the known checks are " + ", ".join(STRATEGY_KINDS)
            )
            doc.report(item_key, f"unknown check '{kind}'; {hint}")
            continue
        accepted = {**COMMON_OPTIONS, **(JUDGED_OPTIONS if spec.prompt else {}), **spec.options}
        bad = False
        for option, option_value in options.items():
            checker = accepted.get(option)
            if checker is None:
                suggestion = _suggest(str(option), tuple(accepted))
                allowed = ", ".join(f"'{k}'" for k in accepted)
                hint = f"did you mean '{suggestion}'?" if suggestion else f"it accepts {allowed}"
                doc.report((*item_key, option), f"unknown option '{option}' of '{kind}'; {hint}")
                bad = True
                continue
            problem = checker(option_value)
            if problem is not None:
                doc.report((*item_key, option), problem)
                bad = True
        if bad:
            continue
        strategy = StrategySpec(kind, dict(options), doc.at(item_key))
        if strategy.label in labels:
            doc.report(
                item_key,
                f"the check '{strategy.label}' appears twice (item {labels[strategy.label]}); "
                "give one a different 'name' option",
            )
            continue
        labels[strategy.label] = index + 1
        out.append(strategy)
    return tuple(out)


def _judge(doc: _Located, key: _Key, value: Any, base: Path) -> JudgeSpec:
    mapping = _mapping(doc, key, value, "judge: {kind: rule}")
    if mapping is None:
        return JudgeSpec()
    _check_keys(doc, key, mapping, _JUDGE_KEYS, "judge")
    kind = mapping.get("kind", "rule")
    if kind not in ("rule", "recorded", "noisy"):
        suggestion = _suggest(str(kind), ("rule", "recorded", "noisy"))
        hint = f"did you mean '{suggestion}'?" if suggestion else "use rule, recorded or noisy"
        doc.report((*key, "kind"), f"unknown judge kind '{kind}'; {hint}")
        return JudgeSpec()
    min_overlap = mapping.get("min-overlap", 0.6)
    if check_fraction(min_overlap) is not None:
        doc.report((*key, "min-overlap"), "expected a number between 0 and 1, e.g. 0.6")
        min_overlap = 0.6
    cassette = None
    if kind == "recorded":
        raw = mapping.get("cassette")
        if not isinstance(raw, str):
            doc.report(key, "a recorded judge needs 'cassette: path/to/judge.jsonl'")
        else:
            cassette = base / raw
    model = mapping.get("model")
    if model is not None and (not isinstance(model, str) or ":" not in model):
        doc.report((*key, "model"), "expected 'package.module:factory' returning a chat model")
        model = None
    elif model is None and kind == "recorded":
        doc.report(
            key,
            "a recorded judge needs 'model: package.module:factory' returning the judge model; "
            "it is built even to replay (no call goes out), since its id and default parameters "
            "are part of the cassette keys",
        )
    model_id = mapping.get("model-id")
    if model_id is not None and not isinstance(model_id, str):
        doc.report((*key, "model-id"), "expected a string")
        model_id = None
    flip_rate = mapping.get("flip-rate", 0.0)
    if check_fraction(flip_rate) is not None:
        doc.report((*key, "flip-rate"), "expected a probability between 0 and 1, e.g. 0.05")
        flip_rate = 0.0
    seed = mapping.get("seed", 0)
    if check_integer(seed) is not None:
        doc.report((*key, "seed"), "expected an integer")
        seed = 0
    inner = None
    if kind == "noisy":
        inner = _judge(doc, (*key, "judge"), mapping.get("judge") or {"kind": "rule"}, base)
        if inner.kind == "noisy":
            doc.report((*key, "judge"), "a noisy judge wraps a rule or recorded judge")
    elif "judge" in mapping:
        doc.report((*key, "judge"), "only a noisy judge wraps another judge; set kind: noisy")
    return JudgeSpec(
        kind, float(min_overlap), cassette, model, model_id, float(flip_rate), seed, inner, base
    )


def _gate(doc: _Located, key: _Key, value: Any, base: Path) -> GateSpec:
    mapping = _mapping(doc, key, value, "gate: {pass-rate: 0.9}")
    if mapping is None:
        return GateSpec()
    _check_keys(doc, key, mapping, _GATE_KEYS, "gate")
    pass_rate = mapping.get("pass-rate")
    if pass_rate is not None and check_fraction(pass_rate) is not None:
        hint = (
            " (write 0.9, not 90)" if isinstance(pass_rate, int | float) and pass_rate > 1 else ""
        )
        doc.report((*key, "pass-rate"), f"expected a fraction between 0 and 1{hint}")
        pass_rate = None
    tags: dict[str, float] = {}
    raw_tags = mapping.get("tags")
    if raw_tags is not None:
        if not isinstance(raw_tags, dict):
            doc.report(
                (*key, "tags"), "expected a mapping from tag to pass rate, e.g. {smoke: 1.0}"
            )
        else:
            for tag, rate in raw_tags.items():
                if check_fraction(rate) is not None:
                    doc.report((*key, "tags", tag), "expected a pass rate between 0 and 1")
                else:
                    tags[str(tag)] = float(rate)
    max_drop = mapping.get("max-drop")
    if max_drop is not None and check_fraction(max_drop) is not None:
        doc.report((*key, "max-drop"), "expected a fraction between 0 and 1, e.g. 0.05")
        max_drop = None
    baseline = mapping.get("baseline")
    baseline_path = base / baseline if isinstance(baseline, str) else None
    if baseline is not None and baseline_path is None:
        doc.report((*key, "baseline"), "expected the path of a JSON report")
    return GateSpec(
        None if pass_rate is None else float(pass_rate),
        tags,
        None if max_drop is None else float(max_drop),
        baseline_path,
    )


def _report(doc: _Located, key: _Key, value: Any, base: Path) -> ReportSpec:
    mapping = _mapping(doc, key, value, "report: {dir: reports, formats: [md, json]}")
    if mapping is None:
        return ReportSpec()
    _check_keys(doc, key, mapping, _REPORT_KEYS, "report")
    directory = mapping.get("dir")
    if directory is not None and not isinstance(directory, str):
        doc.report((*key, "dir"), "expected a folder path, e.g. dir: reports")
        directory = None
    formats = _string_list(doc, (*key, "formats"), mapping.get("formats"), "formats: [md, json]")
    for index, fmt in enumerate(formats):
        if fmt not in REPORT_FORMATS:
            suggestion = {"markdown": "md", "junit": "xml", "htm": "html"}.get(fmt.lower())
            hint = (
                f"did you mean '{suggestion}'?"
                if suggestion
                else "use " + ", ".join(REPORT_FORMATS)
            )
            doc.report((*key, "formats", index), f"unknown report format '{fmt}'; {hint}")
    return ReportSpec(
        None if directory is None else Path(directory),
        formats or ReportSpec().formats,
    )
