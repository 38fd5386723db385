"""The values that flow through an evaluation: samples, test cases, conversations and the
results strategies give them, with their loaders, writers and JSON Schemas."""
