"""The built-in report formats (Markdown, JSON, HTML, JUnit XML) and the plain-text tables of
the command line. Each renderer reads a report through its public figures only (the report's
module imports no renderer); formats are found through :mod:`evalmark.report._formatters`."""
