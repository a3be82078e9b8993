"""Haystack components of the indexing pipeline, one per file."""
