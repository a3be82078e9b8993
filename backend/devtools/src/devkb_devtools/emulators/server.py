"""Run emulator apps as real HTTP servers on loopback, each at the root of its own port.

Layout: one :class:`EmulatorServer` per service, the API at the root of its port, exactly like
the real service — ``Jira(url=server.base_url)``, ``Confluence(url=...)``,
``Github(base_url=...)``. No path prefixes, so Confluence's ``_links.next`` (relative to
``_links.base``) and PyGithub's host/prefix checks behave as against production.
:class:`EmulatorSuite` starts all three on consecutive (or ephemeral) ports with one shared
:class:`~devkb_devtools.emulators.dataset.Dataset` and one shared
:class:`~devkb_devtools.emulators.faults.FaultSwitches`.

Every server also answers the control API under ``/_emulator`` (never logged, never faulted)::

    GET  /_emulator                 service, base URL, switch state
    GET  /_emulator/faults          POST /_emulator/faults (JSON, see faults.py)
    POST /_emulator/reset           GET  /_emulator/requests?service=&path_prefix=&method=

The server is the stdlib :class:`~http.server.ThreadingHTTPServer` (HTTP/1.1, keep-alive, one
thread per connection), which gives direct control of the socket: a ``reset`` fault closes it
with ``SO_LINGER 0`` so the client sees a TCP RST. :meth:`EmulatorServer.stop` also closes idle
keep-alive connections and interrupts delayed responses, so shutdown is prompt.

Example::

    with EmulatorServer(JiraEmulator(Dataset.load(path))) as server:
        jira = atlassian.Jira(url=server.base_url)
"""

from __future__ import annotations

import json
import logging
import socket
import struct
import threading
import time
from collections.abc import Mapping
from dataclasses import asdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import TracebackType
from typing import Any, Protocol, Self

from devkb_devtools.emulators.app import EmulatorApp
from devkb_devtools.emulators.confluence import ConfluenceEmulator
from devkb_devtools.emulators.confluence_cloud import ConfluenceCloudEmulator
from devkb_devtools.emulators.dataset import Dataset
from devkb_devtools.emulators.faults import Fault, FaultSwitches, RequestRecord
from devkb_devtools.emulators.github import GitHubEmulator
from devkb_devtools.emulators.jira import JiraEmulator
from devkb_devtools.emulators.jira_cloud import JiraCloudEmulator
from devkb_devtools.emulators.routing import Request, Response, json_response
from devkb_devtools.emulators.vendor_check import SESSION_CHECK, ResponseHook

log = logging.getLogger(__name__)

CONTROL_PREFIX = "/_emulator"
INVALID_JSON_BODY = b"<html><head><title>502 Proxy Error</title></head><body>Proxy Error</body></html>"


class EmulatorServer:
    """One emulator app served over HTTP on ``host:port`` (port 0 picks a free one)."""

    def __init__(
        self,
        app: EmulatorApp,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        public_url: str | None = None,
        response_check: ResponseHook | None = SESSION_CHECK,
    ) -> None:
        self.app = app
        # every response the app produces is validated against the vendor's description
        # (vendor_check.py); None turns that off
        self.response_check = response_check
        self.host = host
        self.requested_port = port
        self.public_url = public_url.rstrip("/") if public_url else None
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._stopping = threading.Event()

    # ------------------------------------------------------------------ properties

    @property
    def service(self) -> str:
        return self.app.service

    @property
    def dataset(self) -> Dataset:
        return self.app.dataset

    @property
    def faults(self) -> FaultSwitches:
        return self.app.faults

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError("the emulator server is not started")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """Root URL of the emulated API, without a trailing slash."""
        return self.public_url or f"http://{self.host}:{self.port}"

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> EmulatorServer:
        """Bind and serve in a background thread; returns ``self``."""
        if self._httpd is not None:
            return self
        self._stopping.clear()
        self._httpd = _HTTPServer((self.host, self.requested_port), self)
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"emulator-{self.service}-{self.port}",
            daemon=True,
        )
        self._thread.start()
        log.info("%s emulator listening on %s", self.service, self.base_url)
        return self

    def stop(self) -> None:
        """Stop serving, drop open connections and release the port."""
        if self._httpd is None:
            return
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.close_connections()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()

    # ------------------------------------------------------------------ request pipeline

    def serve(self, request: Request) -> tuple[Response | None, Fault | None]:
        """The response for ``request`` after faults (None when the connection must be reset)."""
        if request.path == CONTROL_PREFIX or request.path.startswith(CONTROL_PREFIX + "/"):
            return self._control(request), None
        fault = self.faults.take(self.service, request.path)
        if fault is not None and fault.delay:
            self._stopping.wait(fault.delay)
        if fault is not None and fault.kind == "reset":
            response = None
        elif fault is not None and fault.kind == "status":
            response = self.app.fault_response(
                request, int(fault.status or 500), fault.message, fault.retry_after
            )
        else:
            response = self._handle(request)
            if fault is not None and fault.kind == "truncate":
                response.body = response.body[: len(response.body) // 2]
            elif fault is not None and fault.kind == "invalid_utf8":
                marker = b'"summary":"' if b'"summary":"' in response.body else b'":"'
                at = response.body.find(marker)
                if at >= 0:
                    cut = at + len(marker)
                    response.body = response.body[:cut] + b"\xff\xfe\xc3(" + response.body[cut:]
            elif fault is not None and fault.kind == "invalid_json":
                response = Response(
                    200, INVALID_JSON_BODY, [("Content-Type", "application/json;charset=UTF-8")]
                )
        self.faults.log.add(
            RequestRecord(
                service=self.service,
                method=request.method,
                path=request.path,
                query="&".join(f"{k}={v}" for k, values in request.query.items() for v in values),
                status=response.status if response is not None else None,
                fault=fault.kind if fault is not None else None,
                at=time.time(),
            )
        )
        return response, fault

    def _handle(self, request: Request) -> Response:
        try:
            response = self.app.handle(request)
        except Exception:  # an emulator bug must surface as a 500, like a real server
            log.exception("%s emulator failed on %s %s", self.service, request.method, request.path)
            return self.app.error_response(request, 500, "Internal server error in the emulator")
        if self.response_check is not None:
            response = self.response_check(self.service, self.app.vendor_description(), request, response)
        return response

    def _control(self, request: Request) -> Response:
        action = request.path[len(CONTROL_PREFIX) :].strip("/")
        if request.method == "GET" and action == "":
            return json_response({"service": self.service, "base_url": self.base_url, **self.faults.state()})
        if action == "faults" and request.method == "GET":
            return json_response(self.faults.state())
        if action == "faults" and request.method == "POST":
            try:
                self.faults.configure(json.loads(request.body or b"{}"))
            except (ValueError, TypeError) as e:
                return json_response({"error": str(e)}, 400)
            return json_response(self.faults.state())
        if action == "reset" and request.method == "POST":
            self.faults.reset()
            return json_response(self.faults.state())
        if action == "requests" and request.method == "GET":
            records = self.faults.log.records(
                service=request.param("service"),
                path_prefix=request.param("path_prefix"),
                method=request.param("method"),
            )
            return json_response({"count": len(records), "requests": [asdict(r) for r in records]})
        return json_response({"error": f"unknown control request {request.method} {request.path}"}, 404)


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, address: tuple[str, int], emulator: EmulatorServer) -> None:
        self.emulator = emulator
        self._connections: set[socket.socket] = set()
        self._connections_lock = threading.Lock()
        super().__init__(address, _Handler)

    def track(self, connection: socket.socket, open_: bool) -> None:
        with self._connections_lock:
            (self._connections.add if open_ else self._connections.discard)(connection)

    def close_connections(self) -> None:
        with self._connections_lock:
            connections = list(self._connections)
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HTTPServer
    timeout = 60  # idle keep-alive connections are closed after this many seconds

    def setup(self) -> None:
        super().setup()
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.server.track(self.connection, True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.track(self.connection, False)

    def do_GET(self) -> None:
        self._serve()

    do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_GET

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s %s", self.address_string(), format % args)

    def _serve(self) -> None:
        emulator = self.server.emulator
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        request = Request.build(self.command, self.path, dict(self.headers.items()), body, emulator.base_url)
        response, fault = emulator.serve(request)
        if response is None:
            self._reset_connection()
            return
        if fault is not None and fault.kind == "incomplete":
            self._send(response, cut_body=True)
            return
        self._send(response)

    def _send(self, response: Response, cut_body: bool = False) -> None:
        """Write status line, headers and body with one ``send`` (no Nagle/delayed-ACK stalls)."""
        self.send_response(response.status)
        for name, value in response.headers:
            if name.lower() not in ("content-length", "connection"):
                self.send_header(name, value)
        self.send_header("Content-Length", str(len(response.body)))
        if cut_body:
            self.send_header("Connection", "close")
        body = b"" if self.command == "HEAD" else response.body
        if cut_body:
            body = body[: len(body) // 2]
        buffered: list[bytes] = getattr(self, "_headers_buffer", [])  # http.server's own buffer
        buffered.append(b"\r\n")
        self.wfile.write(b"".join(buffered) + body)
        buffered.clear()
        if cut_body:
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _reset_connection(self) -> None:
        """Close the socket with SO_LINGER 0 so the peer gets a TCP RST and no response."""
        self.close_connection = True
        self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        self.rfile.close()  # drop the makefile reference so close() really closes the descriptor
        self.connection.close()


JIRA_DEPLOYMENTS = ("datacenter", "cloud")


def jira_emulator(
    dataset: Dataset, faults: FaultSwitches | None, deployment: str = "datacenter", time_zone: str = "UTC"
) -> JiraEmulator:
    """The Jira emulator of ``deployment``: ``datacenter`` (REST API v2, offset search) or ``cloud``
    (v2/v3, ``search/jql`` with page tokens, ADF bodies, 410 on the removed search)."""
    if deployment == "cloud":
        return JiraCloudEmulator(dataset, faults, time_zone=time_zone)
    if deployment == "datacenter":
        return JiraEmulator(dataset, faults, time_zone=time_zone)
    raise ValueError(f"unknown Jira deployment {deployment!r}; choose one of {', '.join(JIRA_DEPLOYMENTS)}")


class EmulatorUrls(Protocol):
    """Where a suite's three services answer (a suite in this process or another)."""

    @property
    def jira_url(self) -> str: ...
    @property
    def confluence_url(self) -> str: ...
    @property
    def github_url(self) -> str: ...


class EmulatorSuite:
    """Jira, Confluence and GitHub emulators sharing one dataset and one set of fault switches.

    Ports: ``ports={"jira": 8081, ...}``, or ``base_port=N`` for N (Jira), N+1 (Confluence),
    N+2 (GitHub); ephemeral ports otherwise.
    """

    SERVICES = ("jira", "confluence", "github")

    def __init__(
        self,
        dataset: Dataset,
        *,
        faults: FaultSwitches | None = None,
        host: str = "127.0.0.1",
        base_port: int | None = None,
        ports: Mapping[str, int] | None = None,
        jira_deployment: str = "datacenter",
        jira_time_zone: str = "UTC",
        github_enterprise: bool = False,
        confluence_deployment: str = "datacenter",
        response_check: ResponseHook | None = SESSION_CHECK,
    ) -> None:
        self.dataset = dataset
        self.faults = faults or FaultSwitches()
        chosen = {name: (base_port + i if base_port else 0) for i, name in enumerate(self.SERVICES)}
        chosen.update(ports or {})
        jira = jira_emulator(dataset, self.faults, jira_deployment, jira_time_zone)
        self.jira = EmulatorServer(jira, host=host, port=chosen["jira"], response_check=response_check)
        confluence_app = (
            ConfluenceCloudEmulator(dataset, self.faults)
            if confluence_deployment == "cloud"
            else ConfluenceEmulator(dataset, self.faults)
        )
        if confluence_deployment not in ("cloud", "datacenter"):
            raise ValueError(
                f"unknown Confluence deployment {confluence_deployment!r}; choose cloud or datacenter"
            )
        self.confluence = EmulatorServer(
            confluence_app, host=host, port=chosen["confluence"], response_check=response_check
        )
        self.github = EmulatorServer(
            GitHubEmulator(dataset, self.faults, enterprise=github_enterprise),
            host=host,
            port=chosen["github"],
            response_check=response_check,
        )

    @property
    def servers(self) -> list[EmulatorServer]:
        return [self.jira, self.confluence, self.github]

    @property
    def jira_url(self) -> str:
        return self.jira.base_url

    @property
    def confluence_url(self) -> str:
        """The site URL a client is configured with (``…/wiki`` on Cloud)."""
        cloud = isinstance(self.confluence.app, ConfluenceCloudEmulator)
        return self.confluence.base_url + ("/wiki" if cloud else "")

    @property
    def github_url(self) -> str:
        """The GitHub API base (``…/api/v3`` when serving as GitHub Enterprise Server)."""
        app = self.github.app
        return self.github.base_url + (app.api_prefix if isinstance(app, GitHubEmulator) else "")

    def warm_up(self) -> EmulatorSuite:
        """Do once now what the emulators would otherwise do on their first request (reading the
        vendor's response shapes), so that a timed run measures serving, not start-up."""
        if isinstance(self.github.app, GitHubEmulator):
            self.github.app.warm_up()
        return self

    def start(self) -> EmulatorSuite:
        """Start all three servers (stopping those already started if one fails)."""
        try:
            for server in self.servers:
                server.start()
        except Exception:
            self.stop()
            raise
        return self

    def stop(self) -> None:
        for server in self.servers:
            server.stop()

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()
