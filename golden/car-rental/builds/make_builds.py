"""Record the current build of the Roadlark chatbot used by ``golden/car-rental/suite.yaml``.

The answers below were written by hand for the demo, from the policies in ``../policies``; they
are recorded into an evalmark cassette through ``record_replay``, so the suite replays them
offline. Run from the repository root to rewrite the cassette::

    python golden/car-rental/builds/make_builds.py
"""

from __future__ import annotations

import re
from pathlib import Path

from evalmark import load_samples, load_suite
from evalmark.models import ScriptedChat, record_replay
from evalmark.suite._application import application_messages, question_of

HERE = Path(__file__).resolve().parent

CURRENT: dict[str, str] = {
    "minimum-age": (
        "Yes, you can rent at 22: the main driver must be at least 21 and have held a full "
        "driving licence for at least one year. Drivers aged 21 to 24 pay a young driver fee of "
        "$25 per day. The luxury cruiser class is only for drivers aged 30 or older."
    ),
    "debit-card-deposit": (
        "No. The security deposit needs a credit card in the main driver's name; debit cards "
        "and prepaid cards are not accepted for the deposit."
    ),
    "deposit-explorer-suv": (
        "The deposit for the explorer SUV class is $500, and it is released within 7 days after "
        "you return the car undamaged."
    ),
    "family-of-seven": (
        "Book the family class: a minivan that seats 7 passengers and holds 4 medium suitcases "
        "with all seats in use. Two child seats can be fitted in the second row."
    ),
    "fuel-return-empty": (
        "The car must be returned with a full tank. The missing fuel is charged at $3.50 per "
        "litre, plus a refuelling service fee of $20."
    ),
    "mileage-luxury": (
        "No. The luxury cruiser includes 300 kilometres per rental day, and every further "
        "kilometre costs $0.25. Unlimited mileage comes with the compact, commuter and family "
        "classes."
    ),
    "cancel-one-day-before": (
        "Yes, a little. Cancelling is free until 48 hours before pick-up; at 24 hours before, "
        "the cancellation costs one day of the rental price."
    ),
    "late-return-forty-minutes": (
        "Up to 29 minutes late is free. At 40 minutes you are in the first started hour, which "
        "costs one quarter of the daily rate; more than 3 hours late is charged as a full day."
    ),
    "windscreen-chip": (
        "No. Windscreen damage is excluded from the collision damage waiver that comes with "
        "every rental; only the optional Full Cover at $18 per day covers it. Either way, "
        "report the damage to Roadlark within 24 hours."
    ),
    "drive-to-mexico": (
        "No. Driving a Roadlark car into Mexico is not allowed. Canada is possible with written "
        "permission, requested at least 3 days before pick-up."
    ),
}

BUILDS = {"current": CURRENT}


def main() -> None:
    """Rewrite ``current.jsonl`` next to this script."""
    suite = load_suite(HERE.parent / "suite.yaml")
    chatbot = next(e for e in suite.evaluations if e.name == "chatbot")
    app = chatbot.application
    samples = load_samples(*chatbot.samples)
    for build, answers in BUILDS.items():
        missing = sorted(set(samples.names) - set(answers))
        if missing:
            raise SystemExit(f"build {build!r} has no answer for {', '.join(missing)}")
        script = {re.escape(question_of(s)): answers[s.name] for s in samples}
        recorded = record_replay(
            ScriptedChat(script, model_id=app.model_id),
            app.builds[build],
            "rewrite",
            model_id=app.model_id,
        )
        for sample in samples:
            recorded.chat(application_messages(app, question_of(sample)))
        print(f"recorded {len(samples)} answers into {app.builds[build]}")


if __name__ == "__main__":
    main()
