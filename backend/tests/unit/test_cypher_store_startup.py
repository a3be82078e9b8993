"""Startup validation of the Neo4j store: what the operator reads when the server is unreachable or
rejects the credentials. A real driver talks to a closed loopback port, and to a minimal Bolt
server on loopback that speaks the handshake and refuses the login as Neo4j does."""

from __future__ import annotations

import socket
import struct
import threading
from collections.abc import Iterator

import neo4j
import pytest

from devkb.config.settings import Settings
from devkb.errors import ConfigurationError, StoreUnavailableError
from devkb.store.neo4j import Neo4jGraphStore
from devkb.store.neo4j.factory import create_driver, neo4j_driver_resource


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _settings(uri: str) -> Settings:
    return Settings(store="neo4j", neo4j_uri=uri, neo4j_password="secret-pw", _env_file=None)


@pytest.fixture
def closed_driver() -> Iterator[neo4j.Driver]:
    driver = create_driver(_settings(f"neo4j://127.0.0.1:{_closed_port()}"))
    yield driver
    driver.close()


def test_verify_unreachable_says_what_to_do(closed_driver):
    store = Neo4jGraphStore(closed_driver, database="neo4j")
    with pytest.raises(StoreUnavailableError) as err:
        store.verify("all-MiniLM-L6-v2", 384)
    message = str(err.value)
    assert "DEVKB_NEO4J_URI" in message and "docker compose" in message and "DEVKB_STORE=sqlite" in message
    assert "secret-pw" not in message
    assert err.value.transient


def test_operations_on_unreachable_server_raise_store_unavailable():
    uri = f"bolt://127.0.0.1:{_closed_port()}"
    with neo4j.GraphDatabase.driver(uri, auth=("neo4j", "x"), max_transaction_retry_time=0) as driver:
        store = Neo4jGraphStore(driver)
        with pytest.raises(StoreUnavailableError, match="unreachable while counting documents"):
            store.stats()
        with pytest.raises(StoreUnavailableError, match="unreachable while deleting 1 documents"):
            store.delete_documents(["jira:PAY-1"])


# -- a Bolt server that refuses every login ----------------------------------------------------
def _pack_str(s: str) -> bytes:
    b = s.encode()
    return (bytes([0x80 + len(b)]) if len(b) < 16 else b"\xd0" + bytes([len(b)])) + b


def _failure(code: str, message: str) -> bytes:
    fields = b"\xa2" + _pack_str("code") + _pack_str(code) + _pack_str("message") + _pack_str(message)
    body = b"\xb1\x7f" + fields  # FAILURE {code, message}
    return struct.pack(">H", len(body)) + body + b"\x00\x00"


@pytest.fixture
def refusing_server() -> Iterator[int]:
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(4)
    server.settimeout(0.1)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = server.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                conn.settimeout(2)
                try:
                    if conn.recv(20)[:4] != b"\x60\x60\xb0\x17":
                        continue
                    conn.sendall(b"\x00\x00\x00\x05")  # Bolt 5.0: HELLO carries the credentials
                    conn.recv(65536)
                    conn.sendall(
                        _failure(
                            "Neo.ClientError.Security.Unauthorized",
                            "The client is unauthorized due to authentication failure.",
                        )
                    )
                except OSError:
                    pass

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield server.getsockname()[1]
    stop.set()
    thread.join(timeout=5)
    server.close()


def test_verify_bad_credentials_says_what_to_do(refusing_server):
    uri = f"bolt://127.0.0.1:{refusing_server}"
    with (
        neo4j.GraphDatabase.driver(uri, auth=("neo4j", "wrong")) as driver,
        pytest.raises(StoreUnavailableError) as err,
    ):
        Neo4jGraphStore(driver).verify()
    message = str(err.value)
    assert "DEVKB_NEO4J_USER" in message and "DEVKB_NEO4J_PASSWORD" in message
    assert isinstance(err.value.__cause__, neo4j.exceptions.AuthError)


def test_driver_resource_closes_the_driver():
    resource = neo4j_driver_resource(_settings(f"bolt://127.0.0.1:{_closed_port()}"))
    driver = next(resource)
    assert isinstance(driver, neo4j.Driver)
    with pytest.raises(StopIteration):
        next(resource)
    with pytest.raises(neo4j.exceptions.DriverError, match="closed"):  # a closed driver refuses work
        driver.session()


def test_bad_uri_is_a_configuration_error():
    with pytest.raises(ConfigurationError, match="DEVKB_NEO4J_URI"):
        create_driver(_settings("http://127.0.0.1:7474"))
    with pytest.raises(ConfigurationError, match="DEVKB_NEO4J_URI"):
        create_driver(_settings("localhost:7687"))
