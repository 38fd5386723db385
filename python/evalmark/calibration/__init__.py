"""Judge calibration: how far a judge can be trusted, measured against human labels.

::

    from evalmark.calibration import calibrate, load_labels
    from evalmark.noise import write_rates

    result = calibrate(load_labels("labels.jsonl"), judge_model)
    result.agreement.kappa, result.true_pass, result.true_fail
    result.judge_rates()                                        # evalmark.noise.JudgeRates
    write_rates("suite/.evalmark/judge-rates.json", result.judge_rates())  # for `evalmark tune`

``agreement(truth, predicted)`` gives the confusion matrix, accuracy and kappa of any labels.
The command line is ``evalmark judge calibrate LABELS --judge ...``.
"""

from evalmark.calibration._agreement import agreement
from evalmark.calibration._labels import CalibrationSet, LabelledItem, load_labels
from evalmark.calibration._run import CalibrationResult, calibrate

__all__ = [
    "CalibrationResult",
    "CalibrationSet",
    "LabelledItem",
    "agreement",
    "calibrate",
    "load_labels",
]
