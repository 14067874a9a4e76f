"""Data safety: `manage.py backup` (make backup) makes a consistent, restorable copy; `purge`
removes only what is past its 30 days."""

import os
import sqlite3
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
from django.core.management import call_command
from django.utils import timezone

from battlefield.models import Lesson, RateCounter, Scenario
from tests.documents import scenario

ROOT = Path(__file__).resolve().parents[2]


def manage(env, *args):
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    ).stdout


def test_a_sqlite_backup_holds_every_scenario_and_restores_as_the_live_database(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["SQLITE_PATH"] = str(tmp_path / "live.sqlite3")
    env["DEBUG"] = "true"  # a development run: no SECRET_KEY (DEBUG is off unless set)
    manage(env, "migrate", "--noinput", "-v0")
    manage(env, "load_demo")
    backup = Path(manage(env, "backup", "--output", str(tmp_path / "backups")).strip())
    assert backup.parent == tmp_path / "backups" and backup.suffix == ".sqlite3"
    with sqlite3.connect(env["SQLITE_PATH"]) as live, sqlite3.connect(backup) as copy:
        query = "SELECT share_token, document FROM battlefield_scenario ORDER BY id"
        assert copy.execute(query).fetchall() == live.execute(query).fetchall()
        assert len(copy.execute(query).fetchall()) >= 5
    # restore (docs/deploy.md): the copy in place of the database, then migrate is a no-op
    restored = tmp_path / "restored.sqlite3"
    restored.write_bytes(backup.read_bytes())
    env["SQLITE_PATH"] = str(restored)
    assert "No migrations to apply" in manage(env, "migrate", "--noinput")


@pytest.mark.django_db
def test_purge_removes_scenarios_deleted_over_thirty_days_ago_only():
    old, recent, live = (Scenario.objects.create(document=scenario()) for _ in range(3))
    in_a_lesson = Scenario.objects.create(document=scenario())
    Lesson.objects.create(slug="l", title="L", system="wh40k-11e", scenario=in_a_lesson)
    now = timezone.now()
    Scenario.objects.filter(pk__in=[old.pk, in_a_lesson.pk]).update(
        deleted_at=now - timedelta(days=31)
    )
    Scenario.objects.filter(pk=recent.pk).update(deleted_at=now - timedelta(days=29))
    RateCounter.objects.create(key="api:addr:x", window=0, count=1)
    call_command("purge", stdout=open(os.devnull, "w"))
    assert set(Scenario.objects.values_list("pk", flat=True)) == {
        recent.pk,
        live.pk,
        in_a_lesson.pk,
    }
    assert not RateCounter.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_the_accounts_migration_keeps_every_existing_share_link_working():
    """Before accounts, "private" meant "owner and anyone with the link": now "unlisted"."""
    from django.db import connection
    from django.db.migrations.executor import MigrationExecutor

    before, after = (
        [("battlefield", "0003_scenario_edit")],
        [("battlefield", "0004_clubs_accounts")],
    )
    executor = MigrationExecutor(connection)
    executor.migrate(before)
    old = executor.loader.project_state(before).apps.get_model("battlefield", "Scenario")
    shared = old.objects.create(document=scenario(), visibility="private", share_token="a" * 32)
    listed = old.objects.create(document=scenario(), visibility="public", share_token="b" * 32)
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(after)
    new = executor.loader.project_state(after).apps.get_model("battlefield", "Scenario")
    assert new.objects.get(pk=shared.pk).visibility == "unlisted"
    assert new.objects.get(pk=listed.pk).visibility == "public"
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
