"""The evaluation harness (``make eval``): related-issue retrieval with baselines, graph
fidelity and agent questions on the Fluid corpus; see ``__main__.py`` and docs/evaluation.md."""
