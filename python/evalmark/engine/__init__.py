"""The evaluation engine: one function, :func:`evalmark.engine.pipeline.run_samples`, runs
samples through an application and checks and collects the results into a report. ``Scorer``
and ``Evaluation`` (:mod:`~evalmark.engine.scorer`) and suite runs are faces over it;
:mod:`~evalmark.engine.settings` checks a run's settings, :mod:`~evalmark.engine.run` holds the
steps. Gates on the reports are :mod:`evalmark.report.gates`; the k-of-n rule they share is
:func:`evalmark.noise.gates.passes`."""
