"""`make serve` (issue 17): the production stack from a checkout and an env file, started for
real on a free loopback port and asked over HTTP: /healthz, a page, a static file, the live
table and the adjudication API. SQLite in a scratch folder; with DATABASE_URL pointing at
PostgreSQL, a scratch database of its own there (created and dropped here)."""

from __future__ import annotations

import json
import os
import re
import secrets
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from contextlib import contextmanager
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "battlefield" / "demo"
HOST = "127.0.0.1"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


@contextmanager
def scratch_database(tmp_path: Path):
    """Where the served site keeps its data: a scratch PostgreSQL database when the suite runs
    on PostgreSQL, else a SQLite file."""
    url = os.environ.get("DATABASE_URL", "")
    if not url.startswith(("postgres://", "postgresql://")):
        yield {"SQLITE_PATH": str(tmp_path / "db.sqlite3")}
        return
    import psycopg

    name = f"arbiter_serve_{secrets.token_hex(4)}"
    server = url.split("?", 1)[0].rsplit("/", 1)[0]
    admin_url = f"{server}/postgres"  # the maintenance database: DATABASE_URL's may not exist
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        yield {"DATABASE_URL": f"{server}/{name}"}
    finally:
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def get(url: str, headers: dict | None = None, data: bytes | None = None):
    request = urllib.request.Request(url, headers=headers or {}, data=data)
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, dict(exc.headers), exc.read()


def test_make_serve_runs_the_production_stack(tmp_path):
    port = free_port()
    with scratch_database(tmp_path) as database:
        env_file = tmp_path / "club.env"
        settings = {
            "DEBUG": "false",
            "SECRET_KEY": secrets.token_urlsafe(50),
            "ALLOWED_HOSTS": HOST,
            # plain HTTP on loopback: no TLS redirect (the proxy in deploy/ does TLS)
            "SECURE_SSL_REDIRECT": "false",
            "SECURE_COOKIES": "false",
            "SECURE_HSTS_SECONDS": "0",
            "STATIC_ROOT": str(tmp_path / "static"),
            "BACKUP_DIR": str(tmp_path / "backups"),
            "WEB_WORKERS": "1",
            "WEB_THREADS": "2",
            **database,
        }
        env_file.write_text(
            "# a club's settings\n" + "".join(f"{k}={v}\n" for k, v in settings.items())
        )
        env = {
            k: v
            for k, v in os.environ.items()
            if k not in ("DATABASE_URL", "DJANGO_SETTINGS_MODULE")
        }
        env["ENV_FILE"] = str(env_file)
        log = (tmp_path / "serve.log").open("w+")
        # -o: use the installed .venv as it is (the suite's own install), do not reinstall.
        server = subprocess.Popen(
            [
                "make",
                "--no-print-directory",
                "-o",
                ".venv/.installed",
                "serve",
                f"HOST={HOST}",
                f"PORT={port}",
                f"PY={sys.executable}",
            ],
            cwd=ROOT,
            env=env,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
        base = f"http://{HOST}:{port}"
        try:
            deadline = time.monotonic() + 90
            while True:
                try:
                    status, _, body = get(f"{base}/healthz")
                    break
                except OSError:
                    assert server.poll() is None, "make serve stopped:\n" + log_text(log)
                    assert time.monotonic() < deadline, "no answer in 90 s:\n" + log_text(log)
                    time.sleep(0.3)
            assert status == 200 and json.loads(body)["database"] == "ok"

            status, headers, body = get(f"{base}/")
            page = body.decode()
            assert status == 200 and "Arbiter" in page
            assert "Content-Security-Policy" in headers

            # static files were collected into STATIC_ROOT and are served by whitenoise
            status, _, _ = get(f"{base}/static/js/live.js")
            assert status == 200
            assert (tmp_path / "static" / "js" / "live.js").exists()

            # the demo data is loaded: a share page polls the live table, which answers 304
            share = re.search(r'href="(/s/[\w-]+/)"', page).group(1)
            html = get(f"{base}{share}")[2].decode()
            live = re.search(r'hx-get="(/s/[\w-]+/live[^"]*)"', html).group(1).replace("&amp;", "&")
            version = re.search(r'If-None-Match": "\\"(v\d+)', html).group(1)
            assert get(f"{base}{live}", {"If-None-Match": f'"{version}"'})[0] == 304

            payload = {
                "scenario": json.loads(
                    (DEMO / "scenarios" / "warmaster-home-back.json").read_text()
                ),
                "move": json.loads((DEMO / "moves" / "warmaster-home-back.json").read_text()),
            }
            status, _, body = get(
                f"{base}/api/v1/adjudicate",
                {"Content-Type": "application/json"},
                json.dumps(payload).encode(),
            )
            assert status == 200, body[:300]
            assert "legal" in json.loads(body)
        finally:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()
        text = log_text(log)
        assert text.count("manage.py migrate") == 1  # once, before the workers start
        assert "manage.py collectstatic" in text
        assert "worker_class" not in text or "gthread" in text
        assert "daily backup and purge at 03:30 UTC" in text


def log_text(log) -> str:
    log.flush()
    log.seek(0)
    return log.read()[-4000:]


def test_the_cron_line_runs_backup_and_purge_daily(tmp_path):
    env_file = tmp_path / ".env"
    env_file.write_text("SCHEDULE=off\nSCHEDULE_AT=04:15\nBACKUP_DIR=/var/backups/arbiter\n")
    out = subprocess.run(
        [sys.executable, "scripts/serve.py", "--env-file", str(env_file), "--cron-line"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, "ENV_FILE": str(env_file)},
    ).stdout
    assert out.splitlines()[0] == "CRON_TZ=UTC"
    line = out.splitlines()[1]
    assert line.startswith("15 4 * * * cd ")
    assert "manage.py backup --output /var/backups/arbiter" in line and "manage.py purge" in line


def test_the_env_file_is_read_and_the_environment_wins(tmp_path, monkeypatch):
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import serve
    finally:
        sys.path.pop(0)
    env_file = tmp_path / ".env"
    env_file.write_text('# comment\nexport A="quoted value"\nB=from-file\nEMPTY=\n')
    monkeypatch.setenv("B", "from-environment")
    env = serve.environment(env_file)
    assert env["A"] == "quoted value" and env["B"] == "from-environment"
    assert "EMPTY" not in env or env["EMPTY"] == os.environ.get("EMPTY")
    env_file.write_text("not a setting\n")
    with pytest.raises(SystemExit, match="expected KEY=VALUE"):
        serve.read_env_file(env_file)
