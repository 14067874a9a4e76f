"""Who may see and change what. Every view asks here, never only the templates.

Until accounts and clubs exist, a scenario without an owner may be edited by the browser session
that created, imported or copied it.
"""

from __future__ import annotations

from django.http import Http404
from django.shortcuts import get_object_or_404

from .models import Scenario

SESSION_KEY = "own_scenarios"


def remember(request, scenario: Scenario) -> None:
    """Let this browser session edit `scenario` (it created or copied it)."""
    own = request.session.get(SESSION_KEY, [])
    if scenario.pk not in own:
        request.session[SESSION_KEY] = [*own, scenario.pk][-200:]


def can_edit(request, scenario: Scenario) -> bool:
    if request.user.is_authenticated and scenario.owner_id == request.user.pk:
        return True
    return scenario.owner_id is None and scenario.pk in request.session.get(SESSION_KEY, [])


def editable_scenario(request, pk: int) -> Scenario:
    """The scenario if this visitor may edit it; otherwise 404 (never reveal that it exists)."""
    scenario = get_object_or_404(Scenario, pk=pk)
    if not can_edit(request, scenario):
        raise Http404("No such scenario")
    return scenario
