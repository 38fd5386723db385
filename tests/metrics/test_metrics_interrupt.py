"""Ctrl-C stops every long kernel call: KeyboardInterrupt within a bounded time, no worker left
computing, and the same results as before when nothing interrupts."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time

import pytest

import evalmark.metrics as em

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="SIGINT semantics")

# Each call below takes tens of seconds to minutes when left alone (n·m/64 word operations
# for texts of millions of characters or tokens). The Levenshtein texts differ in length by
# 100, more than the kernel's band of 64 diagonals holds: the full recurrence runs.
CALLS = {
    "levenshtein_distance": "em.levenshtein_distance('ab' * 1_500_000, 'ba' * 1_500_050)",
    "levenshtein_similarity_batch": (
        "em.levenshtein_similarity_batch(['x', 'ab' * 1_500_000], ['y', 'ba' * 1_500_050],"
        " workers=2)"
    ),
    "levenshtein_non_ascii": (
        "em.levenshtein_distance(''.join(chr(0x4E00 + i % 997) for i in range(2_000_000)),"
        " ''.join(chr(0x4E00 + i % 991) for i in range(2_000_000)))"
    ),
    "rouge_l": "em.rouge_l('a b c d ' * 400_000, 'd c b a ' * 400_000)",
    "rouge_l_batch": (
        "em.rouge_l_batch(['a b c d ' * 400_000] * 2, ['d c b a ' * 400_000] * 2, workers=2)"
    ),
    "rouge_lsum": "em.rouge_lsum('a b c d ' * 300_000, 'd c b a ' * 300_000)",
}

CHILD = textwrap.dedent(
    """
    import os, sys, time
    import evalmark.metrics as em
    print("ready", flush=True)
    started = time.monotonic()
    try:
        {call}
    except KeyboardInterrupt:
        stopped = time.monotonic()
        cpu = sum(os.times()[:2])
        time.sleep(0.5)
        busy = sum(os.times()[:2]) - cpu  # CPU time of any worker still running
        print(f"interrupted {{stopped - started:.2f}} {{busy:.2f}}", flush=True)
        sys.exit(130)
    print("finished", flush=True)
    """
)


def interrupt(script: str, *, after: float, timeout: float) -> tuple[str, str, int, float, float]:
    """Run ``script`` in a child Python, send it SIGINT ``after`` seconds past its "ready"
    line; its output, error text, exit code, when SIGINT was sent, and how long it took to exit."""
    child = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "ready"
        time.sleep(after)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        out, err = child.communicate(timeout=timeout)
        waited = time.monotonic() - sent
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    return out, err, child.returncode, sent, waited


@pytest.mark.parametrize("name", sorted(CALLS))
def test_sigint_stops_a_long_call_quickly(name: str) -> None:
    out, err, code, _, waited = interrupt(CHILD.format(call=CALLS[name]), after=1.0, timeout=15)
    assert code == 130, (out, err)
    word, _, busy = out.split()
    assert word == "interrupted"
    assert waited < 5.0, f"{name}: exited {waited:.2f} s after SIGINT"
    assert float(busy) < 0.2, f"{name}: workers kept computing after KeyboardInterrupt"


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
    "bleu_intl": "em.bleu([a], b, tokenizer='intl')",
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

# Texts with a character outside ASCII take the general tokenizers of ROUGE-L and token F1.
UNICODE_TEXTS = "a = 'zürich cafés ' * 10_000_000\nb = 'cafés zürich ' * 10_000_000"

# The rows of each call: two texts of 195 MB, or JSON documents: arrays of 48,000,000 numbers
# (192 MB of floats), a 390 MB string with an escape every 15 bytes (a string is read so fast
# that a 195 MB one is done within a second anyway).
ROWS = {
    "json_match_array": (
        "floats = '[' + ','.join(['1.0'] * 48_000_000) + ']'\n"
        "ints = '[' + ','.join(['1'] * 48_000_000) + ']'"
    ),
    "canonical_json_array": "floats = '[' + ','.join(['1.0'] * 48_000_000) + ']'",
    "json_match_string": "escaped = '\"' + 'abcdefghijklm\\\\n' * 26_000_000 + '\"'",
    "rouge_l_unicode": UNICODE_TEXTS,
    "rouge_l_unicode_tokenizer": UNICODE_TEXTS,
    "token_f1_unicode": UNICODE_TEXTS,
}
TEXTS = "a = 'abcdefghijklmn ' * 13_000_000\nb = 'nmlkjihgfedcba ' * 13_000_000"

HUGE_ROW_CHILD = textwrap.dedent(
    """
    import sys, time
    import evalmark.metrics as em
    {rows}
    print("ready", flush=True)
    try:
        {call}
    except KeyboardInterrupt:
        print(f"interrupted {{time.monotonic():.6f}}", flush=True)
        sys.exit(130)
    print("finished", flush=True)
    """
)


@pytest.mark.parametrize("name", sorted(HUGE_ROW_CALLS))
def test_sigint_stops_one_huge_row_within_a_second(name: str) -> None:
    script = HUGE_ROW_CHILD.format(rows=ROWS.get(name, TEXTS), call=HUGE_ROW_CALLS[name])
    out, err, code, sent, waited = interrupt(script, after=0.5, timeout=30)
    assert code == 130, (out, err)
    word, caught = out.split()
    assert word == "interrupted"
    assert float(caught) - sent < 1.0, f"{name}: stopped {float(caught) - sent:.2f} s after SIGINT"
    assert waited < 1.0, f"{name}: exited {waited:.2f} s after SIGINT"
