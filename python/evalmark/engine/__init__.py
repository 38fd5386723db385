"""The evaluation engine: one function, :func:`evalmark.engine._pipeline.run_samples`, runs
samples through an application and checks and collects the results into a report. ``Scorer``
and ``Evaluation`` (:mod:`~evalmark.engine._scorer`) and suite runs are faces over it, and
conversation runs (:mod:`evalmark.conversation`) go through the same run
(:func:`~evalmark.engine._pipeline.run_repeated`, :class:`~evalmark.engine._run.Run`);
:mod:`~evalmark.engine._settings` checks a run's settings, :mod:`~evalmark.engine._run` holds the
steps. Gates on the reports are :mod:`evalmark.gates._rules`; the k-of-n rule they share is
:func:`evalmark.noise._gates.passes`.

This package has no names of its own: use ``evalmark.Scorer``, ``evalmark.Evaluation`` and
``evalmark.run_suite``."""

__all__: list[str] = []
