"""Text embedders: one interface, several engines (local torch, ONNX, Ollama, OpenAI)."""

from devkb.indexing.embedders.base import TextEmbedder

__all__ = ["TextEmbedder"]
