"""The reply shape written as text, as ``evalmark judge`` and ``evalmark prompts`` take it."""

from __future__ import annotations

import pytest

from evalmark.models._structured.shape import ResponseSpec, score_options


@pytest.mark.parametrize(
    ("text", "options"),
    [
        (None, {"score": None}),
        ("bool", {"score": "bool"}),
        ("continuous", {"score": "continuous"}),
        ("0,0.5,1", {"choices": [0.0, 0.5, 1.0]}),
        ("2", {"choices": [2.0]}),
    ],
)
def test_score_text_reads_as_the_reply_shape_options(
    text: str | None, options: dict[str, object]
) -> None:
    assert score_options(text) == options


def test_score_text_that_is_no_shape_is_refused() -> None:
    with pytest.raises(ValueError, match="'high': give bool, continuous, or choices"):
        score_options("high")
    with pytest.raises(ValueError, match="'0,,1'"):
        score_options("0,,1")


def test_the_options_build_the_shape_they_name() -> None:
    assert ResponseSpec.build(**score_options("continuous")).kind == "continuous"
    spec = ResponseSpec.build(**score_options("0,0.5,1"))
    assert (spec.kind, spec.choices) == ("choices", (0.0, 0.5, 1.0))
