"""The options of the evalmark pytest plugin and the state it keeps per session (kept apart
from :mod:`evalmark.pytest._plugin` for size; imports nothing heavy)."""

from __future__ import annotations

import os
from typing import Any

import pytest

from evalmark.pytest._registry import REPORT_STEM, RegisteredReport

__all__ = ["MODES", "MODE_ENV", "SessionState", "add_options"]

MODE_ENV = "EVALMARK_RECORD_MODE"
MODES = ("replay", "record-missing", "rewrite", "off")


def add_options(parser: pytest.Parser) -> None:
    """Add the ``--evalmark-*`` options and the ``evalmark_*`` ini keys."""
    group = parser.getgroup("evalmark", "evalmark evaluation reports and cassettes")
    group.addoption(
        "--evalmark-report",
        metavar="DIR",
        default=None,
        help=f"write {REPORT_STEM}.md and .json aggregating every evaluation report into DIR",
    )
    group.addoption(
        "--evalmark-report-format",
        metavar="FORMAT",
        action="append",
        default=None,
        help="a format of the suite report (markdown, json, html or a registered one); repeat "
        "or separate with commas (default: markdown,json)",
    )
    parser.addini(
        "evalmark_report_formats",
        type="args",
        default=[],
        help="formats of the suite report written by --evalmark-report (default: markdown json)",
    )
    group.addoption(
        "--evalmark-report-name",
        metavar="STEM",
        default=None,
        help=f"the suite report's file name before its extension (default: {REPORT_STEM})",
    )
    parser.addini(
        "evalmark_report_name",
        default="",
        help=f"the suite report's file name before its extension (default: {REPORT_STEM})",
    )
    group.addoption(
        "--evalmark-show-scores",
        action="store_true",
        default=None,
        help="show each evaluation test's score and verdict on its line (with -v)",
    )
    parser.addini(
        "evalmark_show_scores",
        type="bool",
        default=False,
        help="show each evaluation test's score and verdict on its line (with -v)",
    )
    group.addoption(
        "--evalmark-record-mode",
        choices=MODES,
        default=None,
        help="cassette record mode for this run (default: replay, or $EVALMARK_RECORD_MODE)",
    )
    group.addoption(
        "--evalmark-github",
        dest="evalmark_github",
        action="store_true",
        default=None,
        help="write a GitHub Actions step summary ($GITHUB_STEP_SUMMARY) and an error "
        "annotation per failing case (on by itself when GITHUB_ACTIONS=true)",
    )
    group.addoption(
        "--evalmark-no-github",
        dest="evalmark_github",
        action="store_false",
        help="no GitHub Actions summary or annotations, even under GITHUB_ACTIONS=true",
    )
    group.addoption(
        "--evalmark-baseline",
        metavar="FILE",
        default=None,
        help="a previous suite report (JSON) to compare with; a drop beyond "
        "--evalmark-max-drop fails the session",
    )
    group.addoption(
        "--evalmark-max-drop",
        metavar="FRACTION",
        type=float,
        default=0.05,
        help="largest allowed drop of the score against the baseline, as a fraction (0.05)",
    )


class SessionState:
    """What the plugin keeps for one session."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.report_dir: str | None = config.getoption("--evalmark-report")
        self.baseline: str | None = config.getoption("--evalmark-baseline")
        self.max_drop: float = config.getoption("--evalmark-max-drop")
        self.mode: str | None = config.getoption("--evalmark-record-mode")
        given = config.getoption("--evalmark-report-format") or config.getini(
            "evalmark_report_formats"
        )
        self.formats: tuple[str, ...] = tuple(
            dict.fromkeys(f.strip() for part in given for f in part.split(",") if f.strip())
        ) or ("markdown", "json")
        self.stem: str = (
            config.getoption("--evalmark-report-name")
            or config.getini("evalmark_report_name")
            or REPORT_STEM
        )
        shown = config.getoption("--evalmark-show-scores")
        self.show_scores: bool = bool(
            config.getini("evalmark_show_scores") if shown is None else shown
        )
        self.github: bool | None = config.getoption("evalmark_github")
        self.places: dict[str, Any] = {}  # test id → its TestPlace (for --evalmark-github)
        self.github_lines: list[str] = []
        self.previous_mode: str | None = os.environ.get(MODE_ENV)
        self.merged: list[RegisteredReport] = []
        self.worker_payloads: list[dict[str, str]] = []
        self.summary_lines: list[str] = []
        self.failure: str | None = None
        self.frame: Any = None
