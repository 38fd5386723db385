"""What the network guard costs: a metric batch with and without the guard, in one run.

    python bench/offline.py            # 100,000 pairs of the shared workload
    python bench/offline.py --n 20000 --rounds 7

The guard patches socket-level calls only, so a metric batch (no socket call at all) should
run at the same speed with the guard open: the script times ``token_f1_batch`` and
``rouge_l_batch`` over the same pairs without a guard and with ``evalmark.offline()``
installed, alternating within each round (best of ``--rounds``), and prints the ratio. It then
times the calls the guard does touch: a TCP connect to a loopback port nothing listens on
(refused at once) and a lookup of ``localhost``, with and without the guard, and prints the
added microseconds per call. Nothing leaves the machine; nothing here fails a build.
"""

from __future__ import annotations

import argparse
import gc
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import evalmark.metrics as em  # noqa: E402
import workload  # noqa: E402
from evalmark.offline import offline  # noqa: E402


def once(fn: Callable[[], Any]) -> float:
    """Seconds for one call."""
    gc.collect()
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def paired(rounds: int, bare: Callable[[], Any], guarded: Callable[[], Any]) -> tuple[float, float]:
    """Best seconds of ``bare`` and of ``guarded`` (run under an installed guard), alternating
    within each round so that a change of machine load weighs on both alike."""
    best_bare = best_guarded = float("inf")
    for _ in range(rounds):
        best_bare = min(best_bare, once(bare))
        guard = offline().install()
        try:
            best_guarded = min(best_guarded, once(guarded))
        finally:
            guard.uninstall()
    return best_bare, best_guarded


def closed_loopback_port() -> int:
    """A loopback port nothing listens on: a connect is refused at once, with no server
    whose scheduling would weigh on the timing."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=100_000, help="pairs per batch")
    parser.add_argument("--rounds", type=int, default=5, help="alternating rounds (best of)")
    parser.add_argument("--connects", type=int, default=2000, help="loopback connects timed")
    args = parser.parse_args()

    expected, actual = workload.text_pairs(args.n, seed=0)
    print(f"network guard overhead, {args.n:,} pairs, best of {args.rounds} alternating rounds")
    print(f"{'call':<34}{'no guard':>14}{'guard open':>14}{'ratio':>9}")
    for name, run in [
        ("token_f1_batch (pairs/s)", lambda: em.token_f1_batch(expected, actual)),
        ("rouge_l_batch (pairs/s)", lambda: em.rouge_l_batch(expected, actual)),
    ]:
        bare, guarded = paired(args.rounds, run, run)
        print(f"{name:<34}{args.n / bare:>14,.0f}{args.n / guarded:>14,.0f}{guarded / bare:>9.3f}")

    address = ("127.0.0.1", closed_loopback_port())
    count = args.connects

    def connects() -> None:
        for _ in range(count):
            with socket.socket() as sock:
                sock.connect_ex(address)

    def lookups() -> None:
        for _ in range(count):
            socket.getaddrinfo("localhost", 80, type=socket.SOCK_STREAM)

    for name, run in [
        ("refused loopback connect (us)", connects),
        ("lookup localhost (us)", lookups),
    ]:
        bare, guarded = paired(args.rounds, run, run)
        per_bare, per_guarded = bare / count * 1e6, guarded / count * 1e6
        print(
            f"{name:<34}{per_bare:>14.1f}{per_guarded:>14.1f}{guarded / bare:>9.3f}"
            f"   (+{per_guarded - per_bare:.1f} us per call)"
        )
    print("ratio = time with the guard open / time without; 1.000 is no cost")


if __name__ == "__main__":
    main()
