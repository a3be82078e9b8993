"""Splitting documents into chunks by kind: headings for text, symbols for code."""
