"""The one exception root of devkb.

    DevkbError
    ├── ConfigurationError          permanent: settings or sources file are wrong
    ├── StoreError                  store failures
    │   ├── StoreUnavailableError   transient: the store cannot be reached
    │   ├── SchemaMismatchError     permanent: embedding model/dimension differs from the store's
    │   └── DocumentNotFoundError   permanent: no document with that id
    ├── SourceError                 a source (Jira, Confluence, GitHub) failed
    │   ├── TransientSourceError    transient: 429, 5xx, timeouts (retried with backoff)
    │   └── PermanentSourceError    permanent: 4xx, bad credentials, bad query
    ├── SyncInProgressError         a run of that source is already going
    └── InvalidQueryError           permanent: a filter field or value that is not allowed

Third-party errors are wrapped with ``raise ... from e``; ``transient`` tells callers whether a
retry can help.
"""

from __future__ import annotations


class DevkbError(Exception):
    transient: bool = False


class ConfigurationError(DevkbError):
    pass


class StoreError(DevkbError):
    pass


class StoreUnavailableError(StoreError):
    transient = True


class SchemaMismatchError(StoreError):
    pass


class DocumentNotFoundError(StoreError):
    def __init__(self, document_id: str) -> None:
        super().__init__(f"no document with id {document_id!r}")
        self.document_id = document_id


class SourceError(DevkbError):
    pass


class TransientSourceError(SourceError):
    transient = True


class PermanentSourceError(SourceError):
    pass


class SyncInProgressError(DevkbError):
    pass


class InvalidQueryError(DevkbError):
    pass
