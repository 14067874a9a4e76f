"""Words for people (issue 13): players know units by their names, not by the ids the engine and
the format use. The engine's own sentences already name units and models (`rules.naming`, set
by each engine entry point); this module does the same for what the pages build around them:
the subjects of findings, the events of a verdict, declarations and step titles. The names come
from `rules.naming`, the one place that says how a unit and a model are called."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from rules.naming import names_of, names_of_document

__all__ = [
    "EVENT_WORDS",
    "declaration_words",
    "event_rows",
    "finding_rows",
    "names_of",
    "names_of_document",
]


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
