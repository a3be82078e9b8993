"""Indexing: a Haystack pipeline (detect changes → split → embed → write chunks → write references)
and the sync runner that feeds it from a source loader."""
