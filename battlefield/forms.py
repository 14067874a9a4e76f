"""Forms for the pages: new scenario, import, rename."""

from django import forms
from django.core.exceptions import ValidationError

from rules.situation import LIMITS

from .games import game
from .models import SYSTEM_CHOICES
from .text import normalise, problem


def text_validator(*, name: bool = True, free: bool = False):
    """A form-field validator with battlefield.text's rules (names by default); kept here so
    that battlefield.text (read by `python -m rules`) imports no Django."""

    def validate(value) -> None:
        if isinstance(value, str) and (wrong := problem(normalise(value), name=name, free=free)):
            raise ValidationError(f"This {wrong}.")

    return validate


class NameField(forms.CharField):
    """A name people will see on pages and pictures: NFC-normalised, without control, bidi or
    invisible characters (battlefield/text.py; the same rules as names in documents)."""

    def __init__(self, **kwargs):
        kwargs.setdefault("validators", []).append(text_validator(name=True))
        super().__init__(**kwargs)

    def to_python(self, value):
        value = super().to_python(value)
        return normalise(value) if isinstance(value, str) else value


class NewScenarioForm(forms.Form):
    """Name, and game system with table size in one grouped choice (width × height)."""

    name = NameField(max_length=200, initial="New scenario")
    table = forms.ChoiceField(
        label="Game and table",
        choices=[
            (label, [(f"{system}:{size}", text) for size, text in game(system).TABLE_SIZES])
            for system, label in SYSTEM_CHOICES
        ],
    )

    @property
    def system(self) -> str:
        return self.cleaned_data["table"].split(":")[0]

    def table_size(self) -> tuple[int, int]:
        width, height = self.cleaned_data["table"].split(":")[1].split("x")
        return int(width), int(height)


class ImportForm(forms.Form):
    file = forms.FileField(
        label="Scenario JSON file",
        help_text=f"A scenario exported from Arbiter (format arbiter.scenario/1), at most "
        f"{LIMITS['document_bytes'] // 1000:,} kB.",
    )


class RenameForm(forms.Form):
    name = NameField(max_length=200)
