"""The API's description (issue 17): an OpenAPI 3.1 document at a stable URL, valid, referring
to the JSON Schemas the validation uses, readable as a page; and the API answers as it says,
checked by schemathesis generating requests from the document (bounded, loopback only)."""

from __future__ import annotations

import json
import re
import urllib.request

import pytest
from django.test import Client

from battlefield.api_docs import SCHEMA_NAMES, SCHEMAS
from rules.systems import move_types_of

pytestmark = pytest.mark.django_db


def fetch(url: str) -> dict:
    with urllib.request.urlopen(url, timeout=20) as response:
        return json.loads(response.read())


def test_the_document_is_valid_openapi_3_1_with_its_schemas_resolved(live_server):
    from openapi_spec_validator import validate

    url = f"{live_server.url}/api/v1/openapi.json"
    document = fetch(url)
    assert document["openapi"].startswith("3.1")
    validate(document, base_uri=url)  # raises with the path of the first problem


def test_the_document_refers_to_the_schemas_the_site_validates_with(live_server):
    document = fetch(f"{live_server.url}/api/v1/openapi.json")
    refs = set(re.findall(r'"\$ref": "(schemas/[^"]+)"', json.dumps(document)))
    assert refs == {f"schemas/{name}" for name in SCHEMA_NAMES}
    for name in SCHEMA_NAMES:
        served = fetch(f"{live_server.url}/api/v1/schemas/{name}")
        validates = SCHEMAS[name]()
        # the same schema; its $id is where it is served, so its own references resolve there
        assert served["$id"] == f"{live_server.url}/api/v1/schemas/{name}"
        assert {**served, "$id": validates["$id"]} == validates
    # the move types are the registry's, filled in when the schema is loaded
    served = fetch(f"{live_server.url}/api/v1/schemas/move.schema.json")
    assert served["properties"]["type"]["enum"] == list(move_types_of())
    assert Client().get("/api/v1/schemas/settings.py").status_code == 404


def test_the_api_page_is_readable_and_has_no_script_of_its_own(client):
    response = client.get("/api/v1/")
    assert response.status_code == 200
    html = response.content.decode()
    assert "<code>POST /api/v1/adjudicate</code>: Judge a move" in html
    assert 'href="/api/v1/openapi.json"' in html
    assert 'href="/api/v1/schemas/verdict.schema.json"' in html
    scripts = re.findall(r"<script\b[^>]*>", html)
    assert all("src=" in tag for tag in scripts)  # only the site's own files: CSP-clean
    assert "Content-Security-Policy" in response


def test_the_api_answers_as_its_document_says(live_server, settings):
    """schemathesis generates requests from the document (valid and invalid ones) and checks
    every answer against it: no server error, a documented status, content type and shape.

    Five examples per operation: generating a scenario from its schema costs about a second
    each (the requests themselves a few milliseconds), and tests/battlefield/test_fuzz.py already
    throws many more inputs at the adjudication API; what this adds is the document's word."""
    import schemathesis
    from hypothesis import HealthCheck, Phase, given
    from hypothesis import settings as hypothesis_settings
    from schemathesis.specs.openapi.checks import positive_data_acceptance as acceptance

    settings.RATE_LIMITS = {**settings.RATE_LIMITS, "api": (0, 60)}  # every case is one client
    schema = schemathesis.openapi.from_url(f"{live_server.url}/api/v1/openapi.json")
    checked = []
    for result in schema.get_all_operations():
        operation = result.ok()

        @given(case=operation.as_strategy())
        @hypothesis_settings(
            max_examples=5,
            deadline=None,
            database=None,
            derandomize=True,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        def run(case):
            # A schema-valid request may still be refused with 400 (documented): the schemas
            # cannot say that a move's unit must exist in the scenario, or that bases overlap.
            case.call_and_validate(base_url=live_server.url, excluded_checks=[acceptance])

        run()
        checked.append(operation.label)
    assert {"POST /api/v1/adjudicate", "GET /healthz", "GET /s/{token}/scenario.json"} <= set(
        checked
    )
