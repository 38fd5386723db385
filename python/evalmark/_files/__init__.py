"""File plumbing shared by every loader and writer: one reader per format, one problem
reporter (file, line, "did you mean"), one atomic writer. Imports nothing else of evalmark."""
