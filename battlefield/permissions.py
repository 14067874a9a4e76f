"""Who may see and change what. Every view asks here, never only the templates.

The rules (issue 7):

- A scenario belongs to its owner and, optionally, a club. Its visibility is one of
  private (the owner only), club (the club's members), unlisted (anyone with the share link) or
  public (anyone; listed on the home page).
- The owner may view, edit, delete, restore, rotate its share link and change its visibility.
- Members of the owning club may view and edit it unless it is private; organisers may also
  delete it.
- Everyone else sees an unlisted scenario through its share link only, and a public one anywhere.
- A scenario that may not be seen is 404, never 403: nobody learns that it exists. One that may
  be seen but not changed answers 403 to an edit.
- A deleted scenario (soft delete) is 404 everywhere except its owner's list of deleted ones.

Views call `viewable_scenario` / `shared_scenario` / `editable_scenario` / `deletable_scenario`;
`can_view` / `can_edit` / `can_delete` answer the same questions for a scenario already in hand.
An edit may carry the version it was made against (form field `version` or header
`X-Scenario-Version`); `check_version(request, scenario)` compares it with the stored one and
raises StaleScenario, which the middleware answers with 409 (views with their own 409 answer,
like the stepper's, catch it themselves). Scenario.save refuses a save that races another.
"""

from __future__ import annotations

from django.core.exceptions import BadRequest, PermissionDenied
from django.db import connection
from django.http import Http404
from django.shortcuts import get_object_or_404

from .models import Membership, Scenario

#: Before accounts, the session remembered the scenarios it created. Accounts replaced that: the
#: list is still kept (`remember`) so a browser's recent scenarios can be shown, but it grants
#: nothing.
SESSION_KEY = "own_scenarios"

VERSION_FIELD = "version"
VERSION_HEADER = "X-Scenario-Version"


def remember(request, scenario: Scenario) -> None:
    """Note that this browser session created or copied `scenario` (grants no permission)."""
    own = request.session.get(SESSION_KEY, [])
    if scenario.pk not in own:
        request.session[SESSION_KEY] = [*own, scenario.pk][-200:]


def _user(request_or_user):
    """Accept a request or a user (tests and templates have one or the other)."""
    user = getattr(request_or_user, "user", request_or_user)
    return user if getattr(user, "is_authenticated", False) else None


def club_role(request_or_user, scenario: Scenario) -> str | None:
    """The user's role in the scenario's club ('member', 'organiser') or None."""
    user = _user(request_or_user)
    if user is None or scenario.club_id is None:
        return None
    cache: dict[int, str | None] | None = getattr(scenario, "_club_roles", None)
    if cache is None:
        cache = {}
        scenario._club_roles = cache  # type: ignore[attr-defined]  # per-request memo
    if user.pk not in cache:
        cache[user.pk] = (
            Membership.objects.filter(club_id=scenario.club_id, user=user)
            .values_list("role", flat=True)
            .first()
        )
    return cache[user.pk]


def is_owner(request_or_user, scenario: Scenario) -> bool:
    user = _user(request_or_user)
    return user is not None and scenario.owner_id == user.pk


def _club_shared(request_or_user, scenario: Scenario) -> bool:
    """The club's members share it: it has a club, is not private, and the user is a member."""
    return (
        scenario.visibility != Scenario.Visibility.PRIVATE
        and club_role(request_or_user, scenario) is not None
    )


def can_view(request_or_user, scenario: Scenario, *, via_link: bool = False) -> bool:
    """May this visitor see it? `via_link`: they came with its share token."""
    if scenario.deleted_at is not None:
        return False
    if is_owner(request_or_user, scenario) or _club_shared(request_or_user, scenario):
        return True
    if scenario.visibility == Scenario.Visibility.PUBLIC:
        return True
    return via_link and scenario.visibility == Scenario.Visibility.UNLISTED


def can_edit(request_or_user, scenario: Scenario) -> bool:
    """May this visitor change it (rename, edit the table, commit a step)? Needs an account."""
    if scenario.deleted_at is not None:
        return False
    return is_owner(request_or_user, scenario) or _club_shared(request_or_user, scenario)


def can_delete(request_or_user, scenario: Scenario) -> bool:
    """The owner, or an organiser of its club (unless it is private)."""
    if scenario.deleted_at is not None:
        return False
    return is_owner(request_or_user, scenario) or (
        scenario.visibility != Scenario.Visibility.PRIVATE
        and club_role(request_or_user, scenario) == Membership.Role.ORGANISER
    )


def can_manage(request_or_user, scenario: Scenario) -> bool:
    """Visibility, club, share link rotation and restore: the owner alone."""
    return is_owner(request_or_user, scenario)


#: The columns the checks above read: enough for `shared_scenario(..., light=True)`, which
#: leaves the document (large JSON) unread, for answers that need no more (the live table's 304).
CHECKED_FIELDS = ("share_token", "version", "visibility", "owner_id", "club_id", "deleted_at")


def light_scenario(share_token: str) -> Scenario | None:
    """The scenario with only CHECKED_FIELDS read, by one plain SELECT on the unique share token
    (None if there is none, or if it is deleted: nobody sees a deleted scenario through its
    link, so its deletion date need not be read): the live table asks this for every viewer
    every 2 s, and building an ORM query cost five times running it (issue 17). Check it with
    `can_view` before answering anything about it."""
    fields = [
        f for f in Scenario._meta.concrete_fields if f.primary_key or f.attname in CHECKED_FIELDS
    ]
    read = [f for f in fields if f.attname != "deleted_at"]
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {', '.join(str(f.column) for f in read)} FROM {Scenario._meta.db_table} "
            "WHERE share_token = %s AND deleted_at IS NULL",
            [share_token],
        )
        row = cursor.fetchone()
    if row is None:
        return None
    values = dict(zip((f.attname for f in read), row, strict=True), deleted_at=None)
    # (from_db takes the values in the model's field order)
    return Scenario.from_db(
        connection.alias, [f.attname for f in fields], [values[f.attname] for f in fields]
    )


def _get(*, light: bool = False, document: bool = True, **lookup) -> Scenario:
    if light:
        if (scenario := light_scenario(lookup["share_token"])) is None:
            raise Http404("No such scenario")
        return scenario
    scenarios = Scenario.objects.select_related("club", "owner")
    return get_object_or_404(scenarios if document else scenarios.defer("document"), **lookup)


def viewable_scenario(request, pk: int, *, document: bool = True) -> Scenario:
    """The scenario by id if this visitor may see it; otherwise 404 (never reveal it exists).
    `document=False`: as for `shared_scenario`."""
    scenario = _get(pk=pk, document=document)
    if not can_view(request, scenario):
        raise Http404("No such scenario")
    return scenario


def shared_scenario(request, token: str, *, light: bool = False, document: bool = True) -> Scenario:
    """The scenario by share token if it may be seen through its link; otherwise 404.
    `light`: read only the columns the check needs (CHECKED_FIELDS). `document=False`: leave
    the document unread until something asks for it (a page served from what was kept for its
    version needs no more than the row)."""
    scenario = _get(share_token=token, light=light, document=document)
    if not can_view(request, scenario, via_link=True):
        raise Http404("No such scenario")
    return scenario


def submitted_version(request):
    """The version an edit was made against, if the request says (form field or header)."""
    if request.method != "POST":
        return None
    return request.POST.get(VERSION_FIELD) or request.headers.get(VERSION_HEADER)


def check_version(request, scenario: Scenario) -> None:
    """Raise StaleScenario (409) when the request was made on an older version than the stored
    one, and BadRequest (400) when it names none (issue 15: every edit says which version it
    was made on, so nobody changes what they have not seen)."""
    version = submitted_version(request)
    if version in (None, ""):
        raise BadRequest(
            f"Say which version of the scenario this change was made on (the {VERSION_FIELD!r} "
            f"field or the {VERSION_HEADER} header)."
        )
    scenario.check_version(version)


def editable_scenario(request, pk: int) -> Scenario:
    """The scenario if this visitor may edit it: 404 if they may not see it, 403 if they may see
    but not change it."""
    scenario = _get(pk=pk)
    if not can_edit(request, scenario):
        if can_view(request, scenario):
            raise PermissionDenied("You may look at this scenario but not change it.")
        raise Http404("No such scenario")
    return scenario


def deletable_scenario(request, pk: int) -> Scenario:
    scenario = _get(pk=pk)
    if not can_delete(request, scenario):
        if can_view(request, scenario):
            raise PermissionDenied("Only the owner or an organiser of its club may delete it.")
        raise Http404("No such scenario")
    return scenario


def managed_scenario(request, pk: int, *, deleted: bool = False) -> Scenario:
    """The owner's own scenario (for visibility, share link, restore); 404 for anyone else.
    `deleted`: look among the deleted ones (restore)."""
    scenario = _get(pk=pk)
    if not is_owner(request, scenario) or (scenario.deleted_at is not None) != deleted:
        raise Http404("No such scenario")
    return scenario
