"""Where ``evalmark tune`` takes the judge's noise from, first found first used.

``--flip`` (equal rates), ``--false-pass`` with ``--false-fail`` (rates, or counts such as
3/120), ``--rates FILE``, the suite's rates file ``<suite dir>/.evalmark/judge-rates.json``,
``--from-cassette``, and else evalmark's documented default noise; each with the lines that say
which was used and where it came from.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from pathlib import Path

from evalmark.cli._tune_cassette import flip_rates_from_cassette
from evalmark.errors import CliError, DataFileError
from evalmark.noise import ErrorRates, JudgeRates, RateCounts, read_rates
from evalmark.noise._rates import DEFAULT_JUDGE_RATES, rates_path
from evalmark.noise._render import rates_label

__all__ = ["Noise", "noise_levels", "parse_flip_rates", "split_values"]


@dataclass(frozen=True, slots=True)
class Noise:
    """The noise levels to study and the lines saying where they come from."""

    levels: list[ErrorRates | JudgeRates | float]
    source: str
    lines: list[str]


def noise_levels(args: argparse.Namespace, suite_folder: Path | None) -> Noise:
    """The noise levels, from the first source found (see the module docstring)."""
    rho = args.overdispersion
    if rho is not None and not 0.0 <= rho <= 1.0:
        raise CliError(f"--overdispersion: {rho} is not between 0 and 1")
    asym = args.false_pass is not None or args.false_fail is not None
    if args.flip and asym:
        raise CliError("give --flip (equal rates) or --false-pass with --false-fail, not both")
    levels: list[ErrorRates | JudgeRates | float] = []
    lines: list[str] = []
    source = ""
    if args.flip:
        flips = parse_flip_rates(args.flip)
        levels += [ErrorRates.flip(p, rho or 0.0) for p in flips] if rho else flips
        source = "--flip"
        lines.append(
            f"judge noise: flip rate{'s' if len(flips) > 1 else ''} "
            f"{', '.join(f'{p:g}' for p in flips)}"
            + (f", overdispersion {rho:g}" if rho else "")
            + " (from --flip)"
        )
    elif asym:
        level = _asymmetric(args.false_pass, args.false_fail, rho)
        levels.append(level)
        source = "--false-pass/--false-fail"
        lines.append(f"judge noise: {_describe(level)} (from --false-pass and --false-fail)")
    elif args.rates is not None or (suite_folder is not None and rates_path(suite_folder).exists()):
        path = args.rates if args.rates is not None else rates_path(suite_folder or Path())
        measured = _read(path, rho)
        levels.append(measured)
        source = str(path)
        lines.append(f"judge noise: {_describe(measured)} from {path}")
        if measured.source:
            lines.append(f"  measured by: {measured.source}")
    elif args.from_cassette is None:
        measured = _with_rho(DEFAULT_JUDGE_RATES, rho)
        levels.append(measured)
        source = "default"
        where = (
            f"no rates file at {rates_path(suite_folder)}"
            if suite_folder is not None
            else "no rates given"
        )
        lines.append(f"judge noise: {_describe(measured)}: {measured.source}")
        lines.append(
            f"  {where}; measure your judge (docs/noise.md) or pass --rates, "
            "--false-pass/--false-fail or --flip"
        )
    if args.from_cassette is not None:
        rates, line = flip_rates_from_cassette(args.from_cassette, args.grades)
        levels += [ErrorRates.flip(p, rho or 0.0) for p in rates] if rho else rates
        source = source or str(args.from_cassette)
        lines.append(line)
    return Noise(levels, source, lines)


def _describe(level: ErrorRates | JudgeRates) -> str:
    if isinstance(level, ErrorRates):
        return rates_label(level)
    text = f"false pass {level.false_pass.label}, false fail {level.false_fail.label}"
    if level.overdispersion:
        text += f", overdispersion {level.overdispersion:g}"
    return text


def _with_rho(measured: JudgeRates, rho: float | None) -> JudgeRates:
    if rho is None:
        return measured
    return JudgeRates(measured.false_pass, measured.false_fail, rho, measured.source, measured.path)


def _read(path: Path, rho: float | None) -> JudgeRates:
    try:
        return _with_rho(read_rates(path), rho)
    except DataFileError as exc:
        raise CliError(str(exc)) from None


def _asymmetric(
    false_pass: str | None, false_fail: str | None, rho: float | None
) -> ErrorRates | JudgeRates:
    if false_pass is None or false_fail is None:
        missing = "--false-fail" if false_fail is None else "--false-pass"
        raise CliError(
            f"give {missing} too: the judge's two error rates go together "
            "(use --flip R for equal rates)"
        )
    parsed = [_rate(false_pass, "--false-pass"), _rate(false_fail, "--false-fail")]
    if all(isinstance(p, RateCounts) for p in parsed):
        fp, ff = parsed
        assert isinstance(fp, RateCounts) and isinstance(ff, RateCounts)
        return JudgeRates(fp, ff, rho, source="the command line")
    if any(isinstance(p, RateCounts) for p in parsed):
        raise CliError(
            "give --false-pass and --false-fail both as rates (0.1) or both as counts (4/40)"
        )
    fp_rate, ff_rate = parsed
    assert isinstance(fp_rate, float) and isinstance(ff_rate, float)
    return ErrorRates(fp_rate, ff_rate, rho or 0.0)


def _rate(text: str, option: str) -> float | RateCounts:
    item = text.strip()
    if "/" in item:
        errors, _, trials = item.partition("/")
        try:
            return RateCounts(int(errors), int(trials))
        except ValueError as exc:
            detail = str(exc) if errors.strip().isdigit() and trials.strip().isdigit() else ""
            raise CliError(
                f"{option}: {item!r} is not errors/trials such as 4/40"
                + (f" ({detail})" if detail else "")
            ) from None
    return _probability(item, option, "is not a rate (0.1) or errors/trials (4/40)")


def parse_flip_rates(text: str | None) -> list[float]:
    """Read ``--flip``: comma-separated probabilities."""
    if not text:
        raise CliError("give the judge noise levels with --flip, e.g. --flip 0.03,0.08")
    not_number = "is not a number; give rates like 0.03,0.08"
    return [_probability(item, "--flip", not_number) for item in split_values(text, "--flip")]


def _probability(item: str, option: str, not_number: str) -> float:
    try:
        rate = float(item)
    except ValueError:
        raise CliError(f"{option}: {item!r} {not_number}") from None
    if not 0.0 <= rate <= 1.0:
        raise CliError(f"{option}: {item} is not a probability between 0 and 1")
    return rate


def split_values(text: str, option: str) -> list[str]:
    """The comma-separated values of ``option``, stripped; an empty one is a usage error."""
    items = [item.strip() for item in text.split(",")]
    if not all(items):
        raise CliError(f"{option}: empty item in {text!r}; separate values with single commas")
    return items
