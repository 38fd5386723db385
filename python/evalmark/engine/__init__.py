"""The evaluation engine: run samples through an application and strategies (the scorer),
collect results into a report, and apply gates (the one k-of-n pass-rate rule)."""
