"""``evalmark compare A B``: is build B better or worse than build A beyond noise?

A and B are two JSON reports (written by ``evalmark run`` or the pytest plugin, one report or a
suite of them), or, with ``--suite SUITE``, the names of two recorded builds of that suite
(replayed here). This module reads them through the public APIs of ``evalmark.report`` and
``evalmark.suite`` and hands plain per-case data to ``evalmark.noise._compare``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Hashable, Mapping, Sequence
from pathlib import Path
from typing import Any

from evalmark.cli import EXIT_GATE_FAILED, EXIT_OK
from evalmark.cli._compare_power import GateFacts, gate_facts, power_dict, power_lines
from evalmark.errors import CliError
from evalmark.noise._compare import BuildComparison, CaseOutcome, MeanDifference, compare_builds

_EPILOG = """\
examples:
  evalmark compare out/main/support.json out/pr/support.json
  evalmark compare healthy regressed --suite golden/support
  evalmark compare before.json after.json --cluster tags --detect 0.03 --fail-if-worse

groups (--cluster): cases of one group are not independent (turns of one conversation, cases
about the same document), so the intervals count groups, not cases:
  none          every case on its own (default)
  tags          cases with the same set of tags form a group
  tag:PREFIX    the tag starting with PREFIX names the group (e.g. tag:conversation=)
  name:SEP      the case name up to its last SEP names the group (e.g. name:/ for chat/turn-2)
  metadata:KEY  the sample's metadata KEY names the group (with --suite only)

exit codes:
  0  compared; with --fail-if-worse: B is not worse than A beyond noise
  1  with --fail-if-worse: B is worse than A beyond noise
  2  usage or input error
"""


def register(subparsers: Any) -> None:
    """Add the ``compare`` subcommand to the ``evalmark`` parser."""
    parser = subparsers.add_parser(
        "compare",
        help="tell whether build B is better or worse than build A beyond noise",
        description=(
            "Paired comparison of two runs on the cases both ran: the exact McNemar test on "
            "pass/fail, confidence intervals for the change in pass rate and mean score with "
            "standard errors clustered by group, and the cases needed to detect a change of a "
            "given size."
        ),
        epilog=_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("a", metavar="A", help="the earlier run: A.json, or a build name")
    parser.add_argument("b", metavar="B", help="the later run: B.json, or a build name")
    parser.add_argument(
        "--suite",
        type=Path,
        metavar="SUITE",
        help="A and B are recorded builds of this suite (replayed), not report files",
    )
    parser.add_argument(
        "--cluster",
        default="none",
        metavar="HOW",
        help="how cases group: none, tags, tag:PREFIX, name:SEP, metadata:KEY (none)",
    )
    parser.add_argument(
        "--detect",
        type=float,
        default=0.05,
        metavar="D",
        help="the change (pass rate, mean score) whose needed cases are reported (0.05)",
    )
    parser.add_argument(
        "--alpha", type=float, default=0.05, metavar="A", help="significance level (0.05)"
    )
    parser.add_argument(
        "--power", type=float, default=0.8, metavar="P", help="power for the cases needed (0.8)"
    )
    parser.add_argument(
        "--confidence", type=float, default=0.95, metavar="C", help="interval level (0.95)"
    )
    parser.add_argument(
        "--fail-if-worse",
        action="store_true",
        help="exit 1 when B is worse than A beyond noise",
    )
    parser.add_argument(
        "--adjust",
        choices=("holm", "bh"),
        help="also compare each check and tag, with p-values adjusted for the many "
        "comparisons: holm (family-wise error) or bh (Benjamini–Hochberg, false discovery "
        "rate); --fail-if-worse then also fails on a check or tag worse beyond noise",
    )
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Handle ``evalmark compare``."""
    grouping = parse_cluster(args.cluster)
    if grouping[0] == "metadata" and args.suite is None:
        raise CliError("--cluster metadata:KEY needs --suite: reports do not keep sample metadata")
    if args.suite is not None:
        (a, _, reports_a), (b, gates, reports_b) = _suite_builds(
            args.suite, args.a, args.b, grouping
        )
        names = (f"build {args.a!r} of {args.suite}", f"build {args.b!r} of {args.suite}")
    else:
        a, _, reports_a = _report_cases(Path(args.a), grouping)
        b, gates, reports_b = _report_cases(Path(args.b), grouping)
        names = (str(args.a), str(args.b))
    gate_b = gate_facts(gates)
    comparison = compare_builds(
        a,
        b,
        confidence=args.confidence,
        alpha=args.alpha,
        power=args.power,
        detect=args.detect,
    )
    family: list[dict[str, Any]] = []
    if args.adjust is not None:
        from evalmark.cli._compare_family import family_rows, family_text

        family = family_rows(reports_a, reports_b, args.alpha, args.adjust)
    if args.format == "json":
        document = {"a": names[0], "b": names[1], "cluster": args.cluster}
        document.update(comparison_to_dict(comparison))
        document.update(power_dict(comparison, gate_b))
        if args.adjust is not None:
            document["family"] = {"adjustment": args.adjust, "alpha": args.alpha, "rows": family}
        sys.stdout.write(json.dumps(document, indent=2) + "\n")
    else:
        sys.stdout.write(comparison_text(comparison, names, args.cluster, gate_b))
        if args.adjust is not None:
            sys.stdout.write(family_text(family, args.adjust, args.alpha))
    worse = comparison.verdict == "worse" or any(r["verdict"] == "worse" for r in family)
    if args.fail_if_worse and worse:
        return EXIT_GATE_FAILED
    return EXIT_OK


def parse_cluster(text: str) -> tuple[str, str]:
    """Read ``--cluster``: ``(how, argument)``."""
    how, _, argument = text.partition(":")
    if how in ("none", "tags") and not argument:
        return how, ""
    if how in ("tag", "name", "metadata") and argument:
        return how, argument
    raise CliError(
        f"--cluster: {text!r} is not a grouping; use none, tags, tag:PREFIX, name:SEP or "
        "metadata:KEY"
    )


def group_of(
    name: str,
    tags: Sequence[str],
    metadata: Mapping[str, Any] | None,
    grouping: tuple[str, str],
) -> Hashable | None:
    """The group of one case under ``grouping`` (None: the case is a group of its own)."""
    how, argument = grouping
    if how == "tags":
        return ("tags", *sorted(tags))
    if how == "tag":
        found = sorted(tag for tag in tags if tag.startswith(argument))
        return ("tag", found[0]) if found else None
    if how == "name":
        head, separator, _ = name.rpartition(argument)
        return ("name", head) if separator else None
    if how == "metadata":
        value = (metadata or {}).get(argument)
        return None if value is None else ("metadata", json.dumps(value, sort_keys=True))
    return None


def _outcomes(
    reports: Sequence[Any],
    grouping: tuple[str, str],
    metadata: Mapping[str, Mapping[str, Any]] | None = None,
) -> list[CaseOutcome]:
    many = len(reports) > 1
    cases = []
    for report in reports:
        for row in report.rows():
            name = f"{report.name}/{row.name}" if many else row.name
            score = row.score if row.verdict != "error" else None
            cases.append(
                CaseOutcome(
                    name=name,
                    passed=row.passed,
                    score=score,
                    group=group_of(row.name, row.tags, (metadata or {}).get(name), grouping),
                )
            )
    return cases


# the cases, the run's gate conditions, and its reports
Loaded = tuple[list[CaseOutcome], Sequence[Any], Sequence[Any]]


def _report_cases(path: Path, grouping: tuple[str, str]) -> Loaded:
    from evalmark.report import Report, SuiteReport

    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise CliError(f"{path}: no such report") from None
    except OSError as exc:
        raise CliError(f"{path}: cannot read the report ({exc})") from None
    try:
        document = json.loads(data)
    except ValueError as exc:
        raise CliError(f"{path}: not a JSON report ({exc})") from None
    try:
        if isinstance(document, dict) and document.get("format") == "evalmark-suite":
            reports: list[Any] = list(SuiteReport.from_json(data))
        else:
            reports = [Report.from_json(data)]
    except ValueError as exc:
        raise CliError(f"{path}: not an evalmark JSON report ({exc})") from None
    cases = _outcomes(reports, grouping)
    if not cases:
        raise CliError(f"{path}: the report holds no cases")
    return cases, reports[0].gates, reports  # every report of a run carries the run's gate


def _suite_builds(path: Path, a: str, b: str, grouping: tuple[str, str]) -> tuple[Loaded, Loaded]:
    from evalmark.samples._samples import load_samples
    from evalmark.suite._loader import load_suite
    from evalmark.suite._runner import run_suite

    suite = load_suite(path)
    for build in (a, b):
        if build not in suite.build_names:
            raise CliError(
                f"no build named {build!r}; the suite records: "
                f"{', '.join(suite.build_names) or 'none'}"
            )
    result: list[Loaded] = []
    for build in (a, b):
        run = run_suite(suite, build=build, mode="replay")
        metadata: dict[str, Mapping[str, Any]] = {}
        many = len(run.reports) > 1
        for evaluation, report in zip(run.evaluations, run.reports, strict=True):
            for sample in load_samples(*evaluation.samples):
                key = f"{report.name}/{sample.name}" if many else sample.name
                metadata[key] = sample.metadata
        result.append((_outcomes(run.reports, grouping, metadata), run.gates, run.reports))
    return result[0], result[1]


def _points(value: float) -> str:
    return f"{value * 100:+.1f}"


def _interval(diff: MeanDifference, scale: float, digits: int) -> str:
    low, high = diff.low * scale, diff.high * scale
    return f"{low:+.{digits}f} to {high:+.{digits}f}"


def comparison_text(
    comparison: BuildComparison,
    names: tuple[str, str],
    cluster: str = "none",
    gate_b: GateFacts | None = None,
) -> str:
    """The comparison as a few plain lines ending with the verdict; ``gate_b``, B's gate, sets
    the change that matters and explains a failed gate that compare cannot confirm."""
    c = comparison
    m = c.mcnemar
    level = f"{c.pass_rate.confidence:.0%}" if c.pass_rate else f"{0.95:.0%}"
    lines = [
        f"compare: A = {names[0]}, B = {names[1]}",
        f"{c.cases} cases in both ({_count(len(c.only_in_a))} only in A, "
        f"{_count(len(c.only_in_b))} only in B); " + _groups_text(c, cluster),
        "",
        f"pass/fail: {m.both_passed} passed in both, {m.both_failed} failed in both, "
        f"{m.worse} passed in A and failed in B, {m.better} failed in A and passed in B",
        f"  exact McNemar test: p = {m.p_value:.4g} (two-sided): "
        + _verdict_words(c.pass_verdict, c.alpha),
    ]
    if c.pass_rate is not None:
        p = c.pass_rate
        lines.append(
            f"pass rate: A {p.mean_a:.1%}, B {p.mean_b:.1%}, B − A = {_points(p.difference)} "
            f"points, {level} interval {_interval(p, 100, 1)} (t, {p.degrees_of_freedom} df)"
        )
    if c.score is not None:
        s = c.score
        lines.append(
            f"mean score: A {s.mean_a:.3f}, B {s.mean_b:.3f}, B − A = {s.difference:+.3f}, "
            f"{level} interval {_interval(s, 1, 3)} (t, {s.degrees_of_freedom} df): "
            + _verdict_words(c.score_verdict, None)
        )
    elif c.scored_cases == 0:
        lines.append("mean score: no case has a score in both runs")
    lines.append(
        f"cases needed to detect a change of {c.detect:g} with {c.power:.0%} power at "
        f"α = {c.alpha:g}:"
    )
    share = m.discordant / c.cases
    lines.append(
        f"  in pass rate (McNemar; {share:.0%} of cases changed verdict here): "
        f"{c.cases_for_pass_rate} cases (exact power {c.exact_power_at_cases:.1%})"
    )
    if c.cases_for_score is not None:
        lines.append(f"  in mean score: {c.cases_for_score} cases")
    lines += power_lines(c, gate_b)
    lines.append(_overall(c))
    return "\n".join(lines) + "\n"


def _count(n: int) -> str:
    return "none" if n == 0 else str(n)


def _groups_text(c: BuildComparison, cluster: str) -> str:
    if c.pass_rate is None:
        return f"grouped by {cluster}: fewer than two groups, so no interval"
    if cluster == "none":
        return "every case on its own (no --cluster)"
    return f"{c.pass_rate.clusters} groups by {cluster}"


def _verdict_words(verdict: str, alpha: float | None) -> str:
    at = f" at α = {alpha:g}" if alpha is not None else ""
    if verdict == "no difference":
        return f"no difference beyond noise{at}"
    return f"B {verdict} than A{at}"


def _overall(c: BuildComparison) -> str:
    verdict = c.verdict
    if verdict == "no difference":
        return f"verdict: no difference between A and B beyond noise on these {c.cases} cases"
    if verdict == "mixed":
        return "verdict: mixed; pass/fail and scores point different ways"
    return f"verdict: B is {verdict} than A beyond noise"


def _difference_dict(diff: MeanDifference | None) -> dict[str, Any] | None:
    if diff is None:
        return None
    return {
        "mean_a": diff.mean_a,
        "mean_b": diff.mean_b,
        "difference": diff.difference,
        "standard_error": diff.standard_error,
        "low": diff.low,
        "high": diff.high,
        "confidence": diff.confidence,
        "cases": diff.cases,
        "clusters": diff.clusters,
        "degrees_of_freedom": diff.degrees_of_freedom,
        "design_effect": diff.design_effect,
    }


def comparison_to_dict(comparison: BuildComparison) -> dict[str, Any]:
    """The comparison as plain JSON-ready data."""
    c = comparison
    m = c.mcnemar
    return {
        "cases": c.cases,
        "only_in_a": list(c.only_in_a),
        "only_in_b": list(c.only_in_b),
        "mcnemar": {
            "both_passed": m.both_passed,
            "both_failed": m.both_failed,
            "worse": m.worse,
            "better": m.better,
            "p_value": m.p_value,
        },
        "pass_rate": _difference_dict(c.pass_rate),
        "score": _difference_dict(c.score),
        "scored_cases": c.scored_cases,
        "alpha": c.alpha,
        "power": c.power,
        "detect": c.detect,
        "cases_for_pass_rate": c.cases_for_pass_rate,
        "exact_power_at_cases": c.exact_power_at_cases,
        "cases_for_score": c.cases_for_score,
        "pass_verdict": c.pass_verdict,
        "score_verdict": c.score_verdict,
        "verdict": c.verdict,
    }
