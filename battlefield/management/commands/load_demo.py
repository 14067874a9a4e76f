"""`python manage.py load_demo`: load the demo scenarios and the unit catalogue. Idempotent.

Scenarios come from battlefield/demo/scenarios/*.json and are public; each is keyed by its file
name (`Scenario.demo_key`), so running again updates it in place (its version moves on only if
the file changed) and keeps its share link. Profiles come from battlefield/demo/unit_profiles.json,
keyed by (system, name). Every document goes through the same validator as an import.
"""

from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from rules import InvalidInput

from ...lessons import load_lessons
from ...models import Scenario, UnitProfile, load_row
from ...validation import parse_json, profile_as_scenario, validate_scenario

DEMO_DIR = Path(__file__).resolve().parents[2] / "demo"
PROFILE_FIELDS = ("faction", "keywords", "move", "base", "abilities")


class Command(BaseCommand):
    help = "Load (or refresh) the demo scenarios and the unit catalogue; safe to run again."

    def add_arguments(self, parser):
        parser.add_argument("--dir", default=str(DEMO_DIR), help="demo data folder")

    def handle(self, *args, **options):
        folder = Path(options["dir"])
        with transaction.atomic():
            created, changed = self.load_scenarios(folder / "scenarios")
            p_created, p_changed = self.load_profiles(folder / "unit_profiles.json")
            l_created, l_changed = self.load_lessons(folder / "lessons")
        self.stdout.write(
            f"demo scenarios: {created} added, {changed} updated; "
            f"unit profiles: {p_created} added, {p_changed} updated; "
            f"lessons: {l_created} added, {l_changed} updated"
        )

    def load_lessons(self, folder: Path) -> tuple[int, int]:
        """The built-in lessons (battlefield/lessons.py), after the scenarios they use."""
        if not folder.is_dir():
            return 0, 0
        try:
            return load_lessons(folder)
        except InvalidInput as exc:
            raise CommandError(f"lessons: {exc.field}: {exc.message}") from None

    def load_scenarios(self, folder: Path) -> tuple[int, int]:
        created = changed = 0
        for path in sorted(folder.glob("*.json")):
            document = self.parse(path)
            try:
                validate_scenario(document)
            except InvalidInput as exc:
                raise CommandError(f"{path.name}: {exc.field}: {exc.message}") from None
            outcome = load_row(
                Scenario,
                {"demo_key": path.stem},
                {"document": document, "visibility": Scenario.Visibility.PUBLIC},
            )
            created += outcome == "created"
            changed += outcome == "changed"
        return created, changed

    def load_profiles(self, path: Path) -> tuple[int, int]:
        if not path.exists():
            return 0, 0
        profiles = self.parse(path)
        if not isinstance(profiles, list):
            raise CommandError(f"{path.name}: must be a JSON list of unit profiles")
        created = changed = 0
        for i, entry in enumerate(profiles):
            try:
                validate_scenario(profile_as_scenario(entry))
            except InvalidInput as exc:
                raise CommandError(
                    f"{path.name}[{i}] ({entry.get('name')}): {exc.field}: {exc.message}"
                ) from None
            values = {k: entry.get(k) for k in PROFILE_FIELDS}
            values["faction"] = values["faction"] or ""
            values["keywords"] = values["keywords"] or []
            values["abilities"] = values["abilities"] or []
            values["model_count"] = int(entry.get("models", 1) or 1)
            outcome = load_row(
                UnitProfile, {"system": entry["system"], "name": entry["name"]}, values
            )
            created += outcome == "created"
            changed += outcome == "changed"
        return created, changed

    def parse(self, path: Path):
        try:
            return parse_json(path.read_bytes(), what=f"file {path.name}")
        except InvalidInput as exc:
            raise CommandError(f"{path.name}: {exc.message}") from None
