"""The samples API in one import: the values, the loaders and writer, the plug-in registry and
the file schema, gathered from the modules that define them.

A ``Sample`` is one case (a name, the inputs for the function under test, and what a good
answer looks like); ``Samples`` is an ordered, immutable collection of them with unique names.
``load_samples`` reads YAML, JSON and JSON Lines files (or anything a registered loader
supports) and merges them in the order given.

File keys are kebab-case (``expected-output``); JSON and JSON Lines also accept snake_case
(``expected_output``). Every problem in a file is reported as a ``SampleError`` naming the file,
the line, the sample and what to do.
"""

from evalmark.errors import SampleError
from evalmark.samples._load import load_samples
from evalmark.samples._plugins import SampleLoader, register_sample_loader, unregister_sample_loader
from evalmark.samples._sample import Parameters, Sample, Samples
from evalmark.samples._schema import sample_file_schema
from evalmark.samples._write import write_samples

__all__ = [
    "Parameters",
    "Sample",
    "SampleError",
    "SampleLoader",
    "Samples",
    "load_samples",
    "register_sample_loader",
    "sample_file_schema",
    "unregister_sample_loader",
    "write_samples",
]
