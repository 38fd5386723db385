"""The secret scanner: the built-in patterns, their word boundaries, and redaction."""

from __future__ import annotations

import re

from hypothesis import given
from hypothesis import strategies as st

from evalmark.models.secrets import BUILTIN_PATTERNS, SecretScanner, redact_pattern

REFERENCE = [(label, re.compile(source)) for label, source in BUILTIN_PATTERNS]

fragments = st.sampled_from(
    ["sk-", "Bearer ", "AKIA", "ghp_", "xoxb-", "ASIA", "risk-", "x", "_", "é", " ", "-", "7"]
)
chunks = st.text(alphabet="abcdefghijKLMNOPQRST0123456789_-", min_size=0, max_size=24)
texts = st.lists(st.one_of(fragments, chunks), max_size=12).map("".join)


def _reference_label(text: str) -> str | None:
    for label, pattern in REFERENCE:
        if pattern.search(text):
            return label
    return None


@given(texts)
def test_scanner_finds_what_the_reference_patterns_find(text: str) -> None:
    hit = SecretScanner().first_hit(text)
    assert (hit[0] if hit else None) == _reference_label(text)


def test_words_that_merely_contain_a_prefix_are_not_secrets() -> None:
    scanner = SecretScanner()
    assert scanner.first_hit("our risk-management-framework-2024 document") is None
    assert scanner.first_hit("the task-abcdefghijklmnopqrstuvw id") is None
    assert scanner.first_hit("use sk-abcdefghijklmnopqrstuvw now") is not None


def test_user_patterns_and_redaction() -> None:
    scanner = SecretScanner([r"ACME-\d{6}"])
    assert scanner.first_hit("ticket ACME-123456") == ("user pattern 'ACME-\\\\d{6}'", "ACME-1…")
    redact = redact_pattern(r"ACME-\d{6}", "<TICKET>")
    request = {"messages": [{"role": "user", "content": "ticket ACME-123456"}], "n": 1}
    assert redact(request) == {"messages": [{"role": "user", "content": "ticket <TICKET>"}], "n": 1}
