"""``evalmark score`` on rows of tens of megabytes under a memory cap: chunks end after a
number of bytes as well as rows, so memory stays bounded whatever the width of the rows; and
running out of memory is one line naming the row, exit 2, never a traceback.

Each run is a subprocess with ``RLIMIT_AS`` set, and a timeout. The cap is set above the
address space the same command takes on a one-row file, measured first on this machine."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

resource = pytest.importorskip("resource")
pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="reads /proc/self/status")

MiB = 1 << 20
WORDS = "alpha beta gamma delta epsilon zeta eta theta "  # 48 bytes
# Runs the command line in this process and prints its peak address space (VmPeak, kB).
PEAK = """
import sys
from evalmark.cli import main
code = main(sys.argv[1:])
peak = next(l for l in open("/proc/self/status") if l.startswith("VmPeak"))
print("VMPEAK", int(peak.split()[1]), file=sys.stderr)
sys.exit(code)
"""


def _row(index: int, size: int) -> bytes:
    text = (WORDS * (size // len(WORDS) + 1))[:size]
    return b'{"id": "r%d", "expected": "%s", "actual": "%s"}\n' % (
        index,
        text.encode(),
        text[::-1].encode(),
    )


def _score(path: Path, cap: int | None) -> tuple[int, str, int | None]:
    def limit() -> None:
        if cap is not None:
            resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    done = subprocess.run(
        [sys.executable, "-c", PEAK, "score", str(path), "--metrics", "token_f1"],
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=limit,
        env={**os.environ, "MALLOC_ARENA_MAX": "2"},  # fewer reserved malloc arenas
    )
    peaks = [int(line.split()[1]) for line in done.stderr.splitlines() if "VMPEAK" in line]
    return done.returncode, done.stderr, peaks[0] * 1024 if peaks else None


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> int:
    small = tmp_path_factory.mktemp("small") / "one.jsonl"
    small.write_bytes(_row(0, 100))
    code, err, peak = _score(small, None)
    assert code == 0 and peak is not None, err
    return peak


def test_wide_rows_are_scored_in_bounded_memory(tmp_path: Path, baseline: int) -> None:
    wide = tmp_path / "wide.jsonl"
    with wide.open("wb") as out:
        for index in range(8):
            out.write(_row(index, 10 * MiB))  # 20 MiB a row, 160 MiB in all
    # Read whole (the rows of one chunk at once), the file alone needs more than the cap
    # allows above the baseline; read a few rows at a time it fits with room to spare.
    code, err, _ = _score(wide, baseline + 220 * MiB)
    assert code == 0, err


def test_running_out_of_memory_names_the_row(tmp_path: Path, baseline: int) -> None:
    wide = tmp_path / "one-huge-row.jsonl"
    with wide.open("wb") as out:
        out.write(_row(0, 100))
        out.write(_row(1, 80 * MiB))  # 160 MiB on line 2
    code, err, _ = _score(wide, baseline + 60 * MiB)
    lines = [line for line in err.splitlines() if line.strip() and "VMPEAK" not in line]
    assert code == 2, err
    assert len(lines) == 1 and "Traceback" not in err, err
    assert f"{wide}, line 2" in lines[0] and "memory" in lines[0]
