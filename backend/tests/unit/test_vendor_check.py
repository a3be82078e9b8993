"""The vendor check itself: a response that violates Atlassian's published description is caught,
one that satisfies it passes, a path the description lacks is reported as undescribed — and a
server whose app answers out of contract sends its client a 500 naming the violation.

These run on the real descriptions in ../shared/vendor-apis and skip with a message without them.
"""

from __future__ import annotations

import json

import pytest
import requests

from devkb_devtools.emulators.app import EmulatorApp
from devkb_devtools.emulators.dataset import Dataset
from devkb_devtools.emulators.routing import Request, Response, Router, json_response
from devkb_devtools.emulators.server import EmulatorServer
from devkb_devtools.emulators.vendor_check import SESSION_CHECK, VendorCheck, description_available, validate

pytestmark = pytest.mark.skipif(
    not (description_available("jira-cloud-platform") and description_available("confluence-cloud-v2")),
    reason="the vendor descriptions are not in ../shared/vendor-apis; vendor checks skipped",
)

ISSUE = {
    "id": "10001",
    "key": "PAY-1",
    "self": "https://your-domain.atlassian.net/rest/api/3/issue/10001",
    "fields": {"summary": "Refunds fail", "updated": "2026-11-01T10:00:00.000+0000"},
}


def _request(path: str, **query: str) -> Request:
    return Request("GET", path, {k: [v] for k, v in query.items()}, {}, b"", "http://127.0.0.1:1")


def _json(data: object, status: int = 200) -> Response:
    return json_response(data, status)


def test_a_search_jql_page_in_the_documented_shape_passes() -> None:
    page = {"issues": [ISSUE], "nextPageToken": "abc", "isLast": False}
    verdict, problem = validate(
        "jira-cloud-platform", _request("/rest/api/3/search/jql", jql="project = PAY"), _json(page)
    )
    assert (verdict, problem) == ("ok", None)


@pytest.mark.parametrize(
    ("body", "why"),
    [
        ({"issues": ISSUE, "isLast": True}, "issues must be an array"),
        ({"issues": [ISSUE], "isLast": "yes"}, "isLast must be a boolean"),
        (
            {"issues": [ISSUE], "startAt": 0, "total": 1},
            "search/jql has no startAt/total (additionalProperties false)",
        ),
    ],
)
def test_a_malformed_search_jql_page_is_a_violation(body: dict[str, object], why: str) -> None:
    verdict, problem = validate(
        "jira-cloud-platform", _request("/rest/api/3/search/jql", jql="x"), _json(body)
    )
    assert verdict == "violation", why
    assert problem


def test_a_user_with_a_numeric_account_id_is_a_violation() -> None:
    good = {"accountId": "5b10ac8d82e05b22cc7d4ef5", "timeZone": "America/Los_Angeles", "active": True}
    assert validate("jira-cloud-platform", _request("/rest/api/3/myself"), _json(good))[0] == "ok"
    bad = {**good, "accountId": 42}
    assert validate("jira-cloud-platform", _request("/rest/api/3/myself"), _json(bad))[0] == "violation"


def test_confluence_v2_pages_are_checked_under_the_wiki_base_path() -> None:
    page = {"id": "65537", "status": "current", "title": "Runbook", "spaceId": "98306"}
    ok = validate(
        "confluence-cloud-v2", _request("/wiki/api/v2/pages"), _json({"results": [page], "_links": {}})
    )
    assert ok == ("ok", None)
    bad = validate("confluence-cloud-v2", _request("/wiki/api/v2/pages"), _json({"results": {"id": 1}}))
    assert bad[0] == "violation"


def test_a_path_the_description_lacks_is_undescribed_not_a_violation() -> None:
    # the Data Center search endpoint does not exist on Cloud's description
    verdict, _ = validate("jira-cloud-platform", _request("/rest/api/2/nosuchthing"), _json({}))
    assert verdict == "undescribed"


def test_an_undocumented_error_status_is_accepted_but_an_undocumented_success_is_not() -> None:
    request = _request("/rest/api/3/myself")
    assert validate("jira-cloud-platform", request, _json({"errorMessages": ["gone"]}, 418))[0] == "ok"
    assert validate("jira-cloud-platform", request, _json({}, 206))[0] == "violation"


class _OutOfContractJira(EmulatorApp):
    """An app that claims Jira Cloud and answers /myself with a numeric account id."""

    service = "jira"

    def register_routes(self, router: Router) -> None:
        router.add("GET", r"/rest/api/3/myself", lambda request: json_response({"accountId": 7}))

    def error_response(self, request: Request, status: int, message: str) -> Response:
        return json_response({"errorMessages": [message]}, status)

    def vendor_description(self) -> str | None:
        return "jira-cloud-platform"


def test_a_server_replaces_a_violating_response_by_a_500_that_names_it(tmp_path) -> None:
    check = VendorCheck()
    app = _OutOfContractJira(Dataset.load(tmp_path))
    with EmulatorServer(app, response_check=check) as server:
        response = requests.get(f"{server.base_url}/rest/api/3/myself", timeout=10)
    assert response.status_code == 500
    assert "violates jira-cloud-platform" in json.dumps(response.json())
    assert len(check.violations) == 1
    with pytest.raises(AssertionError, match="violate the vendor description"):
        check.assert_clean()
    # the session-wide check the suite's own emulators use saw nothing of this private server
    assert all(v.path != "/rest/api/3/myself" or v.status != 200 for v in SESSION_CHECK.violations)


@pytest.mark.skipif(
    not description_available("github"), reason="npm @octokit/openapi is not installed (make setup)"
)
def test_github_responses_are_checked_against_octokits_description() -> None:
    from devkb_devtools.emulators.vendor_check import OCTOKIT
    from devkb_devtools.emulators.vendor_shapes import complete, shapes_for

    shapes = shapes_for(str(OCTOKIT / "api.github.com.deref.json"))
    assert shapes is not None
    request = _request("/repos/acme/payments-service/pulls/3/reviews")
    schema = shapes.schema("GET", request.path, 200)
    review = {
        "id": 1,
        "user": None,
        "body": "LGTM",
        "state": "APPROVED",
        "submitted_at": "2026-05-06T11:20:00Z",
    }
    assert validate("github", request, _json(complete([review], schema)))[0] == "ok"
    # a recorded value of the wrong type is never "completed" away
    wrong = complete([{**review, "id": "one"}], schema)
    assert validate("github", request, _json(wrong))[0] == "violation"
    # completion adds only what is missing: recorded values stay as recorded
    assert complete([review], schema)[0]["body"] == "LGTM"
