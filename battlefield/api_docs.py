"""The API's own description (issue 17): the OpenAPI 3.1 document at /api/v1/openapi.json, the
JSON Schemas it refers to under /api/v1/schemas/, and a readable page at /api/v1/ drawn on the
server from the same document (no script at all, so nothing for the CSP to refuse).

The document lives in battlefield/openapi.json and refers to the schemas in
battlefield/schemas/ by relative references (`schemas/verdict.schema.json`), so a client that
reads it from the site resolves them on the same site. Each schema is served as the validator
loads it (the move schema with the registry's move types filled in), with `$id` set to the URL
it is served at, so the references between schemas resolve there too (on disk their `$id` is a
placeholder host).
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from django.http import Http404, JsonResponse
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_GET

from .validation import move_schema, scenario_schema, verdict_schema

HERE = Path(__file__).resolve().parent
DOCUMENT = HERE / "openapi.json"
#: The schemas served, by file name, as the validator loads them (the move schema with the
#: registry's move types and declarations filled in, battlefield/registry_schema.py).
SCHEMAS = {
    "scenario.schema.json": scenario_schema,
    "move.schema.json": move_schema,
    "verdict.schema.json": verdict_schema,
}
SCHEMA_NAMES = tuple(SCHEMAS)
CACHE = "public, max-age=300"


@cache
def document() -> dict:
    return json.loads(DOCUMENT.read_text())


def _json(data: dict, content_type: str) -> JsonResponse:
    response = JsonResponse(data, json_dumps_params={"indent": 2, "ensure_ascii": False})
    response["Content-Type"] = content_type
    response["Cache-Control"] = CACHE
    response["Access-Control-Allow-Origin"] = "*"  # other tools may read the description
    return response


@require_GET
def openapi(request):
    return _json(document(), "application/json")


@require_GET
def schema(request, name: str):
    if name not in SCHEMA_NAMES:
        raise Http404("No such schema")
    served = {**SCHEMAS[name](), "$id": request.build_absolute_uri()}
    return _json(served, "application/schema+json")


def _link(ref: str) -> dict:
    """A `$ref` as the page shows it: a schema file to open, or a component on this page."""
    if ref.startswith("#/components/"):
        kind, name = ref.removeprefix("#/components/").split("/", 1)
        return {"name": name, "url": f"#{kind}-{name}"}
    name = ref.rsplit("/", 1)[-1]
    return {"name": name, "url": reverse("api_schema", args=[name])}


def _schema_link(content: dict | None) -> list[dict]:
    rows = []
    for media, body in (content or {}).items():
        ref = body.get("schema", {}).get("$ref")
        rows.append({"media": media, "schema": _link(ref) if ref else None})
    return rows


def operations() -> list[dict]:
    """Each operation of the document, flattened for the template."""
    doc = document()
    shared = doc["components"].get("responses", {})
    rows = []
    for path, methods in doc["paths"].items():
        for method, op in methods.items():
            responses = []
            for status, answer in op["responses"].items():
                if "$ref" in answer:
                    answer = shared[answer["$ref"].rsplit("/", 1)[-1]]
                responses.append(
                    {
                        "status": status,
                        "description": answer["description"],
                        "content": _schema_link(answer.get("content")),
                        "headers": sorted(answer.get("headers", {})),
                    }
                )
            rows.append(
                {
                    "id": op["operationId"],
                    "method": method.upper(),
                    "path": path,
                    "summary": op["summary"],
                    "description": op.get("description", ""),
                    "parameters": op.get("parameters", []),
                    "body": _schema_link(op.get("requestBody", {}).get("content")),
                    "responses": responses,
                }
            )
    return rows


@require_GET
def api_page(request):
    doc = document()
    components = [
        {"id": f"schemas-{name}", "name": name, "json": json.dumps(body, indent=2)}
        for name, body in doc["components"]["schemas"].items()
    ]
    context = {
        "info": doc["info"],
        "operations": operations(),
        "components": components,
        "schemas": [{"name": n, "url": reverse("api_schema", args=[n])} for n in SCHEMA_NAMES],
        "document_url": reverse("api_openapi"),
    }
    return TemplateResponse(request, "battlefield/api.html", context)
