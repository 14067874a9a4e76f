"""`{% live_table scenario %}`: the live-table poller for a page showing `scenario`
(battlefield/live.py)."""

from django import template

from ..live import live_context

register = template.Library()


@register.inclusion_tag("battlefield/_live.html")
def live_table(scenario):
    return live_context(scenario)
