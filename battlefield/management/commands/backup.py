"""`python manage.py backup [--output DIR]`: a consistent copy of the database (`make backup`).

SQLite: the online backup API (sqlite3.Connection.backup), safe while the site is serving; the
copy is a plain SQLite file. PostgreSQL (DATABASE_URL): `pg_dump --format=custom`. Restore is
in docs/deploy.md. Prints the path of the backup.
"""

import os
import shutil
import sqlite3
import subprocess
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError
from django.db import connections


class Command(BaseCommand):
    help = "Back up the database: SQLite online backup, or pg_dump for PostgreSQL."
    requires_system_checks = []

    def add_arguments(self, parser):
        parser.add_argument(
            "--output", default=str(settings.BASE_DIR / "backups"), help="folder for the backup"
        )

    def handle(self, *args, **options):
        # Backups hold every account's password hash and session: readable by their owner only
        # (issue 15), whatever the umask of the cron job that makes them.
        previous = os.umask(0o077)
        try:
            self.back_up(options)
        finally:
            os.umask(previous)

    def back_up(self, options) -> None:
        folder = Path(options["output"])
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        database = settings.DATABASES["default"]
        engine = database["ENGINE"]
        if engine.endswith("sqlite3"):
            target = folder / f"arbiter-{stamp}.sqlite3"
            self.backup_sqlite(Path(database["NAME"]), target)
        elif "postgresql" in engine:
            target = folder / f"arbiter-{stamp}.pgdump"
            self.backup_postgresql(database, target)
        else:
            raise CommandError(f"no backup method for the database engine {engine}")
        target.chmod(0o600)
        self.stdout.write(str(target))

    def backup_sqlite(self, source: Path, target: Path) -> None:
        if not source.exists():
            raise CommandError(f"no database at {source}")
        connections["default"].close()
        with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
            src.backup(dst)  # page by page, consistent even while others write
        with sqlite3.connect(target) as check:
            (result,) = check.execute("PRAGMA integrity_check").fetchone()
        if result != "ok":
            target.unlink()
            raise CommandError(f"the backup failed its integrity check: {result}")

    def backup_postgresql(self, database: Mapping[str, Any], target: Path) -> None:
        if shutil.which("pg_dump") is None:
            raise CommandError("pg_dump is not installed (apt install postgresql-client)")
        env = {**os.environ, "PGPASSWORD": str(database.get("PASSWORD") or "")}
        command = ["pg_dump", "--format=custom", "--no-owner", f"--file={target}"]
        for option, key in (("--host", "HOST"), ("--port", "PORT"), ("--username", "USER")):
            if database.get(key):
                command.append(f"{option}={database[key]}")
        command.append(database["NAME"])
        result = subprocess.run(command, env=env, capture_output=True, text=True)
        if result.returncode != 0:
            target.unlink(missing_ok=True)
            raise CommandError(f"pg_dump failed: {result.stderr.strip()}")
