"""`python manage.py purge`: remove what is past keeping (run it daily, e.g. from cron).

- Scenarios deleted more than RESTORE_DAYS (30) days ago, with their steps and pictures: their
  owners can no longer restore them.
- Rate-limit counters of windows that ended more than a day ago.
"""

from datetime import timedelta

from django.core.management.base import BaseCommand
from django.db.models import ProtectedError
from django.utils import timezone

from ... import ratelimit
from ...models import RESTORE_DAYS, Scenario


class Command(BaseCommand):
    help = "Remove scenarios deleted over 30 days ago and old rate-limit counters."

    def handle(self, *args, **options):
        cutoff = timezone.now() - timedelta(days=RESTORE_DAYS)
        removed = kept = 0
        for scenario in Scenario.objects.filter(deleted_at__lt=cutoff):
            try:
                scenario.delete()
                removed += 1
            except ProtectedError:  # a lesson still uses it: keep it, deleted
                kept += 1
        counters = ratelimit.purge()
        self.stdout.write(
            f"removed {removed} deleted scenarios ({kept} kept for lessons), "
            f"{counters} rate-limit counters"
        )
