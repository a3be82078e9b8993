"""Team memory: what people and coding agents tell devkb, kept as documents of the graph
(``SourceType.MEMORY``) with scope, owner, status and validity; supersession by subject and
attribute; recall as of a date (docs/memory.md)."""
