"""Words for people (issue 13): players know units by their names, not by the ids the engine and
the format use. One place turns ids into names for the pages: the subjects of findings, the
events of a verdict, declarations and step titles. The engine's own sentences are left as they
are (they name ids; the subject beside each one says whose id it is)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping


def names_of_document(document: Mapping | None) -> dict[str, str]:
    """Unit id -> unit name and model id -> "model id of unit name", from a scenario document."""
    names: dict[str, str] = {}
    for unit in (document or {}).get("units", ()):
        unit_name = unit.get("name") or unit["id"]
        names[unit["id"]] = unit_name
        for model in unit.get("models", ()):
            names.setdefault(model["id"], f"{model['id']} of {unit_name}")
    return names


def names_of(situation) -> dict[str, str]:
    """The same names from a built situation."""
    names: dict[str, str] = {}
    for unit in situation.units:
        unit_name = unit.name or unit.id
        names[unit.id] = unit_name
        for model in unit.models:
            names.setdefault(model.id, f"{model.id} of {unit_name}")
    return names


def finding_rows(findings: Iterable, names: Mapping[str, str]) -> list[dict]:
    """Findings (objects or their dicts) as dicts for the templates, each with `who`: the
    subject by name."""
    rows = []
    for finding in findings:
        row = dict(finding) if isinstance(finding, Mapping) else finding.as_dict()
        row["who"] = names.get(row.get("subject", ""), row.get("subject", ""))
        rows.append(row)
    return rows


#: How each event of a verdict reads ({unit} and the other keys are filled in by name).
EVENT_WORDS = {
    "destroyed": "{unit} is destroyed.",
    "slain": "{unit} is slain.",
    "charged": "{unit} charged {target}.",
    "make-way": "{unit}: friends make way.",
    "may-be-ordered": "{unit} may be given orders this phase.",
}


def event_rows(events: Iterable[Mapping], names: Mapping[str, str]) -> list[str]:
    """Each event of a verdict as a sentence: outcomes, not checks, so never a pass or a fail."""
    rows = []
    for event in events:
        kind = str(event.get("event", "event"))
        filled = {k: names.get(v, v) if isinstance(v, str) else v for k, v in event.items()}
        template = EVENT_WORDS.get(kind)
        if template is not None:
            try:
                rows.append(template.format(**filled))
                continue
            except (KeyError, IndexError):
                pass
        details = ", ".join(
            f"{k.replace('_', ' ')} {v}" for k, v in filled.items() if k not in ("event", "unit")
        )
        who = filled.get("unit", "")
        text = f"{who}: {kind.replace('-', ' ')}" if who else kind.replace("-", " ")
        rows.append(f"{text}{f' ({details})' if details else ''}.")
    return rows


def declaration_words(name: str, value, names: Mapping[str, str]) -> tuple[str, str]:
    """A declaration as a player reads it: its name in words and its value by name."""
    label = name.replace("_", " ").capitalize()
    if value is True or value is False:
        return label, "yes" if value else "no"
    if isinstance(value, dict):
        parts = []
        for key, v in value.items():
            shown = names.get(v, v) if isinstance(v, str) else v
            parts.append(f"{key.replace('_', ' ')} {shown}")
        return label, ", ".join(parts)
    if isinstance(value, list):
        return label, ", ".join(str(names.get(v, v)) for v in value)
    return label, str(names.get(value, value)) if isinstance(value, str) else str(value)
