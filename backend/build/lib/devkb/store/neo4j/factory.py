"""Driver construction for the container, which owns the driver: it opens it here, hands it to
``Neo4jGraphStore(driver, settings.neo4j_database)`` and closes it on shutdown
(``neo4j_driver_resource`` opens and closes). The store never closes the driver."""

from __future__ import annotations

from collections.abc import Iterator

import neo4j

from devkb import __version__
from devkb.config.settings import Settings
from devkb.errors import ConfigurationError

BOLT_SCHEMES = ("neo4j", "neo4j+s", "neo4j+ssc", "bolt", "bolt+s", "bolt+ssc")


def create_driver(settings: Settings) -> neo4j.Driver:
    """A driver for ``DEVKB_NEO4J_URI``; opens no connection yet (``Neo4jGraphStore.verify`` does)."""
    if not settings.neo4j_uri:
        raise ConfigurationError("DEVKB_STORE=neo4j needs DEVKB_NEO4J_URI (e.g. neo4j://localhost:7687)")
    scheme = settings.neo4j_uri.partition("://")[0]
    if scheme not in BOLT_SCHEMES:
        raise ConfigurationError(
            f"DEVKB_NEO4J_URI must start with one of {', '.join(s + '://' for s in BOLT_SCHEMES)}, "
            f"not {settings.neo4j_uri!r}"
        )
    password = settings.neo4j_password.get_secret_value() if settings.neo4j_password else ""
    try:
        return neo4j.GraphDatabase.driver(
            settings.neo4j_uri,
            auth=(settings.neo4j_user, password),
            user_agent=f"devkb/{__version__}",
            max_transaction_retry_time=30.0,  # managed transactions retry transient errors this long
            connection_timeout=10.0,
            connection_acquisition_timeout=60.0,
            liveness_check_timeout=30.0,  # re-check pooled connections idle this long (cloud LBs drop them)
        )
    except (ValueError, neo4j.exceptions.ConfigurationError) as e:
        raise ConfigurationError(f"DEVKB_NEO4J_URI {settings.neo4j_uri!r} is not usable: {e}") from e


def neo4j_driver_resource(settings: Settings) -> Iterator[neo4j.Driver]:
    """For ``providers.Resource``: the driver, closed when the container shuts down."""
    driver = create_driver(settings)
    try:
        yield driver
    finally:
        driver.close()
