"""Source text of the demo dataset, one module per system; ``build_demo_data.py`` assembles it."""
