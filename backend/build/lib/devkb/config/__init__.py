"""Configuration: one settings class (``settings.py``) and the sources file (``sources_file.py``)."""

from devkb.config.settings import Settings

__all__ = ["Settings"]
