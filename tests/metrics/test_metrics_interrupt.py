"""Ctrl-C stops every long kernel call: KeyboardInterrupt after little work, no worker left
computing, and the same results as before when nothing interrupts.

The bounds are on the child's CPU time, not on wall time, so that a busy machine cannot fail
them: the child first times the same call on a slice of its input (the reference), which
estimates what the whole call costs on this machine; SIGINT is sent once the call has used an
eighth of that (at most half a CPU second), and the call must then stop within a quarter of the
work it had left (at most 3 CPU seconds). A kernel that ignored Ctrl-C would do all of it.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap

import pytest

import evalmark.metrics as em
from children import CPU_CLOCK, LineReader, wait_for_cpu

needs_cpu_clock = pytest.mark.skipif(
    sys.platform == "win32" or not CPU_CLOCK, reason="SIGINT, and the child's CPU clock in /proc"
)

# The reference call runs on rows built from N // SLICE[growth]; the whole call costs about
# SLICE[growth] ** growth times as much (growth 1 for the linear kernels, 2 for the quadratic
# ones). A fraction of a second for the reference either way.
SLICE = {1: 64, 2: 256}
# Wall-clock limits that only a hung child reaches.
STARTUP_TIMEOUT = 240.0
STOP_TIMEOUT = 120.0

# Each call below takes tens of seconds to minutes when left alone (n·m/64 word operations
# for texts of millions of characters or tokens). The Levenshtein texts differ in length by
# 100, more than the kernel's band of 64 diagonals holds: the full recurrence runs.
AB = "a = 'ab' * N\nb = 'ba' * (N + 50)"
ABCD = "a = 'a b c d ' * N\nb = 'd c b a ' * N"
WIDE = (
    "a = ''.join(chr(0x4E00 + i % 997) for i in range(N))\n"
    "b = ''.join(chr(0x4E00 + i % 991) for i in range(N))"
)
CALLS = {
    "levenshtein_distance": (AB, 1_500_000, "em.levenshtein_distance(a, b)"),
    "levenshtein_similarity_batch": (
        AB,
        1_500_000,
        "em.levenshtein_similarity_batch(['x', a], ['y', b], workers=2)",
    ),
    "levenshtein_non_ascii": (WIDE, 2_000_000, "em.levenshtein_distance(a, b)"),
    "rouge_l": (ABCD, 400_000, "em.rouge_l(a, b)"),
    "rouge_l_batch": (ABCD, 400_000, "em.rouge_l_batch([a] * 2, [b] * 2, workers=2)"),
    "rouge_lsum": (ABCD, 300_000, "em.rouge_lsum(a, b)"),
}

CHILD = textwrap.dedent(
    """
    import os, sys, time
    import evalmark.metrics as em

    # The lowest priority: on a busy machine the parent, which watches this child's CPU clock
    # to send SIGINT early in the call, is scheduled before the child runs on to the end.
    os.nice(19)

    def rows(N):
    {rows}
        return locals()

    def call(env):
        return eval({call!r}, {{"em": em}}, env)

    call(rows(1))  # warm up: a first call pays one-time setup (imports, tables, threads)
    began = time.process_time()
    call(rows({n} // {slice}))
    reference = time.process_time() - began
    env = rows({n})
    print("ready", reference, time.process_time(), flush=True)
    try:
        call(env)
    except KeyboardInterrupt:
        print("interrupted", time.process_time(), flush=True)
        if {idle}:
            time.sleep(0.5)
            print("idle", time.process_time(), flush=True)  # CPU of any worker still running
        sys.exit(130)
    print("finished", flush=True)
    """
)


def interrupt(rows: str, n: int, call: str, growth: int, idle: bool = False) -> dict[str, float]:
    """Run ``call`` in a child Python on rows built from ``n``, send it SIGINT once it has done
    an eighth of its estimated work (at most 0.5 CPU seconds); the child's CPU clock at each
    step: ``full`` (estimated cost of the whole call), ``started``, ``sent``, ``interrupted``,
    and with ``idle`` half a second after the KeyboardInterrupt."""
    body = textwrap.indent(rows, "    ")
    script = CHILD.format(rows=body, call=call, n=n, slice=SLICE[growth], idle=idle)
    child = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.STDOUT
    )
    try:
        assert child.stdout is not None
        reader = LineReader(child.stdout)
        ready = reader.line(timeout=STARTUP_TIMEOUT).split()
        assert ready[:1] == ["ready"], (ready, reader.rest(child, timeout=STOP_TIMEOUT))
        full = float(ready[1]) * SLICE[growth] ** growth
        started = float(ready[2])
        sent = wait_for_cpu(child, started + min(full / 8, 0.5), timeout=STARTUP_TIMEOUT)
        child.send_signal(signal.SIGINT)
        out = reader.rest(child, timeout=STOP_TIMEOUT)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=30)
        if child.stdout is not None:
            child.stdout.close()
    assert child.returncode == 130, out
    clock = {"full": full, "started": started, "sent": sent}
    for line in out.splitlines():
        word, _, value = line.partition(" ")
        if word in ("interrupted", "idle"):
            clock[word] = float(value)
    assert "interrupted" in clock, out
    return clock


def check_stopped(name: str, clock: dict[str, float]) -> None:
    """The call stopped within a quarter of the work it had left when SIGINT came."""
    left = clock["full"] - (clock["sent"] - clock["started"])
    bound = min(left / 4, 3.0)
    used = clock["interrupted"] - clock["sent"]
    assert used < bound, (
        f"{name}: {used:.2f} CPU s after SIGINT; bound {bound:.2f} s, a quarter of the "
        f"{left:.2f} s the call had left ({clock})"
    )


@needs_cpu_clock
@pytest.mark.parametrize("name", sorted(CALLS))
def test_sigint_stops_a_long_call_quickly(name: str) -> None:
    rows, n, call = CALLS[name]
    clock = interrupt(rows, n, call, growth=2, idle=True)
    check_stopped(name, clock)
    busy = clock["idle"] - clock["interrupted"]
    assert busy < 0.2, f"{name}: workers kept computing after KeyboardInterrupt ({busy:.2f} s)"


def test_results_are_unchanged_by_the_stop_checks() -> None:
    # Long enough for the masks path, the table path and the stop checks of every kernel.
    a = ("the quick brown fox jumps over the lazy dog " * 300).strip()
    b = ("a lazy dog sleeps while the quick fox runs " * 300).strip()
    assert em.levenshtein_distance(a, b) == em.levenshtein_distance_batch([a], [b], workers=1)[0]
    wide_a = "".join(chr(0x4E00 + (i * 7) % 400) for i in range(9000))
    wide_b = "".join(chr(0x4E00 + (i * 11) % 400) for i in range(9000))
    d = em.levenshtein_distance(wide_a, wide_b)
    assert d == em.levenshtein_distance(wide_b, wide_a)
    for workers in (1, 2):
        got = em.levenshtein_distance_batch([wide_a, a], [wide_b, b], workers=workers)
        assert got.tolist() == [d, em.levenshtein_distance(a, b)]
        rouge = em.rouge_l_batch([a, b], [b, a], workers=workers)
        assert rouge.tolist() == [em.rouge_l(a, b), em.rouge_l(b, a)]


# One row of about 195 MB a side: the linear kernels poll the stop flag every 1 MiB or so of
# input inside the row (tokenizing, counting, zeroing their tables), not only between rows.
HUGE_ROW_CALLS = {
    "token_f1": "em.token_f1(a, b)",
    "bleu_13a": "em.bleu([a], b)",
    "bleu_intl": "em.bleu([a], b, tokenize='intl')",
    "bleu_lowercase": "em.bleu([a], b, lowercase=True)",
    "chrf": "em.chrf([a], b)",
    "chrf_pp": "em.chrf([a], b, word_order=2)",
    "chrf_lowercase": "em.chrf([a], b, lowercase=True)",
    "corpus_chrf": "em.corpus_chrf([[a]], [b])",
    "rouge_n": "em.rouge_n(a, b, n=2)",
    "rouge_n_porter": "em.rouge_n(a, b, stemmer='porter')",
    "rouge_lsum": "em.rouge_lsum(a, b)",
    "rouge_l": "em.rouge_l(a, b)",
    "rouge_l_porter": "em.rouge_l(a, b, stemmer='porter')",
    "rouge_l_unicode": "em.rouge_l(a, b)",
    "rouge_l_unicode_tokenizer": "em.rouge_l(a, b, tokenizer='unicode')",
    "token_f1_unicode": "em.token_f1(a, b)",
    "json_match_array": "em.json_match(floats, ints)",
    "json_match_string": "em.json_match(escaped, escaped)",
    "canonical_json_array": "em.canonical_json(floats)",
}

# The LCS of ROUGE-L and ROUGE-Lsum is quadratic: hours for these rows, once tokenized.
QUADRATIC = {
    "rouge_l",
    "rouge_l_porter",
    "rouge_l_unicode",
    "rouge_l_unicode_tokenizer",
    "rouge_lsum",
}

# Texts with a character outside ASCII take the general tokenizers of ROUGE-L and token F1.
UNICODE_TEXTS = ("a = 'zürich cafés ' * N\nb = 'cafés zürich ' * N", 10_000_000)

# The rows of each call, built from N: two texts of 195 MB, or JSON documents: arrays of
# 48,000,000 numbers (192 MB of floats), a 390 MB string with an escape every 15 bytes (a
# string is read so fast that a 195 MB one is done within a second anyway).
ROWS = {
    "json_match_array": (
        "floats = '[' + '1.0,' * (N - 1) + '1.0]'\nints = '[' + '1,' * (N - 1) + '1]'",
        48_000_000,
    ),
    "canonical_json_array": ("floats = '[' + '1.0,' * (N - 1) + '1.0]'", 48_000_000),
    "json_match_string": ("escaped = '\"' + 'abcdefghijklm\\\\n' * N + '\"'", 26_000_000),
    "rouge_l_unicode": UNICODE_TEXTS,
    "rouge_l_unicode_tokenizer": UNICODE_TEXTS,
    "token_f1_unicode": UNICODE_TEXTS,
}
TEXTS = ("a = 'abcdefghijklmn ' * N\nb = 'nmlkjihgfedcba ' * N", 13_000_000)


@needs_cpu_clock
@pytest.mark.parametrize("name", sorted(HUGE_ROW_CALLS))
def test_sigint_stops_one_huge_row_early(name: str) -> None:
    rows, n = ROWS.get(name, TEXTS)
    growth = 2 if name in QUADRATIC else 1
    check_stopped(name, interrupt(rows, n, HUGE_ROW_CALLS[name], growth=growth))
