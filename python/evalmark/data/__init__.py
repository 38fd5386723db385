"""Samples, test cases, conversations and evaluation results: the values evalmark reads,
scores and reports, and the files they are read from and written to.

Modules: :mod:`~evalmark.data.sample` and :mod:`~evalmark.data.case` (the values),
:mod:`~evalmark.data.keys` (the keys each record accepts in a file, and its rules),
:mod:`~evalmark.data.load` (reading files), :mod:`~evalmark.data.write` (writing them),
:mod:`~evalmark.data.schema` (their JSON Schemas), :mod:`~evalmark.data.plugins` (sample loader
plug-ins), :mod:`~evalmark.data.result` and :mod:`~evalmark.data.result_column` (evaluation
results, gathered in :mod:`~evalmark.data.results`). :mod:`~evalmark.data.samples`
and :mod:`~evalmark.data.testcase` gather the public names of each kind in one import.
"""
