"""Check emulator responses against the vendors' own published OpenAPI descriptions.

An emulator that agrees only with devkb's loaders proves nothing about the field; one whose every
response validates against Atlassian's or GitHub's description does. :class:`VendorCheck` is the
hook :class:`~devkb_devtools.emulators.server.EmulatorServer` calls with each response an app produced
(injected faults are not checked: they imitate proxies, not the vendor). It finds the operation in
the app's description (:meth:`EmulatorApp.vendor_description`) and validates status, content type
and body with ``openapi-core``:

- a body that violates the schema, or a 2xx status the operation does not describe, is a
  **violation**: recorded, logged, and the response is replaced by a 500 naming it, so the loader
  under test fails loudly (``VendorCheck.assert_clean`` fails a test on any violation);
- a path the description does not have (Data Center only APIs, Confluence's v1 endpoints that v2
  does not replace) is recorded as **undescribed** — their reference is the recorded real data in
  ``../shared/data/fluid`` — and listed in ``docs/sources-and-sync.md``;
- an error status (4xx/5xx) that the operation does not describe is accepted: the descriptions
  list few of them, and an undocumented error status is not a schema violation.

Descriptions: ``../shared/vendor-apis`` (Jira Cloud platform, Confluence Cloud v2) and any
registered with :func:`register_description` (GitHub's from the npm package ``@octokit/openapi``).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from devkb_devtools.emulators.routing import Request, Response

log = logging.getLogger(__name__)

REPO_ROOT = Path(__file__).resolve().parents[5]
SHARED_VENDOR_APIS = (REPO_ROOT / ".." / "shared" / "vendor-apis").resolve()

OCTOKIT = REPO_ROOT / "tools" / "vendor-apis" / "node_modules" / "@octokit" / "openapi" / "generated"

# name -> (path of the description, the host URL requests are matched against)
_DESCRIPTIONS: dict[str, tuple[Path, str]] = {
    "jira-cloud-platform": (
        SHARED_VENDOR_APIS / "jira-cloud-platform.openapi.json",
        "https://your-domain.atlassian.net",
    ),
    "confluence-cloud-v2": (
        SHARED_VENDOR_APIS / "confluence-cloud-v2.openapi.json",
        "https://your-domain.atlassian.net",
    ),
    # GitHub's own description (npm @octokit/openapi, installed under tools/vendor-apis by make setup)
    "github": (OCTOKIT / "api.github.com.json", "https://api.github.com"),
    "github-enterprise": (OCTOKIT / "ghes-3.19.json", "https://ghes.example.com/api/v3"),
}


# Atlassian Document Format, the JSON Jira Cloud's v3 API returns for rich text (npm
# @atlaskit/adf-schema, installed under tools/vendor-apis by scripts/setup.sh)
ADF_SCHEMA = (
    REPO_ROOT
    / "tools"
    / "vendor-apis"
    / "node_modules"
    / "@atlaskit"
    / "adf-schema"
    / "dist"
    / "json-schema"
    / "v1"
    / "full.json"
)


@lru_cache(maxsize=1)
def _adf_validator() -> Any:
    from jsonschema import Draft4Validator  # type: ignore[import-untyped]

    return Draft4Validator(json.loads(ADF_SCHEMA.read_text(encoding="utf-8")))


def adf_problems(document: Any) -> list[str]:
    """Why ``document`` is not valid ADF (empty when it is); ``[]`` too when the schema is absent."""
    if not ADF_SCHEMA.is_file():
        return []
    return [
        f"{'/'.join(str(p) for p in e.absolute_path)}: {e.message}"[:300]
        for e in _adf_validator().iter_errors(document)
    ][:5]


def _adf_documents(body: Any) -> list[Any]:
    """The rich-text values of a Jira issue or search result (description, environment, comments)."""
    issues: list[Any] = [body]
    if isinstance(body, dict) and isinstance(body.get("issues"), list):
        issues = body["issues"]
    found: list[Any] = []
    for issue in issues:
        fields = issue.get("fields") if isinstance(issue, dict) else None
        if not isinstance(fields, dict):
            continue
        found += [fields[f] for f in ("description", "environment") if isinstance(fields.get(f), dict)]
        comment = fields.get("comment")
        if isinstance(comment, dict):
            found += [
                c["body"]
                for c in comment.get("comments") or []
                if isinstance(c, dict) and isinstance(c.get("body"), dict)
            ]
    return found


class DescriptionMissing(LookupError):
    """The named vendor description is not on this machine."""


def register_description(name: str, path: Path, host_url: str) -> None:
    """Make the description at ``path`` available as ``name`` (requests match ``host_url``)."""
    _DESCRIPTIONS[name] = (path, host_url)
    _load.cache_clear()


def description_available(name: str) -> bool:
    """Whether the description called ``name`` is registered and its file exists."""
    entry = _DESCRIPTIONS.get(name)
    return entry is not None and entry[0].is_file()


@lru_cache(maxsize=8)
def _load(name: str) -> Any:
    from openapi_core import OpenAPI
    from openapi_core.configurations import Config

    entry = _DESCRIPTIONS.get(name)
    if entry is None or not entry[0].is_file():
        raise DescriptionMissing(f"vendor description {name!r} is not available (looked at {entry})")
    spec = _null_in_composites(json.loads(entry[0].read_text(encoding="utf-8")))
    # Atlassian's descriptions have small defects of their own (e.g. a default outside its enum):
    # validating the description itself on load would refuse it; response validation still works.
    return OpenAPI.from_dict(spec, config=Config(spec_validator_cls=None))


def _null_in_composites(node: Any) -> Any:
    """``nullable: true`` next to ``oneOf``/``anyOf`` without a ``type`` (GitHub's commit author, a
    user or nothing): OpenAPI 3.0.3 gives ``nullable`` no effect without ``type``, so a validator
    refuses the ``null`` the service sends; the vendor means null allowed (its own generated types,
    ``@octokit/openapi-types``, read it so). A branch that admits only null says it explicitly.
    Discriminators are dropped (see below)."""
    if isinstance(node, list):
        return [_null_in_composites(n) for n in node]
    if not isinstance(node, dict):
        return node
    # A discriminator beside a oneOf with an array branch (GitHub's contents: a directory is a list)
    # makes validators demand an object; oneOf alone decides the same question correctly.
    out = {k: _null_in_composites(v) for k, v in node.items() if k != "discriminator"}
    if out.get("nullable") is True and "type" not in out:
        for key in ("oneOf", "anyOf"):
            if isinstance(out.get(key), list):
                out[key] = [*out[key], {"type": "object", "nullable": True, "enum": [None]}]
    return out


@dataclass(frozen=True)
class Finding:
    """One checked response that did not pass: which service, request and why."""

    service: str
    description: str
    method: str
    path: str
    status: int
    problem: str

    def __str__(self) -> str:
        return (
            f"{self.service} {self.method} {self.path} -> {self.status}: {self.problem} ({self.description})"
        )


def validate(description: str, request: Request, response: Response) -> tuple[str, str | None]:
    """Validate one exchange: ``("ok", None)``, ``("undescribed", why)`` or ``("violation", why)``."""
    from openapi_core.templating.paths.exceptions import OperationNotFound, PathNotFound, ServerNotFound
    from openapi_core.templating.responses.exceptions import ResponseNotFound
    from openapi_core.testing import MockRequest, MockResponse

    openapi = _load(description)
    host_url = _DESCRIPTIONS[description][1]
    content_type = (response.header("Content-Type") or "application/json").split(";")[0].strip().lower()
    args = {k: v[0] for k, v in request.query.items() if v}
    mock_request = MockRequest(
        host_url,
        request.method,
        request.path,
        args=args,
        headers=request.headers,
        data=request.body or None,
        content_type=(request.headers.get("content-type") or "application/json").split(";")[0],
    )
    body = response.body if request.method != "HEAD" else b""
    mock_response = MockResponse(
        body,
        status_code=response.status,
        headers=dict(response.headers),
        content_type=content_type,
    )
    try:
        openapi.validate_response(mock_request, mock_response)
    except (PathNotFound, OperationNotFound, ServerNotFound) as e:
        return "undescribed", str(e)
    except ResponseNotFound as e:
        if response.status >= 400:
            return "ok", None
        return "violation", f"status {response.status} is not described for this operation ({e})"
    except Exception as e:  # openapi-core raises a family of validation errors; all are violations
        return "violation", _explain(e)
    if description == "jira-cloud-platform" and content_type == "application/json" and response.status < 300:
        try:
            body_json = json.loads(body or b"null")
        except ValueError:
            return "violation", "the body is not JSON"
        for document in _adf_documents(body_json):
            problems = adf_problems(document)
            if problems:
                return "violation", "rich text is not valid ADF (@atlaskit/adf-schema): " + "; ".join(
                    problems
                )
    return "ok", None


def _explain(error: BaseException) -> str:
    parts = [f"{type(error).__name__}: {str(error)[:200]}"]
    cause: BaseException | None = error.__cause__
    while cause is not None:
        detail = getattr(cause, "schema_errors", None)
        if detail:
            parts.extend(
                f"{getattr(d, 'json_path', '')} {getattr(d, 'message', d)}" for d in list(detail)[:5]
            )
        else:
            parts.append(f"{type(cause).__name__}: {cause}")
        cause = cause.__cause__
    return "; ".join(parts)[:2000]


@dataclass
class VendorCheck:
    """Validates every response the emulators produce; collects violations and undescribed paths.

    Install with ``EmulatorSuite(..., vendor_check=VendorCheck())`` (the suite's default) or
    ``EmulatorServer.response_check``. ``strict`` (default) turns a violating response into a 500
    naming the violation, so the client under test cannot silently accept it.
    """

    strict: bool = True
    violations: list[Finding] = field(default_factory=list)
    undescribed: set[tuple[str, str, str]] = field(default_factory=set)
    checked: dict[tuple[str, str, str], int] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def __call__(
        self, service: str, description: str | None, request: Request, response: Response
    ) -> Response:
        if description is None or not description_available(description):
            return response
        verdict, problem = validate(description, request, response)
        template = _template(request.path)
        with self._lock:
            key = (service, request.method, template)
            if verdict == "undescribed":
                self.undescribed.add(key)
            else:
                self.checked[key] = self.checked.get(key, 0) + 1
            finding = Finding(
                service, description, request.method, request.path, response.status, problem or ""
            )
            if verdict == "violation":
                self.violations.append(finding)
            if verdict != "violation":
                return response
        log.error("vendor description violated: %s", finding)
        if not self.strict:
            return response
        body = json.dumps(
            {"errorMessages": [f"emulator response violates {description}: {problem}"]}
        ).encode()
        return Response(500, body, [("Content-Type", "application/json;charset=UTF-8")])

    def assert_clean(self) -> None:
        """Raise ``AssertionError`` listing every violation seen so far."""
        if self.violations:
            listed = "\n".join(str(v) for v in self.violations[:20])
            raise AssertionError(
                f"{len(self.violations)} emulator responses violate the vendor description:\n{listed}"
            )


def _template(path: str) -> str:
    """A path with ids, issue keys and SHAs folded, for reporting (``/rest/api/3/issue/{id}``)."""
    parts: list[str] = []
    for segment in urlsplit(path).path.split("/"):
        after_api = bool(parts) and parts[-1] == "api"  # /rest/api/3: a version, not an id
        sha = len(segment) >= 20 and all(c in "0123456789abcdef" for c in segment)
        key = segment[:1].isalpha() and "-" in segment and segment.rsplit("-", 1)[1].isdigit()
        if (segment.isdigit() and not after_api) or sha or key:
            parts.append("{id}")
        else:
            parts.append(segment)
    return "/".join(parts)


ResponseHook = Callable[[str, str | None, Request, Response], Response]

#: The check every emulator server uses unless told otherwise: one per process, so a test
#: session can assert at its end that no emulator response violated a vendor description.
SESSION_CHECK = VendorCheck()
