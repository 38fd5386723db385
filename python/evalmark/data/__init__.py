"""Samples, test cases, conversations and evaluation results: the values evalmark reads,
scores and reports, and the files they are read from and written to.

Modules: :mod:`~evalmark.data._sample` and :mod:`~evalmark.data._case` (the values),
:mod:`~evalmark.data._keys` (the keys each record accepts in a file, and its rules),
:mod:`~evalmark.data._load` (reading files), :mod:`~evalmark.data._write` (writing them),
:mod:`~evalmark.data._schema` (their JSON Schemas), :mod:`~evalmark.data._plugins` (sample loader
plug-ins), :mod:`~evalmark.data._result` and :mod:`~evalmark.data._result_column` (evaluation
results, gathered in :mod:`~evalmark.data._results`). :mod:`~evalmark.data._samples`
and :mod:`~evalmark.data._testcase` gather the public names of each kind in one import.

This package has no names of its own: the values and their readers and writers are imported
from the top level (``from evalmark import Sample, load_samples, TestCase, EvaluationResult``).
"""

__all__: list[str] = []
