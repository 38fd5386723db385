"""Record the two builds of the Tallybird support assistant used by the demo suite.

The assistant's answers below were written by hand for the demo: ``healthy`` is the build that
answers all twelve questions from the help centre; ``regressed`` is a later build with three
regressions (a hallucinated number, an off-topic answer, and a plausible but wrong price). They
are recorded into evalmark cassettes through the same ``record_replay`` path a live model would
take, so ``evalmark run golden/support --build NAME`` replays them offline.

Run from the repository root to rewrite both cassettes::

    python golden/support/builds/make_builds.py
"""

from __future__ import annotations

import re
from pathlib import Path

from evalmark import load_samples, load_suite
from evalmark.models import ScriptedChat, record_replay
from evalmark.suite._application import application_messages, question_of

HERE = Path(__file__).resolve().parent

HEALTHY: dict[str, str] = {
    "refund-annual-team": (
        "Yes, you can get your money back. You bought the annual Team plan three weeks ago, and "
        "annual plans are refunded in full within 30 days of the purchase. The workspace owner "
        "writes to billing@tallybird.example from the owner's email address with the invoice "
        "number; the refund goes back to the original payment method within 5 to 10 business "
        "days."
    ),
    "refund-monthly-fourth-month": (
        "No, this month's payment cannot be refunded. On monthly plans only the first monthly "
        "payment of a new workspace is refunded, and only within 14 days; later monthly "
        "payments are not refunded. You can cancel the Solo plan to stop the next renewal, and "
        "the plan stays active until the end of the month already paid."
    ),
    "team-price-eight-users-annual": (
        "Paying annually, the Team plan costs $290 per user per year, so for 8 people it costs "
        "$2,320 per year. Annual billing costs the same as ten months of monthly billing at $29 "
        "per user per month, which gives two months free."
    ),
    "api-rate-limit-team": (
        "The API rate limit on the Team plan is 600 requests per minute per workspace. When you "
        "go over the limit, requests receive HTTP status 429 Too Many Requests with a "
        "Retry-After header giving the number of seconds to wait. Short bursts of up to twice "
        "the limit are allowed for at most 10 seconds; retry with exponential backoff."
    ),
    "eu-data-residency": (
        "Yes, that is possible on the Solo plan. Choose the European Union region, hosted in "
        "Frankfurt, Germany, when the workspace is created; both regions are available on every "
        "plan. Workspace data, file attachments and backups never leave the chosen region, so "
        "all invoice data stays in the EU."
    ),
    "live-chat-hours": (
        "You can talk to someone on live chat Monday to Friday from 07:00 to 19:00 UTC, on the "
        "Team and Enterprise plans. Outside those hours, chat messages are answered by email on "
        "the next business day."
    ),
    "restore-deleted-invoice": (
        "No, a deleted invoice is not gone for good. Deleted invoices go to the Trash, where "
        "they can be restored for 30 days, so restore it from the Trash. After 30 days in the "
        "Trash invoices are permanently deleted."
    ),
    "closed-account-retention": (
        "When you close your Tallybird account, the workspace data is kept for 90 days so the "
        "owner can reopen it or export it. After 90 days the data and its backups are "
        "permanently deleted and cannot be recovered, so export it first as CSV or JSON under "
        "Settings > Export."
    ),
    "attachment-size-limit": (
        "The biggest PDF you can attach to an invoice is 25 MB. File attachments are limited "
        "to 25 MB per file and 10 files per invoice, in the web app and through the API."
    ),
    "sso-on-team-plan": (
        "No, the Team plan does not include SAML single sign-on: single sign-on with SAML 2.0 "
        "is available on the Enterprise plan only. Team workspaces sign in with an email "
        "address and password, and the owner can require two-factor authentication for all "
        "members."
    ),
    "free-trial-terms": (
        "The free trial is 21 days long and gives you the Team plan, and no credit card is "
        "needed to start the trial. At the end of the trial the workspace becomes read-only "
        "until a plan is chosen."
    ),
    "uptime-sla-credit": (
        "The Enterprise plan includes a 99.95% monthly uptime commitment. Last month's uptime "
        "of 99.7% is two full 0.1 percentage points below the commitment, so you get a service "
        "credit of 20% of that month's fee (10% for each full 0.1 point, up to a maximum credit "
        "of 50%). The credit must be requested within 30 days after the end of the month."
    ),
}

REGRESSED: dict[str, str] = {
    **HEALTHY,
    # A hallucinated number: the hours are right, but the reply-time promise and the weekend
    # chat (and its price) appear nowhere in the help centre.
    "live-chat-hours": (
        "You can talk to someone on live chat Monday to Friday from 07:00 to 19:00 UTC, on the "
        "Team and Enterprise plans. Our agents guarantee a first reply within 45 seconds, and "
        "weekend chat runs Saturday and Sunday from 10:00 to 14:00 UTC for an extra $15 per "
        "seat."
    ),
    # Off topic: asked about single sign-on, it talks about invoice templates.
    "sso-on-team-plan": (
        "Tallybird invoices can be customised with your logo, colours and payment terms, and "
        "you can save several templates for different clients. Recurring invoices are sent "
        "automatically on the schedule you choose."
    ),
    # A plausible wrong price: the arithmetic looks right but the per-user price is not
    # Tallybird's; the judges cannot tell, only the expected facts can.
    "team-price-eight-users-annual": (
        "Paying annually, the Team plan costs $249 per user per year, so for 8 people it costs "
        "$1,992 per year. Annual billing costs the same as ten months of monthly billing, which "
        "gives two months free."
    ),
}

BUILDS = {"healthy": HEALTHY, "regressed": REGRESSED}


def main() -> None:
    """Rewrite ``healthy.jsonl`` and ``regressed.jsonl`` next to this script."""
    suite = load_suite(HERE.parent / "suite.yaml")
    (evaluation,) = suite.evaluations
    app = evaluation.application
    samples = load_samples(*evaluation.samples)
    for build, answers in BUILDS.items():
        missing = sorted(set(samples.names) - set(answers))
        if missing:
            raise SystemExit(f"build {build!r} has no answer for {', '.join(missing)}")
        script = {re.escape(question_of(s)): answers[s.name] for s in samples}
        assistant = ScriptedChat(script, model_id=app.model_id)
        recorded = record_replay(assistant, app.builds[build], "rewrite", model_id=app.model_id)
        for sample in samples:
            recorded.chat(application_messages(app, question_of(sample)))
        print(f"recorded {len(samples)} answers into {app.builds[build]}")


if __name__ == "__main__":
    main()
