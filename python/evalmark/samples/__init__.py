"""Samples, and the test cases and conversations made from them: the records evalmark reads, and
the files they are read from and written to. The first stage of the pipeline (samples → the
application → test cases → checks → results → report → gates).

Modules: :mod:`~evalmark.samples._sample` and :mod:`~evalmark.samples._case` (the values),
:mod:`~evalmark.samples._keys` (the keys each record accepts in a file, and its rules),
:mod:`~evalmark.samples._load` (reading files, the one reader of each format),
:mod:`~evalmark.samples._write` (writing them), :mod:`~evalmark.samples._schema` (their JSON
Schemas, also committed under ``schemas/``), :mod:`~evalmark.samples._plugins` (sample loader
plug-ins). :mod:`~evalmark.samples._samples` and :mod:`~evalmark.samples._testcase` gather the
public names of each kind in one import.

This package has no names of its own: the values and their readers and writers are imported
from the top level (``from evalmark import Sample, load_samples, TestCase``).
"""

__all__: list[str] = []
