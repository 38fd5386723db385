"""The evaluation engine: run samples through an application and strategies and collect the
results into a report. :mod:`~evalmark.engine.scorer` is the API (``Scorer``, ``Evaluation``),
:mod:`~evalmark.engine.run` the run itself. Gates on the reports are
:mod:`evalmark.report.gates`; the k-of-n rule they share is :func:`evalmark.noise.gates.passes`."""
