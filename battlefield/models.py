"""Scenarios, their step log, the unit catalogue and lessons (DESIGN.md "battlefield/").

Clubs and membership come with accounts (a later issue): `Scenario.owner` is nullable until then,
and a `club` foreign key will sit beside it.
"""

from __future__ import annotations

import copy
import json
import secrets
from datetime import timedelta

from django.conf import settings
from django.core.exceptions import BadRequest, ValidationError
from django.db import IntegrityError, models, transaction
from django.db.models.functions import Cast, Length
from django.urls import reverse
from django.utils import timezone

from rules import SYSTEMS, InvalidInput, Situation

from .games import GAMES
from .pictures import table_png
from .text import readable
from .validation import profile_as_scenario, validate_scenario

#: The games, in the order the site lists them (battlefield/games), named by the registry.
SYSTEM_CHOICES = [(system, SYSTEMS[system].title) for system in GAMES]

#: Order of keys in an exported document: FORMAT.md's order, then anything else alphabetically.
KEY_ORDER = [
    "format",
    "system",
    "name",
    "description",
    "table",
    "terrain",
    "armies",
    "units",
    "turn",
    "id",
    "army",
    "type",
    "category",
    "height",
    "solid",
    "footprint",
    "keywords",
    "move",
    "state",
    "abilities",
    "models",
    "base",
    "x",
    "y",
    "z",
    "facing",
    "width",
]


def load_row(model, lookup: dict, values: dict) -> str | None:
    """Create the row named by `lookup`, or bring it up to date with `values` (idempotent loading
    of built-in data): "created", "changed" or None when it already matched."""
    row, created = model.objects.get_or_create(**lookup, defaults=values)
    if created:
        return "created"
    if all(getattr(row, k) == v for k, v in values.items()):
        return None
    for k, v in values.items():
        setattr(row, k, v)
    row.save()
    return "changed"


def new_share_token() -> str:
    """192 random bits, URL-safe (never a UUID, never derived from the primary key)."""
    return secrets.token_urlsafe(24)


def ordered(value):
    """A JSON value with object keys in FORMAT.md's order (equal to the input as JSON)."""
    if isinstance(value, dict):
        rank = {k: i for i, k in enumerate(KEY_ORDER)}
        keys = sorted(value, key=lambda k: (rank.get(k, len(rank)), k))
        return {k: ordered(value[k]) for k in keys}
    if isinstance(value, list):
        return [ordered(v) for v in value]
    return value


def blank_document(system: str, name: str, width: float, height: float) -> dict:
    """A new, empty table: two armies, no terrain, no units."""
    return {
        "format": "arbiter.scenario/1",
        "system": system,
        "name": name,
        "table": {"width": width, "height": height},
        "terrain": [],
        "armies": [{"id": "red", "name": "Red army"}, {"id": "blue", "name": "Blue army"}],
        "units": [],
        "turn": {"round": 1, "active_army": "red"},
    }


#: Days a deleted scenario stays restorable by its owner (`purge_deleted` removes it after).
RESTORE_DAYS = 30


class OverQuota(Exception):  # noqa: N818 (the site's word for it)
    """A user's scenarios would go over their quota (settings `QUOTA_SCENARIOS`,
    `QUOTA_BYTES`; README "Limits"): nothing is stored. `status` is the answer's: 429 for the
    number of scenarios, 413 for the bytes stored."""

    def __init__(self, message: str, status: int):
        super().__init__(message)
        self.message, self.status = message, status


def document_bytes(document) -> int:
    """The bytes a document takes stored: its compact JSON text, UTF-8."""
    text = json.dumps(document, ensure_ascii=False, separators=(",", ":"))
    return len(text.encode("utf-8", "surrogatepass"))  # a document stored before text was checked


def check_quota(scenario: Scenario) -> None:
    """Refuse (OverQuota) saving `scenario` when its owner would then hold more scenarios or
    more bytes of documents than the quota (deleted ones count until purged: they are still
    stored). Scenarios with no owner (the demo tables) are the site's own."""
    if scenario.owner_id is None:
        return
    others = Scenario.objects.filter(owner_id=scenario.owner_id)
    if scenario.pk is not None:
        others = others.exclude(pk=scenario.pk)
    most = settings.QUOTA_SCENARIOS
    if scenario.pk is None and most and others.count() >= most:
        raise OverQuota(
            f"You have {most:,} scenarios, the most one account may keep here. Delete some you "
            "no longer need (a deleted scenario still counts for 30 days, until it is purged).",
            429,
        )
    limit = settings.QUOTA_BYTES
    if not limit:
        return
    this = document_bytes(scenario.document)
    stored = (
        others.aggregate(total=models.Sum(Length(Cast("document", models.TextField()))))["total"]
        or 0
    )
    if stored + this > limit:
        raise OverQuota(
            f"This would make your scenarios {stored + this:,} bytes in all; one account may "
            f"keep at most {limit:,} bytes here. Delete scenarios you no longer need, or make "
            "this one smaller.",
            413,
        )


class StaleScenario(Exception):
    """The scenario changed since it was read (optimistic concurrency, see Scenario.save)."""


class Scenario(models.Model):
    class Visibility(models.TextChoices):
        PRIVATE = "private", "Private (only you)"
        CLUB = "club", "Club (members of its club)"
        UNLISTED = "unlisted", "Unlisted (anyone with the share link)"
        PUBLIC = "public", "Public (listed on the home page)"

    system = models.CharField(max_length=40, choices=SYSTEM_CHOICES, editable=False)
    name = models.CharField(max_length=200, editable=False)
    document = models.JSONField(help_text="The scenario document (FORMAT.md), validated on save.")
    owner = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="scenarios",
    )
    visibility = models.CharField(
        max_length=10, choices=Visibility.choices, default=Visibility.UNLISTED
    )
    share_token = models.CharField(
        max_length=64, unique=True, default=new_share_token, editable=False
    )
    version = models.PositiveIntegerField(default=1, editable=False)
    forked_from = models.ForeignKey(
        "self",
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="forks",
        editable=False,
    )
    #: Set for scenarios that `load_demo` manages (the data file's name), so reloading updates
    #: them in place instead of adding copies.
    demo_key = models.CharField(max_length=100, unique=True, null=True, blank=True, editable=False)
    created = models.DateTimeField(auto_now_add=True)
    updated = models.DateTimeField(auto_now=True)
    #: The club whose members may edit it (organisers may delete it); None for a personal one.
    club = models.ForeignKey(
        "Club", null=True, blank=True, on_delete=models.SET_NULL, related_name="scenarios"
    )
    #: Soft delete: set when deleted; its owner may restore it for RESTORE_DAYS days.
    deleted_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["name", "pk"]
        indexes = [models.Index(fields=["visibility", "system"])]

    def __str__(self) -> str:
        return self.name or f"Scenario {self.pk}"

    @classmethod
    def from_db(cls, db, field_names, values, *, fetch_mode=None):
        """A stored scenario, its text made safe to show (issue 15): one stored before names
        were checked may hold a lone surrogate (no page could be written) or bidi and invisible
        characters; it opens with them replaced, so its owner can fix or delete it."""
        instance = super().from_db(db, field_names, values, fetch_mode=fetch_mode)
        for attname in ("document", "name"):
            if attname in instance.__dict__:
                setattr(instance, attname, readable(getattr(instance, attname)))
        return instance

    # -- the document ------------------------------------------------------------------------
    def clean(self) -> None:
        """Validate the document with the one validator (admin forms call this)."""
        try:
            validate_scenario(self.document)
        except InvalidInput as exc:
            raise ValidationError(
                {"document": f"{exc.field or 'document'}: {exc.message}"}
            ) from None

    @property
    def unit_name(self) -> str:
        """The game's unit of measure (the registry's): "in" or "cm"."""
        return SYSTEMS[self.system].unit

    @property
    def situation(self) -> Situation:
        """The stored document as a Situation. Documents are validated on the way in (import,
        API, admin, load_demo), so only the engine's own build runs here, not the schema. A base
        the game has refused since the document was stored (Warmaster's stand sizes, RULES.md
        2.1) is kept, so the table still opens and can be mended; its moves are refused."""
        return Situation.from_document(self.document, odd_bases_kept=True)

    def export_document(self) -> dict:
        """The document for download: the same JSON that was imported, keys in FORMAT.md order."""
        return ordered(copy.deepcopy(self.document))

    def save(self, *args, **kwargs):
        """Every change bumps `version` (PNG cache key; optimistic concurrency later).

        The update is conditional on the version read, so two servers saving the same read of a
        scenario cannot both win: the second raises StaleScenario.
        """
        self.system = self.document.get("system", "")
        self.name = str(self.document.get("name", ""))[:200]
        check_quota(self)
        if self._state.adding or self.pk is None:
            return super().save(*args, **kwargs)
        read_version = self.version
        self.version = read_version + 1
        with transaction.atomic():
            fields = {
                f.attname: getattr(self, f.attname)
                for f in self._meta.concrete_fields
                if not f.primary_key and f.attname not in ("created",)
            }
            fields["updated"] = models.functions.Now()
            updated = Scenario.objects.filter(pk=self.pk, version=read_version).update(**fields)
        if not updated:
            self.version = read_version
            raise StaleScenario(f"scenario {self.pk} changed since version {read_version}")
        self.refresh_from_db(fields=["updated"])

    def check_version(self, version) -> None:
        """Refuse an edit made against an older version than the stored one (409 in views)."""
        if version in (None, ""):
            return
        try:
            version = int(version)
        except (TypeError, ValueError):
            raise BadRequest(f"version {version!r} is not a number") from None
        if version != self.version:
            raise StaleScenario(
                f"scenario {self.pk} is at version {self.version}, the edit was made on {version}"
            )
        self.version = version

    def rotate_share_token(self) -> str:
        """A new share link; the old one stops working at once."""
        self.share_token = new_share_token()
        self.save()
        return self.share_token

    @property
    def restorable_until(self):
        if self.deleted_at is None:
            return None
        return self.deleted_at + timedelta(days=RESTORE_DAYS)

    def soft_delete(self) -> None:
        """Hide it everywhere; its owner may restore it for RESTORE_DAYS days."""
        self.deleted_at = timezone.now()
        self.save()

    def restore(self) -> None:
        self.deleted_at = None
        self.save()

    def rename(self, name: str) -> None:
        self.document = {**self.document, "name": name}
        self.save()

    def fork(self, owner=None) -> Scenario:
        """'Copy to edit': a new scenario with the same document and a new token, unlisted (its
        share link works, as every new scenario's does), in no club."""
        document = copy.deepcopy(self.document)
        return Scenario.objects.create(
            document=document,
            owner=owner,
            forked_from=self,
            visibility=Scenario.Visibility.UNLISTED,
        )

    # -- editing (the scenario editor, battlefield/editor.py) ----------------------------------
    def apply_edit(self, document: dict, label: str, *, version: int) -> ScenarioEdit:
        """Replace the document with an edited one: checked by the one validator (InvalidInput,
        nothing stored), refused when `version` is not the version the editor read
        (StaleScenario), saved (the version moves on) and recorded for undo."""
        return ScenarioEdit.record(self, document, label, version=version)

    def undo_edit(self, *, version: int) -> ScenarioEdit:
        """Go back to the document before the latest edit (a change too: the version moves on)."""
        return ScenarioEdit.undo(self, version=version)

    def redo_edit(self, *, version: int) -> ScenarioEdit:
        """Make the latest undone edit again."""
        return ScenarioEdit.redo(self, version=version)

    # -- URLs ----------------------------------------------------------------------------------
    def get_absolute_url(self) -> str:
        return reverse("scenario", args=[self.pk])

    def share_url(self) -> str:
        return reverse("share", args=[self.share_token])

    # -- picture -------------------------------------------------------------------------------
    def png(self) -> bytes:
        """The PNG picture of the current version, drawn once per version and kept in the
        database (several app servers share it; nothing is cached in process memory)."""
        cached = Picture.objects.filter(scenario=self, version=self.version).first()
        if cached is not None:
            return bytes(cached.png)
        png = table_png(self.situation)
        try:
            with transaction.atomic():
                Picture.objects.update_or_create(
                    scenario=self, defaults={"version": self.version, "png": png}
                )
        except IntegrityError:  # another server stored it at the same moment: theirs is as good
            pass
        return png


class Picture(models.Model):
    """The cached PNG of a scenario at one version (replaced when the version moves on)."""

    scenario = models.OneToOneField(
        Scenario, on_delete=models.CASCADE, primary_key=True, related_name="picture"
    )
    version = models.PositiveIntegerField()
    png = models.BinaryField()
    created = models.DateTimeField(auto_now=True)


class ScenarioEdit(models.Model):
    """One change made in the scenario editor, kept for undo and redo: the document before and
    after it. Undo puts `before` back, redo puts `after` back (each a save that moves the
    version on); a new edit after an undo drops the undone edits (the usual redo rule). Only the
    latest HISTORY edits per scenario are kept.

    Undo and redo refuse when the table changed outside the editor since (a committed step):
    they would silently throw that change away. A rename is not such a change (the name is kept).
    """

    HISTORY = 50

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="edits")
    seq = models.PositiveIntegerField()
    label = models.CharField(max_length=200)
    before = models.JSONField()
    after = models.JSONField()
    undone = models.BooleanField(default=False)
    created = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["scenario", "seq"]
        constraints = [models.UniqueConstraint(fields=["scenario", "seq"], name="one_edit_per_seq")]

    def __str__(self) -> str:
        return f"{self.scenario} edit {self.seq}: {self.label}"

    @staticmethod
    def _same_table(a: dict, b: dict) -> bool:
        """Equal documents apart from the name (renaming is not an edit of the table)."""
        return {**a, "name": None} == {**b, "name": None}

    @staticmethod
    def _check_version(scenario: Scenario, version: int) -> None:
        if scenario.version != version:
            raise StaleScenario(
                f"scenario {scenario.pk} is at version {scenario.version}, not {version}"
            )

    @classmethod
    def record(cls, scenario: Scenario, document: dict, label: str, *, version: int):
        cls._check_version(scenario, version)  # a stale page first: reloading comes before fixing
        validate_scenario(document)
        with transaction.atomic():
            before = scenario.document
            scenario.document = document
            try:
                scenario.save()
            except StaleScenario:
                scenario.document = before
                raise
            scenario.edits.filter(undone=True).delete()
            last = scenario.edits.aggregate(last=models.Max("seq"))["last"]
            edit = cls.objects.create(
                scenario=scenario,
                seq=0 if last is None else last + 1,
                label=label[:200],
                before=before,
                after=document,
            )
            stale = scenario.edits.order_by("-seq").values_list("pk", flat=True)[cls.HISTORY :]
            cls.objects.filter(pk__in=list(stale)).delete()
        return edit

    @classmethod
    def undoable(cls, scenario: Scenario):
        return scenario.edits.filter(undone=False).order_by("-seq").first()

    @classmethod
    def redoable(cls, scenario: Scenario):
        return scenario.edits.filter(undone=True).order_by("seq").first()

    @classmethod
    def undo(cls, scenario: Scenario, *, version: int):
        return cls._step(scenario, cls.undoable(scenario), "before", True, version)

    @classmethod
    def redo(cls, scenario: Scenario, *, version: int):
        return cls._step(scenario, cls.redoable(scenario), "after", False, version)

    @classmethod
    def _step(cls, scenario: Scenario, edit, side: str, undone: bool, version: int):
        word = "undo" if undone else "redo"
        cls._check_version(scenario, version)
        if edit is None:
            raise InvalidInput("", f"there is nothing to {word}")
        expected = edit.after if undone else edit.before
        if not cls._same_table(scenario.document, expected):
            raise InvalidInput(
                "",
                f"the table changed outside the editor since “{edit.label}”, so the editor "
                f"cannot {word} it without losing that change",
            )
        document = {**getattr(edit, side), "name": scenario.document.get("name", "")}
        validate_scenario(document)
        with transaction.atomic():
            previous = scenario.document
            scenario.document = document
            try:
                scenario.save()
            except StaleScenario:
                scenario.document = previous
                raise
            cls.objects.filter(pk=edit.pk).update(undone=undone)
        edit.undone = undone
        return edit


class Step(models.Model):
    """One adjudicated move in a scenario's log. Append-only: a step is never changed; undo is a
    later step (or a pointer), never a deletion."""

    scenario = models.ForeignKey(Scenario, on_delete=models.CASCADE, related_name="steps")
    index = models.PositiveIntegerField()
    move = models.JSONField()
    verdict = models.JSONField()
    #: Each die with its source ({"value", "source": "user"|"server"}) and the seed when the
    #: server rolled: the verdict's move.dice / move.seed.
    dice = models.JSONField(default=dict, blank=True)
    #: The scenario document before this step (what an undo restores); null for older steps.
    before = models.JSONField(null=True, blank=True)
    #: For an undo step: the index of the step it takes back (its move and verdict are empty).
    undoes = models.PositiveIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    #: The step's picture (PNG), drawn on first request and kept: a step never changes.
    png = models.BinaryField(null=True, blank=True, editable=False)

    class Meta:
        ordering = ["scenario", "index"]
        constraints = [
            models.UniqueConstraint(fields=["scenario", "index"], name="one_step_per_index")
        ]

    def __str__(self) -> str:
        return f"{self.scenario} step {self.index}"

    def save(self, *args, **kwargs):
        if not self._state.adding:
            raise ValueError("steps are append-only: a saved step is never changed")
        return super().save(*args, **kwargs)

    @classmethod
    def append(cls, scenario: Scenario, move: dict, verdict: dict, **extra) -> Step:
        """Add a step at the end of the log (the unique index refuses a concurrent duplicate).
        `extra`: `before` (the document before the step) and `undoes` (for an undo step)."""
        last = scenario.steps.aggregate(last=models.Max("index"))["last"]
        moved = verdict.get("move", {})
        dice = {"dice": moved.get("dice", [])}
        if "seed" in moved:
            dice["seed"] = moved["seed"]
        return cls.objects.create(
            scenario=scenario,
            index=0 if last is None else last + 1,
            move=move,
            verdict=verdict,
            dice=dice,
            **extra,
        )


class UnitProfile(models.Model):
    """A catalogue entry: a real unit's keywords, move and base, per game system."""

    system = models.CharField(max_length=40, choices=SYSTEM_CHOICES)
    name = models.CharField(max_length=100)
    faction = models.CharField(
        max_length=100, blank=True, default="", help_text="Its army (groups the catalogue)."
    )
    keywords = models.JSONField(default=list, blank=True)
    move = models.FloatField(
        null=True, blank=True, help_text="40K: M in inches. Warmaster: pace in cm."
    )
    base = models.JSONField(help_text='FORMAT.md base: {"round": 32}, {"oval": [60, 35]}, ...')
    model_count = models.PositiveSmallIntegerField(default=1, help_text="Typical models per unit.")
    abilities = models.JSONField(default=list, blank=True)

    class Meta:
        ordering = ["system", "faction", "name"]
        constraints = [
            models.UniqueConstraint(fields=["system", "name"], name="one_profile_per_name")
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.system})"

    def clean(self) -> None:
        """Check the profile as the unit it would become, with the scenario validator."""
        try:
            validate_scenario(profile_as_scenario(self))
        except InvalidInput as exc:
            field = exc.field.removeprefix("units[0].models[0].").removeprefix("units[0].")
            raise ValidationError(f"{field}: {exc.message}") from None


class Lesson(models.Model):
    """A scenario plus the narrated steps that teach a rule (content comes with the UI issue).

    `steps` is an ordered list of {"title", "narration", "move"?}: narration in our own words
    with rule section numbers; `move` a FORMAT.md move to play at that step.
    """

    slug = models.SlugField(unique=True)
    title = models.CharField(max_length=200)
    system = models.CharField(max_length=40, choices=SYSTEM_CHOICES)
    scenario = models.ForeignKey(Scenario, on_delete=models.PROTECT, related_name="lessons")
    summary = models.TextField(blank=True)
    steps = models.JSONField(default=list, blank=True)
    order = models.PositiveSmallIntegerField(default=0)

    class Meta:
        ordering = ["order", "title"]

    def __str__(self) -> str:
        return self.title


# -- clubs and accounts (issue 7) -------------------------------------------------------------


def new_invite_token() -> str:
    return secrets.token_urlsafe(24)


class Club(models.Model):
    """A club: its members may edit its scenarios, its organisers also delete them and invite."""

    name = models.CharField(max_length=100)
    slug = models.SlugField(max_length=60, unique=True)
    created = models.DateTimeField(auto_now_add=True)
    members = models.ManyToManyField(
        settings.AUTH_USER_MODEL, through="Membership", related_name="clubs"
    )

    class Meta:
        ordering = ["name", "pk"]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("club", args=[self.slug])

    def role_of(self, user) -> str | None:
        """'member', 'organiser' or None."""
        if not getattr(user, "is_authenticated", False):
            return None
        return self.memberships.filter(user=user).values_list("role", flat=True).first()

    def is_last_organiser(self, membership: Membership) -> bool:
        return (
            membership.role == Membership.Role.ORGANISER
            and not self.memberships.filter(role=Membership.Role.ORGANISER)
            .exclude(pk=membership.pk)
            .exists()
        )

    def make_invite(self, by, max_uses: int) -> Invite:
        invite = Invite.objects.create(club=self, created_by=by, max_uses=max_uses)
        ClubEvent.record(self, ClubEvent.Kind.INVITE_CREATED, by, invite=invite)
        return invite

    def remove(self, membership: Membership, by) -> None:
        """An organiser removes a member (the caller checks that a club keeps an organiser)."""
        with transaction.atomic():
            membership.delete()
            ClubEvent.record(self, ClubEvent.Kind.REMOVED, by, member=membership.user)

    def change_role(self, membership: Membership, role: str, by) -> None:
        if membership.role == role:
            return
        with transaction.atomic():
            membership.role = role
            membership.save(update_fields=["role"])
            ClubEvent.record(
                self, ClubEvent.Kind.ROLE_CHANGED, by, member=membership.user, role=role
            )


class Membership(models.Model):
    class Role(models.TextChoices):
        MEMBER = "member", "Member"
        ORGANISER = "organiser", "Organiser"

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="memberships")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="memberships"
    )
    role = models.CharField(max_length=10, choices=Role.choices, default=Role.MEMBER)
    joined = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["club", "-role", "user__username"]
        constraints = [models.UniqueConstraint(fields=["club", "user"], name="one_membership")]

    def __str__(self) -> str:
        return f"{self.user} in {self.club} ({self.role})"


class Invite(models.Model):
    """A link that lets up to `max_uses` people join a club, until it expires or an organiser
    revokes it."""

    DAYS = 7
    DEFAULT_USES = 10
    MAX_USES = 1000

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="invites")
    token = models.CharField(max_length=64, unique=True, default=new_invite_token, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    created = models.DateTimeField(auto_now_add=True)
    expires_at = models.DateTimeField()
    max_uses = models.PositiveIntegerField(
        default=DEFAULT_USES, help_text="How many people may join by this link."
    )
    uses = models.PositiveIntegerField(default=0, help_text="How many have joined by it.")
    revoked_at = models.DateTimeField(null=True, blank=True)
    revoked_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
    )

    class Meta:
        ordering = ["-created"]

    def __str__(self) -> str:
        return f"Invite to {self.club} until {self.expires_at:%Y-%m-%d %H:%M}"

    def save(self, *args, **kwargs):
        if self.expires_at is None:
            self.expires_at = timezone.now() + timedelta(days=self.DAYS)
        return super().save(*args, **kwargs)

    @property
    def expired(self) -> bool:
        return timezone.now() >= self.expires_at

    @property
    def uses_left(self) -> int:
        return max(0, self.max_uses - self.uses)

    @property
    def refusal(self) -> str | None:
        """Why the link no longer works: 'revoked', 'used_up', 'expired', or None (it works)."""
        if self.revoked_at is not None:
            return "revoked"
        if self.uses_left == 0:
            return "used_up"
        if self.expired:
            return "expired"
        return None

    @classmethod
    def live(cls, club: Club):
        """The club's links that still admit someone."""
        return club.invites.filter(
            revoked_at=None, expires_at__gt=timezone.now(), uses__lt=models.F("max_uses")
        ).select_related("created_by")

    def admit(self, user) -> bool:
        """Let `user` join by this link: counts one use, makes the membership and records it,
        all or nothing. False when the link no longer works or the user is already a member
        (two people racing for the last use: the database's conditional update decides)."""
        with transaction.atomic():
            counted = Invite.objects.filter(
                pk=self.pk,
                revoked_at=None,
                expires_at__gt=timezone.now(),
                uses__lt=models.F("max_uses"),
            ).update(uses=models.F("uses") + 1)
            if not counted:
                return False
            try:
                with transaction.atomic():
                    Membership.objects.create(club=self.club, user=user)
            except IntegrityError:  # joined twice at once: once is enough, and uses once
                transaction.set_rollback(True)
                return False
            ClubEvent.record(self.club, ClubEvent.Kind.JOINED, user, member=user, invite=self)
        self.refresh_from_db(fields=["uses"])
        return True

    def revoke(self, by) -> None:
        if self.revoked_at is not None:
            return
        self.revoked_at = timezone.now()
        self.revoked_by = by
        self.save(update_fields=["revoked_at", "revoked_by"])
        ClubEvent.record(self.club, ClubEvent.Kind.INVITE_REVOKED, by, invite=self)

    def get_absolute_url(self) -> str:
        return reverse("club_join", args=[self.token])


class ClubEvent(models.Model):
    """One change to a club, with who made it and when: the club's history, shown to its
    organisers (issue 15)."""

    class Kind(models.TextChoices):
        CREATED = "created", "created the club"
        INVITE_CREATED = "invite_created", "made an invite link"
        INVITE_REVOKED = "invite_revoked", "revoked an invite link"
        JOINED = "joined", "joined by an invite link"
        LEFT = "left", "left the club"
        REMOVED = "removed", "removed"
        ROLE_CHANGED = "role_changed", "made"

    club = models.ForeignKey(Club, on_delete=models.CASCADE, related_name="events")
    kind = models.CharField(max_length=20, choices=Kind.choices)
    at = models.DateTimeField(auto_now_add=True, db_index=True)
    actor = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+"
    )
    member = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        null=True,
        blank=True,
        on_delete=models.SET_NULL,
        related_name="+",
        help_text="The member the change is about, if any.",
    )
    invite = models.ForeignKey(
        Invite, null=True, blank=True, on_delete=models.SET_NULL, related_name="events"
    )
    role = models.CharField(
        max_length=10, choices=Membership.Role.choices, blank=True, help_text="The new role."
    )

    class Meta:
        ordering = ["-at", "-pk"]

    def __str__(self) -> str:
        return f"{self.club}: {self.sentence} ({self.at:%Y-%m-%d %H:%M})"

    @classmethod
    def record(cls, club: Club, kind: str, actor, *, member=None, invite=None, role: str = ""):
        return cls.objects.create(
            club=club, kind=kind, actor=actor, member=member, invite=invite, role=role
        )

    @property
    def sentence(self) -> str:
        """'alice removed bob', 'bob joined by an invite link', 'alice made bob Organiser'."""
        who = self.actor.username if self.actor else "someone"
        whom = self.member.username if self.member else "a former member"
        if self.kind == self.Kind.REMOVED:
            return f"{who} removed {whom}"
        if self.kind == self.Kind.ROLE_CHANGED:
            return f"{who} made {whom} {Membership.Role(self.role).label}"
        return f"{who} {self.get_kind_display()}"


class RateCounter(models.Model):
    """Requests counted per key (scope + client address or user) per fixed time window, in the
    database so that several app servers share the count (battlefield/ratelimit.py)."""

    key = models.CharField(max_length=200)
    window = models.BigIntegerField(help_text="Window start, seconds since the epoch.")
    count = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["key", "window"], name="one_counter")]
        indexes = [models.Index(fields=["window"])]
