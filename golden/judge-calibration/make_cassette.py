"""Record judge.jsonl: the replies of the judge "support-judge-v1" to every labelled item.

The replies are in judge-replies.jsonl, written by hand: most agree with the labels, eight do
not (false passes and false fails of the kinds real judges make) and one holds no JSON. This
script plays them through evalmark's own judge (the settings `evalmark judge calibrate` uses
by default) and records the calls, so the calibration replays offline. Run it again after a
catalog prompt used here changes (the recorded requests hold the prompt's text):

    python golden/judge-calibration/make_cassette.py
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "python"))

from evalmark.calibration import calibrate, load_labels  # noqa: E402
from evalmark.models import ChatReply, record_replay  # noqa: E402
from evalmark.models._context import current_call  # noqa: E402

MODEL_ID = "support-judge-v1"


class AuthoredJudge:
    """Answers each item's judge call with the reply written for it."""

    model_id = MODEL_ID
    default_params: Mapping[str, Any] = {}

    def __init__(self, replies: Mapping[str, str]) -> None:
        self.replies = replies

    def chat(self, messages: Sequence[Any], **params: Any) -> ChatReply:
        context = current_call()
        assert context is not None, "the calibration names each call by its item"
        return ChatReply(text=self.replies[context.sample])


def main(cassette: Path = HERE / "judge.jsonl") -> Path:
    """Re-record ``cassette`` from the labels and the written replies."""
    lines = (HERE / "judge-replies.jsonl").read_text(encoding="utf-8").splitlines()
    replies = {row["id"]: row["reply"] for row in map(json.loads, lines)}
    judge = record_replay(AuthoredJudge(replies), cassette, mode="rewrite")
    with judge.buffered():
        calibrate(load_labels(HERE / "labels.jsonl"), judge)
    return cassette


if __name__ == "__main__":
    print(f"recorded {main()}")
