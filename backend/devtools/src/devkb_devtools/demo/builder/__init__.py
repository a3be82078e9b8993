"""Assembly of the demo data from ``content/``: one module per system, plus edges, README and checks."""
