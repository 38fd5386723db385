"""Record the two builds of the Tallybird chat assistant (and the persona user) for the demo.

The replies below were written by hand for the demo. ``healthy`` remembers what the customer
said; ``regressed`` is a later build that forgets the plan and purchase date the customer gave
in the first turn of ``refund-annual-team`` and asks for them again, while still stating every
expected fact. The persona user of ``sso-persona`` is recorded into ``users.jsonl``. All of it
goes through the same ``record_replay`` path a live model would take, and the conversations are
simulated as ``evalmark run`` simulates them, so ``evalmark run golden/support-chat --build
NAME`` replays them offline.

Run from the repository root to rewrite the three cassettes::

    python golden/support-chat/builds/make_builds.py
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evalmark import load_suite
from evalmark.conversation import simulate_many
from evalmark.conversation._simulate import Plan
from evalmark.engine._run import run_sync
from evalmark.models import ChatReply, record_replay
from evalmark.models._values import message_dicts
from evalmark.suite._conversation_run import (
    ConversationApplication,
    simulated_user,
    stop_condition,
)

HERE = Path(__file__).resolve().parent

OPENING = (
    "Hi, I'm the owner of our Tallybird workspace. We bought the annual Team plan three weeks ago."
)

HEALTHY: dict[str, str] = {
    OPENING: (
        "Hello, and thanks for the details: you own the workspace, and you bought the annual "
        "Team plan three weeks ago. How can I help you today?"
    ),
    "It is not working out for us. Can we get our money back?": (
        "Yes. You bought the annual Team plan three weeks ago, and annual plans are refunded in "
        "full within 30 days of the purchase, so you are inside that window. As the workspace "
        "owner, write to billing@tallybird.example from your owner email address with the "
        "invoice number; the refund goes back to the original payment method within 5 to 10 "
        "business days."
    ),
    "Great, thank you. I will write to billing today.": (
        "You're welcome. Put the invoice number of the Team plan purchase in your email. Is "
        "there anything else I can help with?"
    ),
    "We are a team of 8 people and we would like to pay once a year.": (
        "Noted: a team of 8 people, paying annually. What would you like to know?"
    ),
    "How much would the Team plan cost us per year?": (
        "Paying annually, the Team plan costs $290 per user per year, so for your 8 people it "
        "costs $2,320 per year, the price of ten months of monthly billing."
    ),
    "Perfect, that fits our budget. Thanks!": "Glad it fits. Enjoy Tallybird!",
    "Hi! I'm Dana, we're a five-person design studio on the Team plan.": (
        "Hi Dana, welcome! What can I do for your design studio today?"
    ),
    "Can my studio sign in with SAML single sign-on?": (
        "On the Team plan your studio is on, SAML single sign-on is not included: single "
        "sign-on with SAML 2.0 is available on the Enterprise plan only. Your five members "
        "sign in with an email address and password, and as the owner you can require "
        "two-factor authentication for all of them."
    ),
    "Okay, that makes sense. Thanks for the clear answer!": (
        "You're welcome, Dana. Have a good day at the studio."
    ),
}

REGRESSED: dict[str, str] = {
    **HEALTHY,
    # Forgets turn one: the customer already said which plan and when; every fact is still
    # there and the way to get the refund too, so only knowledge retention can tell.
    "It is not working out for us. Can we get our money back?": (
        "Annual plans are refunded in full within 30 days of the purchase, and on monthly plans "
        "only the first payment of a new workspace can be refunded, within 14 days. Could you "
        "remind me which plan you are on and when you bought it? Either way, the workspace "
        "owner writes to billing@tallybird.example with the invoice number."
    ),
}

# The persona user's replies, by the assistant message it answers.
USER: dict[str, str] = {
    "Hi Dana, welcome! What can I do for your design studio today?": (
        "Can my studio sign in with SAML single sign-on?"
    ),
    HEALTHY["Can my studio sign in with SAML single sign-on?"]: (
        "Okay, that makes sense. Thanks for the clear answer!"
    ),
    "You're welcome, Dana. Have a good day at the studio.": "[END]",
}


class Written:
    """A chat model answering the newest message of a role from a hand-written table."""

    def __init__(self, replies: Mapping[str, str], model_id: str, role: str) -> None:
        self.replies = replies
        self.model_id = model_id
        self.role = role

    @property
    def default_params(self) -> Mapping[str, Any]:
        """No parameters."""
        return {}

    def chat(self, messages: Sequence[Any], **params: Any) -> ChatReply:
        """The written reply to the newest message of ``role``."""
        newest = [m for m in message_dicts(messages) if m["role"] == self.role][-1]
        return ChatReply(text=self.replies[str(newest["content"])])


def main() -> None:
    """Rewrite ``healthy.jsonl``, ``regressed.jsonl`` and ``users.jsonl`` next to this script."""
    suite = load_suite(HERE.parent / "suite.yaml")
    (evaluation,) = suite.evaluations
    spec = evaluation.conversations
    assert spec is not None and spec.user_model is not None
    app = evaluation.application
    user_mode = "rewrite"
    for build, replies in {"healthy": HEALTHY, "regressed": REGRESSED}.items():
        assistant = Written(replies, app.model_id, "user")
        chat = record_replay(assistant, app.builds[build], "rewrite", model_id=app.model_id)
        users = record_replay(
            Written(USER, spec.user_model.model_id, "user"),
            spec.user_model.cassette,
            user_mode,
            model_id=spec.user_model.model_id,
        )
        user_mode = "record-missing"  # the persona conversation is the same in both builds
        plans = [
            Plan(c.id, simulated_user(c, users), c.max_turns, stop_condition(c.stop_phrase))
            for c in spec.cases
        ]
        simulations = run_sync(
            simulate_many(ConversationApplication(app, build, chat), plans, concurrency=1)
        )
        for simulation in simulations:
            print(f"{build}: {simulation.name}: {len(simulation.turns)} turns, {simulation.why}")


if __name__ == "__main__":
    main()
