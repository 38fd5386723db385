"""Checking the parts of a suite file (application, strategies, judge, gate, report): each
returns its part of the model, noting every problem with its key and a fix on the document."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evalmark._files.located import PathKey
from evalmark.gates._budgets import Budget, BudgetLimit
from evalmark.strategies._kinds import option_schema
from evalmark.suite._document import SuiteDocument, whole
from evalmark.suite._model import (
    COMMON_OPTIONS,
    JUDGED_OPTIONS,
    REPORT_FORMATS,
    STRATEGY_KINDS,
    ApplicationSpec,
    GateSpec,
    JudgeSpec,
    ReportSpec,
    StrategySpec,
    check_fraction,
    check_integer,
)

__all__ = ["application", "budget_limits", "gate", "judge", "report", "strategies"]

_APPLICATION_KEYS = ("model-id", "builds", "function", "system-prompt")
_JUDGE_KEYS = ("kind", "min-overlap", "cassette", "model", "model-id", "flip-rate", "seed", "judge")
_GATE_KEYS = ("pass-rate", "tags", "max-drop", "baseline", "budget", "pass-at-k", "pass-hat-k")
_BUDGET_KEYS: dict[str, Budget] = {"latency-ms": "latency", "tokens": "tokens", "cost": "cost"}
_REPORT_KEYS = ("dir", "formats")


def application(doc: SuiteDocument, key: PathKey, value: Any, base: Path) -> ApplicationSpec:
    """The application under test: recorded builds, a live function, or both."""
    mapping = doc.section(
        key,
        value,
        "application: {builds: {healthy: builds/healthy.jsonl}}",
        _APPLICATION_KEYS,
        "application",
    )
    if mapping is None:
        if value is None and not doc.given_empty(key):
            doc.report(
                key[:-1],
                "missing 'application': give recorded builds (builds: {name: cassette.jsonl}) "
                "or a live function (function: package.module:answer)",
            )
        return ApplicationSpec({}, None, "application", None, base)
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
    model_id = doc.string((*key, "model-id"), mapping.get("model-id"), default="application")
    system_prompt = mapping.get("system-prompt")
    if system_prompt is not None and not isinstance(system_prompt, str):
        doc.report((*key, "system-prompt"), "expected text; use a block scalar (system-prompt: |)")
        system_prompt = None
    lines = {"builds": doc.where((*key, "builds"))[0], "function": doc.where((*key, "function"))[0]}
    lines.update({f"build:{b}": doc.where((*key, "builds", b))[0] for b in builds})
    return ApplicationSpec(builds, function, model_id, system_prompt, base, lines)


def strategies(doc: SuiteDocument, key: PathKey, value: Any) -> tuple[StrategySpec, ...]:
    """The checks: known kinds, each with known options of the right type, each label once."""
    if value is None:
        return ()
    if not isinstance(value, list) or not value:
        doc.report(key, "expected a list of checks, e.g. strategies: [contains-facts, relevancy]")
        return ()
    out: list[StrategySpec] = []
    labels: dict[str, int] = {}
    for index, item in enumerate(value):
        item_key: PathKey = (*key, index)
        options: dict[str, Any]
        if isinstance(item, str):
            kind, options = item, {}
        elif isinstance(item, dict) and len(item) == 1:
            kind, options = next(iter(item.items()))
            item_key = (*item_key, kind)
            if options is None:  # '- token-f1:' is the check without options
                options = {}
            elif isinstance(options, dict):
                options = dict(options)
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
            suggestion = doc.suggest(kind, tuple(STRATEGY_KINDS))
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
                suggestion = doc.suggest(option, tuple(accepted))
                allowed = ", ".join(f"'{k}'" for k in accepted)
                hint = f"did you mean '{suggestion}'?" if suggestion else f"it accepts {allowed}"
                doc.report((*item_key, option), f"unknown option '{option}' of '{kind}'; {hint}")
                bad = True
                continue
            if option_value is None:
                doc.report((*item_key, option), "no value given; write one, or leave it out")
                bad = True
                continue
            option_value = options[option] = _as_schema_has_it(option_value, option_schema(checker))
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


def _as_schema_has_it(value: Any, schema: Mapping[str, Any]) -> Any:
    """``value`` with each float that has no fraction made an ``int`` where ``schema`` wants a
    whole number (an integer, a choice among whole numbers, an array of them), as JSON Schema
    reads ``1.0``."""
    if isinstance(value, list) and isinstance(schema.get("items"), Mapping):
        return [_as_schema_has_it(v, schema["items"]) for v in value]
    whole_choices = any(type(c) is int for c in schema.get("enum", ()))
    return whole(value) if schema.get("type") == "integer" or whole_choices else value


def judge(doc: SuiteDocument, key: PathKey, value: Any, base: Path) -> JudgeSpec:
    """The judge of the judged checks (a rule judge when the suite names none)."""
    mapping = doc.section(key, value, "judge: {kind: rule}", _JUDGE_KEYS, "judge")
    if mapping is None:
        return JudgeSpec()
    kind = mapping.get("kind", "rule")
    if kind not in ("rule", "recorded", "noisy"):
        suggestion = doc.suggest(kind, ("rule", "recorded", "noisy"))
        hint = f"did you mean '{suggestion}'?" if suggestion else "use rule, recorded or noisy"
        doc.report((*key, "kind"), f"unknown judge kind '{kind}'; {hint}")
        return JudgeSpec()
    min_overlap = doc.option(
        mapping,
        key,
        "min-overlap",
        0.6,
        check_fraction,
        "expected a number between 0 and 1, e.g. 0.6",
    )
    cassette = None
    raw = mapping.get("cassette")
    if raw is not None and not isinstance(raw, str):
        doc.report((*key, "cassette"), "expected the path of a cassette, e.g. judge.jsonl")
    elif kind == "recorded" and isinstance(raw, str):
        cassette = base / raw
    elif kind == "recorded":
        doc.report(key, "a recorded judge needs 'cassette: path/to/judge.jsonl'")
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
    flip_rate = doc.option(
        mapping,
        key,
        "flip-rate",
        0.0,
        check_fraction,
        "expected a probability between 0 and 1, e.g. 0.05",
    )
    seed = doc.option(mapping, key, "seed", 0, check_integer, "expected an integer")
    inner = None
    if kind == "noisy":
        inner = judge(doc, (*key, "judge"), mapping.get("judge") or {"kind": "rule"}, base)
        if inner.kind == "noisy":
            doc.report((*key, "judge"), "a noisy judge wraps a rule or recorded judge")
    elif "judge" in mapping:
        doc.report((*key, "judge"), "only a noisy judge wraps another judge; set kind: noisy")
    lines = {name: doc.where((*key, name))[0] for name in ("cassette", "model")}
    return JudgeSpec(
        kind,
        float(min_overlap),
        cassette,
        model,
        model_id,
        float(flip_rate),
        seed,
        inner,
        base,
        lines,
    )


def gate(doc: SuiteDocument, key: PathKey, value: Any, base: Path) -> GateSpec:
    """When a run fails: pass rates (overall and per tag) and the drop from a baseline."""
    mapping = doc.section(key, value, "gate: {pass-rate: 0.9}", _GATE_KEYS, "gate")
    if mapping is None:
        return GateSpec()
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
    repeat_rates: dict[str, float | None] = {}
    for option in ("pass-at-k", "pass-hat-k"):
        rate = mapping.get(option)
        if rate is not None and check_fraction(rate) is not None:
            doc.report((*key, option), "expected a fraction between 0 and 1, e.g. 0.9")
            rate = None
        repeat_rates[option] = None if rate is None else float(rate)
    return GateSpec(
        None if pass_rate is None else float(pass_rate),
        tags,
        None if max_drop is None else float(max_drop),
        baseline_path,
        budget_limits(doc, (*key, "budget"), mapping.get("budget")),
        repeat_rates["pass-at-k"],
        repeat_rates["pass-hat-k"],
    )


def budget_limits(doc: SuiteDocument, key: PathKey, value: Any) -> dict[Budget, BudgetLimit]:
    """The gate's budgets: ``{latency-ms|tokens|cost: {per-case: n, total: n}}``."""
    example = "budget: {latency-ms: {per-case: 2000}, cost: {total: 0.5}}"
    mapping = doc.section(key, value, example, tuple(_BUDGET_KEYS), "budget")
    limits: dict[Budget, BudgetLimit] = {}
    for name, budget in _BUDGET_KEYS.items():
        raw = (mapping or {}).get(name)
        if raw is None:
            continue
        if not isinstance(raw, dict) or not raw:
            doc.report((*key, name), f"expected {{per-case: n, total: n}}, e.g. {example}")
            continue
        doc.check_keys((*key, name), raw, ("per-case", "total"), "budget")
        numbers = {}
        for scope in ("per-case", "total"):
            number = raw.get(scope)
            if number is not None and (
                isinstance(number, bool) or not isinstance(number, int | float) or number < 0
            ):
                doc.report((*key, name, scope), "expected a number >= 0")
                number = None
            numbers[scope] = number
        limits[budget] = BudgetLimit(numbers["per-case"], numbers["total"])
    return limits


def _registered_format(name: str) -> bool:
    """True if ``name`` is a report format registered (or installed) as a plug-in."""
    from evalmark.report._formatters import known_formatters

    return name in known_formatters() and name not in ("markdown", "junit")


def report(doc: SuiteDocument, key: PathKey, value: Any, base: Path) -> ReportSpec:
    """Where the reports go and in which formats."""
    mapping = doc.section(
        key, value, "report: {dir: reports, formats: [md, json]}", _REPORT_KEYS, "report"
    )
    if mapping is None:
        return ReportSpec()
    directory = mapping.get("dir")
    if directory is not None and not isinstance(directory, str):
        doc.report((*key, "dir"), "expected a folder path, e.g. dir: reports")
        directory = None
    formats = doc.string_list((*key, "formats"), mapping.get("formats"), "formats: [md, json]")
    for index, fmt in enumerate(formats):
        if fmt not in REPORT_FORMATS and not _registered_format(fmt):
            suggestion = {"markdown": "md", "junit": "xml", "htm": "html"}.get(fmt.lower())
            hint = (
                f"did you mean '{suggestion}'?"
                if suggestion
                else "use " + ", ".join(REPORT_FORMATS) + " or a registered report format"
            )
            doc.report((*key, "formats", index), f"unknown report format '{fmt}'; {hint}")
    return ReportSpec(
        None if directory is None else Path(directory),
        formats or ReportSpec().formats,
    )
