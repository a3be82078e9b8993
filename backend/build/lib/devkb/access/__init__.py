"""People and permissions: accounts (local and OpenID Connect), sessions and API tokens, the
principals a reader holds, the permissions mirrored from the sources, and the store view that
enforces them (see docs/security.md)."""
