"""The evalmark pytest plugin: fixtures, markers, options and the suite report.

Options (all ``--evalmark-*``):

``--evalmark-report=DIR`` (with ``--evalmark-report-format=FORMAT``, ini
``evalmark_report_formats``, and ``--evalmark-report-name=STEM``, ini ``evalmark_report_name``)
    write ``evaluation-suite-report.md`` and ``.json`` (or the formats asked: ``markdown``,
    ``json``, ``html``, a registered format; under the name asked) into DIR, aggregating
    every report of the run (from the ``scorer`` fixture, ``evalmark.pytest.evaluation_test``,
    ``evalmark.pytest.register``, and a report per test of the evaluations it called directly,
    ``judge.evaluate(sample, output)``); under pytest-xdist the workers' reports are merged.
``--evalmark-show-scores`` (ini ``evalmark_show_scores = true``)
    add each evaluation test's score and verdict to its line under ``-v``:
    ``PASSED [score 75.0% (3 of 4 checks), 1 of 2 cases passed, gate passed]``.
``--evalmark-record-mode=replay|record-missing|rewrite|off``
    the cassette mode for the run (sets ``EVALMARK_RECORD_MODE``; the ``evalmark_record_mode``
    fixture gives it to pass explicitly, which also wins over ``CI``).
``--evalmark-github`` (on by itself when ``GITHUB_ACTIONS=true``; ``--evalmark-no-github``)
    append a step summary to ``$GITHUB_STEP_SUMMARY`` and print an error annotation per
    failing case, at its sample's line (``evalmark_samples``) or the test's.
``--evalmark-baseline=FILE`` and ``--evalmark-max-drop=FRACTION``
    compare the run's suite report with a previous JSON suite report and fail the session when
    the score drops by more than the allowed fraction (default 0.05).

Fixtures: ``scorer`` (configured by ``@pytest.mark.evalmark_scorer(concurrency=5)``),
``samples`` (from ``@pytest.mark.evalmark_samples("a.yaml", "b.yaml", tags=[...])``) and
``evalmark_record_mode``. The engine is imported only when a fixture or the report needs it.
"""

from __future__ import annotations

import os
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

from evalmark.pytest._fixtures import evalmark_record_mode, samples, scorer
from evalmark.pytest._options import MODE_ENV, SessionState, add_options
from evalmark.pytest._registry import REGISTRY, REPORT_STEM, RegisteredReport

__all__ = ["evalmark_record_mode", "samples", "scorer"]  # the fixtures pytest finds here

_WORKER_KEY = "evalmark_reports"

_PLUGIN_KEY = pytest.StashKey[SessionState]()
_FIRST_ENTRY = pytest.StashKey[int]()  # the registry's length when a test started
_SCORE_KEY = "evalmark_score"  # the user property carrying a test's score line

pytest_plugins = ["evalmark.offline._pytest_plugin"]  # --evalmark-offline, evalmark_network


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add the ``--evalmark-*`` options."""
    add_options(parser)


def pytest_report_header(config: pytest.Config) -> list[str]:
    """Say which record mode the run uses, when it was set."""
    state = config.stash.get(_PLUGIN_KEY, None)
    if state is None or state.mode is None:
        return []
    lines = [f"evalmark: record mode {state.mode} (--evalmark-record-mode)"]
    if os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no"):
        lines.append(
            "evalmark: CI is set, so cassettes left to choose their own mode replay; pass the "
            "evalmark_record_mode fixture to record_replay to use this mode"
        )
    return lines


def _is_worker(config: pytest.Config) -> bool:
    return hasattr(config, "workerinput")


def pytest_configure(config: pytest.Config) -> None:
    """Register the markers, check the options and apply the record mode."""
    config.addinivalue_line(
        "markers",
        "evalmark_scorer(**options): options of the `scorer` fixture, e.g. concurrency=5",
    )
    config.addinivalue_line(
        "markers",
        "evalmark_samples(*sources, tags=None): sample files merged in order for the "
        "`samples` fixture",
    )
    state = SessionState(config)
    if not 0.0 <= state.max_drop <= 1.0:  # the gates' check_fraction would import numpy here
        raise pytest.UsageError(
            f"--evalmark-max-drop is a fraction between 0 and 1 (0.05 for 5 points); "
            f"got {state.max_drop}"
        )
    if Path(state.stem).name != state.stem or state.stem in (".", ".."):
        raise pytest.UsageError(
            f"--evalmark-report-name is a file name without folders; got {state.stem!r}"
        )
    if state.baseline is not None and not _is_worker(config) and not Path(state.baseline).is_file():
        raise pytest.UsageError(
            f"--evalmark-baseline {state.baseline}: no such file; give the "
            f"{REPORT_STEM}.json of an earlier run (written with --evalmark-report=DIR)"
        )
    if state.mode is not None:
        os.environ[MODE_ENV] = state.mode
    state.frame = REGISTRY.push()
    config.stash[_PLUGIN_KEY] = state


def pytest_unconfigure(config: pytest.Config) -> None:
    """Restore the environment."""
    state = config.stash.get(_PLUGIN_KEY, None)
    if state is None:
        return
    REGISTRY.pop(state.frame)
    if state.mode is None:
        return
    if state.previous_mode is None:
        os.environ.pop(MODE_ENV, None)
    else:
        os.environ[MODE_ENV] = state.previous_mode


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Name the reports made during a test (setup, call and teardown) after the test."""
    REGISTRY.current_test = item.nodeid
    item.stash[_FIRST_ENTRY] = len(REGISTRY.entries())
    try:
        return (yield)
    finally:
        REGISTRY.current_test = None
        state = item.config.stash.get(_PLUGIN_KEY, None)
        if state is not None and state.github is not False:
            from evalmark.pytest._github import place_of

            state.places[item.nodeid] = place_of(item)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    """When the run writes a suite report (``--evalmark-report``) or compares with a baseline,
    register the evaluations the test made directly (``judge.evaluate(...)``) as a report named
    after it (:mod:`evalmark.pytest._direct`; it imports no engine)."""
    state = item.config.stash.get(_PLUGIN_KEY, None)
    if state is None or not (state.report_dir or state.baseline):
        return (yield)
    from evalmark.pytest._direct import collecting

    with collecting(item.nodeid):
        return (yield)


# --------------------------------------------------------------------------- tracebacks

_PACKAGE = Path(__file__).resolve().parents[1]  # python/evalmark


def _inside(entry: Any, folder: Path) -> bool:
    try:
        return Path(entry.path).resolve().is_relative_to(folder)
    except (OSError, TypeError, ValueError):
        return False


def _ours(excinfo: pytest.ExceptionInfo[BaseException]) -> bool:
    """An error evalmark raised on purpose: an evalmark error, or a failed gate."""
    error = excinfo.value
    if any(kind.__module__.startswith("evalmark.") for kind in type(error).__mro__):
        return True
    return isinstance(error, AssertionError) and _inside(excinfo.traceback[-1], _PACKAGE)


def _user_frames(node: pytest.Item | pytest.Collector, excinfo: Any) -> Any:
    """The traceback from the first frame in the test's file on, without evalmark's frames."""
    entries = list(excinfo.traceback)
    test_file = Path(node.path).resolve()
    first = next((i for i, e in enumerate(entries) if _inside(e, test_file)), len(entries))
    return type(excinfo.traceback)([e for e in entries[first:] if not _inside(e, _PACKAGE)])


_REPRS = ("repr_failure", "_repr_failure_py")  # a test's call failure; setup and collection


def _hiding(node: pytest.Item | pytest.Collector, name: str) -> Any:
    """``node``'s method ``name`` (a failure's representation) showing, for an error evalmark
    raised on purpose, only the user's frames and the message (``--full-trace`` still shows
    everything)."""
    original = getattr(node, name)

    def represent(excinfo: pytest.ExceptionInfo[BaseException], *args: Any, **kw: Any) -> Any:
        style = node.config.getoption("tbstyle", "auto")
        fulltrace = node.config.getoption("fulltrace", False)
        if fulltrace or style not in ("auto", "short", "long") or not _ours(excinfo):
            return original(excinfo, *args, **kw)
        excinfo.traceback = _user_frames(node, excinfo)
        return excinfo.getrepr(style="long" if style == "long" else "short", tbfilter=False)

    return represent


def _hide_frames(node: pytest.Item | pytest.Collector) -> None:
    for name in _REPRS:
        node.__dict__[name] = _hiding(node, name)


def _show_frames(node: pytest.Item | pytest.Collector) -> None:
    for name in _REPRS:
        node.__dict__.pop(name, None)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, Any]:
    """Hide evalmark's frames in a test's failure (see :func:`_hiding`); with
    ``--evalmark-show-scores``, give the call's report the test's score line."""
    _hide_frames(item)
    try:
        report: Any = yield
    finally:
        _show_frames(item)
    state = item.config.stash.get(_PLUGIN_KEY, None)
    if call.when == "call" and state is not None and state.show_scores:
        made = REGISTRY.entries()[item.stash.get(_FIRST_ENTRY, 0) :]
        if made:
            from evalmark.pytest._scores import score_text

            report.user_properties.append((_SCORE_KEY, score_text(made)))
    return report


@pytest.hookimpl(wrapper=True)
def pytest_report_teststatus(report: pytest.TestReport, config: pytest.Config) -> Iterator[Any]:
    """Add an evaluation test's score line to its status word (``PASSED [score ...]``)."""
    status = yield
    shown = [v for k, v in getattr(report, "user_properties", ()) if k == _SCORE_KEY]
    if not shown or report.when != "call" or not isinstance(status, tuple) or len(status) != 3:
        return status
    category, letter, word = status
    if isinstance(word, tuple):
        return category, letter, (f"{word[0]} [{shown[0]}]", word[1])
    return category, letter, f"{word} [{shown[0]}]" if word else word


@pytest.hookimpl(wrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Iterator[Any]:
    """Hide evalmark's frames in a collection error (a bad sample file read by
    ``per_sample`` while the test module is imported)."""
    _hide_frames(collector)
    try:
        return (yield)
    finally:
        _show_frames(collector)


# --------------------------------------------------------------------------- xdist and the report


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Workers send their reports to the controller; the controller writes the suite report."""
    config = session.config
    state = config.stash.get(_PLUGIN_KEY, None)
    if state is None:
        return
    entries = REGISTRY.entries()
    if _is_worker(config):
        from evalmark.report._github import github_enabled
        from evalmark.report._output import render_report

        with_logs = github_enabled(state.github) and state.report_dir is not None
        if with_logs:
            from evalmark.pytest._github import inspect_log_of
        config.workeroutput[_WORKER_KEY] = [  # type: ignore[attr-defined]
            {
                "name": entry.name,
                "report": render_report(entry.report, "json"),
                "sources": entry.sources,
                "inspect": inspect_log_of(entry) if with_logs else None,
            }
            for entry in entries
        ]
        return
    if not entries and not state.worker_payloads and not (state.report_dir or state.baseline):
        return  # nothing to report: the engine is never imported
    from evalmark.pytest._session import finish_session

    merged = [*entries, *_from_workers(state.worker_payloads)]
    outcome = finish_session(
        merged, state.report_dir, state.baseline, state.max_drop, state.formats, state.stem
    )
    state.summary_lines = outcome.lines
    state.failure = outcome.failure
    from evalmark.report._github import github_enabled

    if merged and github_enabled(state.github):
        from evalmark.pytest._github import session_github

        written = [] if state.report_dir is None else _inspect_logs(merged, state)
        state.github_lines = session_github(merged, state.places, outcome.failure, written)
    if outcome.failure is not None and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _inspect_logs(entries: list[RegisteredReport], state: SessionState) -> list[Path]:
    """The inspect logs of ``--evalmark-github`` beside the suite report; one that cannot be
    written is a warning line (the logs never change the session's verdict)."""
    from evalmark.pytest._github import write_inspect_logs

    try:
        return write_inspect_logs(entries, Path(str(state.report_dir)))
    except (OSError, ValueError) as exc:
        state.summary_lines.append(f"evalmark: warning: inspect logs not written: {exc}")
        return []


def _from_workers(payloads: list[dict[str, Any]]) -> list[RegisteredReport]:
    from evalmark.report import Report

    return [
        RegisteredReport(
            p["name"],
            Report.from_json(p["report"], source=f"worker report {p['name']}"),
            {name: tuple(s) for name, s in (p.get("sources") or {}).items()},
            inspect_log=p.get("inspect"),
        )
        for p in payloads
    ]


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: Any) -> None:
    """Collect the reports a pytest-xdist worker sent back."""
    state = node.config.stash.get(_PLUGIN_KEY, None)
    output = getattr(node, "workeroutput", {})
    if state is not None:
        state.worker_payloads.extend(output.get(_WORKER_KEY, []))


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """Print the evaluation summary table and the baseline verdict."""
    state = config.stash.get(_PLUGIN_KEY, None)
    if state is None or not state.summary_lines:
        return
    for line in state.github_lines:  # GitHub reads its annotations from the output
        terminalreporter.write_line(line)
    terminalreporter.write_sep("=", "evalmark")
    for line in state.summary_lines:
        terminalreporter.write_line(line)
    if state.failure is not None:
        terminalreporter.write_line(state.failure, red=True, bold=True)
