"""CPU time of the one-pass scan of a common inspect_ai `.json` log (`scan_common`) against the
typed msgspec decoding it stands in for (`read_common`), on the log of bench/import_rescore.py.

    python bench/inspect_scan.py                 # 100,000 samples
    python bench/inspect_scan.py --n 20000

Both run in this process on the same bytes, each timed five times (CPU time of the process,
the best kept); `read_common` is also timed with the columns the re-score reads taken from
its typed samples, which the scan returns ready. It checks that both give the same columns
and prints the ratios (scan / decoding). Nothing here fails a build.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from evalmark.interop._inspect_common import read_common  # noqa: E402
from evalmark.interop._inspect_scan import scan_common  # noqa: E402
from import_rescore import generate  # noqa: E402

SCORERS = ("match",)


def best(job: Callable[[], Any], times: int = 5) -> float:
    """The least CPU time of ``times`` runs of ``job`` (its result freed untimed)."""
    spent = []
    for _ in range(times):
        gc.collect()
        started = time.process_time()
        result = job()
        spent.append(time.process_time() - started)
        del result
    return min(spent)


def columns(path: Path, data: bytes) -> tuple[Any, ...]:
    """What the re-score reads, from ``read_common``'s typed samples."""
    found = read_common(path, data)
    assert found is not None
    header, rows = found
    typed = rows.typed
    return (
        dict(header),
        [s.id for s in typed],
        [s.epoch for s in typed],
        [s.target for s in typed],
        [s.output.completion for s in typed],
        [[s.scores[name].value for s in typed] for name in SCORERS],
    )


def main() -> None:
    """Write the log, time both readings, check their columns, print the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--n", type=int, default=100_000, help="samples (default 100,000)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = generate(args.n, Path(tmp), False)["json"]
        data = path.read_bytes()
    scanned = scan_common(data, SCORERS)
    assert scanned is not None and tuple(scanned) == columns(path, data), "columns differ"
    scan = best(lambda: scan_common(data, SCORERS))
    read = best(lambda: read_common(path, data))
    read_columns = best(lambda: columns(path, data))
    print(f"{args.n} samples, {len(data) / 1e6:.0f} MB; CPU seconds, best of 5")
    print(f"scan_common                 {scan:.3f}")
    print(f"read_common                 {read:.3f}   ratio {scan / read:.2f}")
    print(f"read_common + its columns   {read_columns:.3f}   ratio {scan / read_columns:.2f}")


if __name__ == "__main__":
    main()
