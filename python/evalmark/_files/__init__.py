"""File plumbing shared by every loader and writer. Imports nothing of evalmark but its errors.

- :mod:`~evalmark._files.source`: which format a name implies, reading bytes, UTF-8 decoding
  that reports the line and column of a bad byte;
- one reader per format: :mod:`~evalmark._files.yaml_read` (safe YAML with the position of
  every key and value), :mod:`~evalmark._files.json_read` (JSON and JSON Lines),
  :mod:`~evalmark._files.csv_rows` (CSV rows with the line each starts on), and
  :mod:`~evalmark._files.read` (any data file into raw records);
- :mod:`~evalmark._files.located`: records that remember where they came from;
- :mod:`~evalmark._files.validate` and :mod:`~evalmark._files.problems`: the one validator and
  problem reporter (file:line:column, "did you mean");
- :mod:`~evalmark._files.yaml_write`: readable YAML out;
- :mod:`~evalmark._files.atomic`: the one atomic writer;
- :mod:`~evalmark._files.digest`: a file's SHA-256, read in chunks;
- :mod:`~evalmark._files.text`: text any writer keeps (lone surrogates written as ``\\udcff``).
"""
