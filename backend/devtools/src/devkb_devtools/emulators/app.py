"""The common shape of an emulator app: routes, error rendering, fault responses.

An app is I/O-free: :mod:`devkb_devtools.emulators.server` parses HTTP into a
:class:`~devkb_devtools.emulators.routing.Request`, asks the shared
:class:`~devkb_devtools.emulators.faults.FaultSwitches` whether to misbehave, and otherwise calls
:meth:`EmulatorApp.handle`.
"""

from __future__ import annotations

from typing import Any, ClassVar

from devkb_devtools.emulators.dataset import Dataset
from devkb_devtools.emulators.faults import FaultSwitches
from devkb_devtools.emulators.routing import HttpError, Request, Response, Router

REASONS = {
    400: "Bad Request",
    401: "Unauthorized",
    403: "Forbidden",
    404: "Not Found",
    405: "Method Not Allowed",
    429: "Too Many Requests",
    500: "Internal Server Error",
    502: "Bad Gateway",
    503: "Service Unavailable",
    504: "Gateway Timeout",
}


class EmulatorApp:
    """Base class: subclasses set ``service``, register routes and render errors their way."""

    service: ClassVar[str] = "emulator"

    def __init__(self, dataset: Dataset, faults: FaultSwitches | None = None) -> None:
        self.dataset = dataset
        self.faults = faults or FaultSwitches()
        self.router = Router()
        self.register_routes(self.router)

    def register_routes(self, router: Router) -> None:
        """Add this service's routes to ``router``."""
        raise NotImplementedError

    def error_response(self, request: Request, status: int, message: str) -> Response:
        """``status`` with ``message`` in this service's error body shape."""
        raise NotImplementedError

    def handle(self, request: Request) -> Response:
        """Route ``request``; :class:`HttpError` becomes the service's error response."""
        try:
            return self.router.dispatch(request)
        except HttpError as e:
            response = self.error_response(request, e.status, e.message)
            response.headers.extend(e.headers)
            return response

    def fault_response(
        self, request: Request, status: int, message: str | None, retry_after: float | None
    ) -> Response:
        """The response for an injected ``status`` fault."""
        response = self.error_response(request, status, message or REASONS.get(status, "Error"))
        if retry_after is not None:
            response.set_header("Retry-After", _seconds(retry_after))
        return response

    def vendor_description(self) -> str | None:
        """The name of the vendor's OpenAPI description this app's responses must satisfy
        (:mod:`devkb_devtools.emulators.vendor_check`); None where the vendor publishes none (Data Center)."""
        return None

    def describe(self) -> dict[str, Any]:
        """Short JSON description for ``GET /_emulator``."""
        return {"service": self.service}


def _seconds(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else str(value)
