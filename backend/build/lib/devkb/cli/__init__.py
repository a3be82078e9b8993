"""The ``devkb`` command line."""
