"""What the evalmark pytest plugin costs at pytest start-up.

    python bench/pytest_startup.py               # 15 runs of each, interleaved
    python bench/pytest_startup.py --runs 15

``pytest --co -q`` in an empty temporary project, with the plugin and without it
(``-p no:evalmark``), run alternately in fresh interpreters so that both see the same machine
load; each figure is the median of ``--runs`` runs, and the ratio is with / without. Then one
run with the plugin and one without say which evalmark modules and heavy dependencies (numpy,
the Rust extension, PyYAML, msgspec, asyncio) the plugin added. When evalmark is not installed as a
pytest plugin (no ``pytest11`` entry point), it is loaded with ``-p evalmark.pytest._plugin``.
Nothing here fails a build.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from importlib.metadata import entry_points
from pathlib import Path

HEAVY = ("numpy", "evalmark._core", "yaml", "msgspec", "asyncio")

_PROBE = """
import sys
import pytest
pytest.main(sys.argv[1:])
loaded = sorted(m for m in sys.modules if m == "evalmark" or m.startswith("evalmark."))
heavy = [m for m in {heavy!r} if m in sys.modules]
print("EVALMARK-MODULES", ",".join(loaded))
print("EVALMARK-HEAVY", ",".join(heavy))
"""


def plugin_arguments() -> tuple[list[str], list[str]]:
    """The pytest arguments that load the plugin, and those that leave it out."""
    installed = any(e.name == "evalmark" for e in entry_points(group="pytest11"))
    if installed:
        return [], ["-p", "no:evalmark"]
    return ["-p", "evalmark.pytest._plugin"], []


def run_once(project: Path, extra: list[str]) -> float:
    """Wall time (seconds) of one ``pytest --co -q`` in a fresh interpreter."""
    command = [sys.executable, "-m", "pytest", "--co", "-q", "-p", "no:cacheprovider", *extra]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=project, capture_output=True, text=True, env=_env())
    elapsed = time.perf_counter() - start
    if done.returncode not in (0, 5):  # 5: no tests collected, as expected in an empty project
        raise SystemExit(f"pytest failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return elapsed


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("PYTEST_ADDOPTS", None)
    env.pop("PYTEST_PLUGINS", None)
    return env


def probe(project: Path, extra: list[str]) -> tuple[str, str]:
    """The evalmark modules and heavy dependencies loaded by a pytest run with ``extra``."""
    code = _PROBE.format(heavy=HEAVY)
    command = [sys.executable, "-c", code, "--co", "-q", "-p", "no:cacheprovider", *extra]
    done = subprocess.run(command, cwd=project, capture_output=True, text=True, env=_env())
    found: dict[str, str] = {}
    for line in done.stdout.splitlines():
        if line.startswith("EVALMARK-"):
            key, _, value = line.partition(" ")
            found[key] = value
    return found.get("EVALMARK-MODULES", "?"), found.get("EVALMARK-HEAVY", "?")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=15, help="runs of each, interleaved (15)")
    args = parser.parse_args()
    with_plugin, without_plugin = plugin_arguments()
    with tempfile.TemporaryDirectory(prefix="evalmark-startup-") as folder:
        project = Path(folder)
        (project / "pyproject.toml").write_text("[tool.pytest.ini_options]\n", encoding="utf-8")
        run_once(project, with_plugin)  # warm the file cache for both
        timings: dict[str, list[float]] = {"with": [], "without": []}
        for _ in range(args.runs):
            timings["with"].append(run_once(project, with_plugin))
            timings["without"].append(run_once(project, without_plugin))
        modules, heavy = probe(project, with_plugin)
        _, heavy_anyway = probe(project, without_plugin)
    with_ms = statistics.median(timings["with"]) * 1000
    without_ms = statistics.median(timings["without"]) * 1000
    print(f"pytest --co -q in an empty project, median of {args.runs} interleaved runs")
    print(f"  with the evalmark plugin    {with_ms:8.1f} ms")
    print(f"  without it (-p no:evalmark) {without_ms:8.1f} ms")
    print(f"  ratio with / without        {with_ms / without_ms:8.3f}")
    print(f"  plugin cost                 {with_ms - without_ms:+8.1f} ms")
    by_plugin = sorted(set(heavy.split(",")) - set(heavy_anyway.split(",")) - {""})
    print(f"evalmark modules loaded:        {modules or 'none'}")
    print(f"heavy modules loaded by pytest: {heavy_anyway or 'none'} (without the plugin too)")
    print(f"heavy modules the plugin added: {', '.join(by_plugin) or 'none'}")


if __name__ == "__main__":
    main()
