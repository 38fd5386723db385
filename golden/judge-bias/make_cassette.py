"""Record judge.jsonl: the pairwise verdicts of the judge "nimbus-judge-1" for the bias battery.

The verdicts are in judge-replies.jsonl, written by hand for each pair as given, swapped and
with answer A padded (see README.md). This script plays them through `evalmark judge bias`'s
own calls and records them, so the battery replays offline. Run it again after the pairwise
prompt changes (the recorded requests hold the prompt's text):

    python golden/judge-bias/make_cassette.py
"""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "python"))

from evalmark.calibration._bias import load_bias_items, run_bias_battery  # noqa: E402
from evalmark.models import ChatReply, record_replay  # noqa: E402
from evalmark.models._context import current_call  # noqa: E402

MODEL_ID = "nimbus-judge-1"


class AuthoredJudge:
    """Answers each call with the verdict written for its pair and its test."""

    model_id = MODEL_ID
    default_params: Mapping[str, Any] = {}

    def __init__(self, verdicts: Mapping[str, Mapping[str, str]]) -> None:
        self.verdicts = verdicts

    def chat(self, messages: Sequence[Any], **params: Any) -> ChatReply:
        context = current_call()
        assert context is not None, "the battery names each call by its pair and test"
        test = context.check.removeprefix("bias:")
        winner = self.verdicts[context.sample][test]
        reasoning = f"Compared on correctness first ({test} order)."
        return ChatReply(text=json.dumps({"reasoning": reasoning, "winner": winner}))


def main(cassette: Path = HERE / "judge.jsonl") -> Path:
    """Re-record ``cassette`` from the pairs and the written verdicts."""
    lines = (HERE / "judge-replies.jsonl").read_text(encoding="utf-8").splitlines()
    verdicts = {row["id"]: row for row in map(json.loads, lines)}
    judge = record_replay(AuthoredJudge(verdicts), cassette, mode="rewrite")
    with judge.buffered():
        run_bias_battery(load_bias_items(HERE / "pairs.jsonl"), judge)
    return cassette


if __name__ == "__main__":
    print(f"recorded {main()}")
