"""`make serve`: Arbiter's production stack from a checkout and a `.env` file.

1. Reads `.env` (or the file named by ENV_FILE / --env-file; `.env.example` names every setting);
   a variable already in the environment wins over the file.
2. Once, before any worker starts: `migrate`, `collectstatic` (into STATIC_ROOT, which should be
   a folder outside the checkout; the default `staticfiles/` is ignored by git) and, unless
   LOAD_DEMO=off, `load_demo` (safe to repeat).
3. Starts gunicorn with production settings: gthread workers (WEB_WORKERS, default one per CPU
   + 1; WEB_THREADS, default 4: the engine is safe to share between threads, issue 15, and
   `make load --mix mixed` measured 3 x 4 ahead of 5 sync workers at p95)
   bound to --bind (default 127.0.0.1:8000, behind the proxy in deploy/). gthread rather than
   sync workers so that the live table's pollers keep their connections.
4. Schedules the daily backup (`manage.py backup --output BACKUP_DIR`) and purge (`manage.py
   purge`) in a thread of this process at SCHEDULE_AT (UTC, HH:MM), so exactly one copy runs
   however many workers serve. SCHEDULE=off leaves them to cron instead: `--cron-line` prints the
   line to install.

PostgreSQL when DATABASE_URL is set, SQLite otherwise (arbiter/settings.py). Stop with SIGTERM or
Ctrl-C: gunicorn finishes the requests in flight.

    python scripts/serve.py [--bind HOST:PORT] [--env-file PATH] [--cron-line]
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import shlex
import signal
import subprocess
import sys
import threading
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def read_env_file(path: Path) -> dict[str, str]:
    """KEY=VALUE lines; blank lines and # comments skipped; one pair of quotes stripped."""
    values = {}
    for number, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export ") :]
        key, sep, value = line.partition("=")
        key, value = key.strip(), value.strip()
        if not sep or not key.isidentifier():
            raise SystemExit(f"{path}:{number}: expected KEY=VALUE, got {line!r}")
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]
        values[key] = value
    return values


def environment(env_file: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    if env_file is not None and env_file.exists():
        for key, value in read_env_file(env_file).items():
            # An empty value in the file means "not set" (the example leaves optional ones empty).
            if value and key not in os.environ:
                env[key] = value
    env.setdefault("DEBUG", "false")
    return env


def on(env: dict, name: str, default: str = "on") -> bool:
    return env.get(name, default).strip().lower() in ("1", "true", "yes", "on")


def manage(env: dict, *args: str) -> None:
    print(f"serve: manage.py {' '.join(args)}", flush=True)
    subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True)


def backup_dir(env: dict) -> str:
    return env.get("BACKUP_DIR") or str(ROOT / "backups")


def daily_jobs(env: dict) -> None:
    """The daily backup, then the purge (scenarios deleted over 30 days ago, old counters)."""
    for args in (("backup", "--output", backup_dir(env)), ("purge",)):
        try:
            manage(env, *args)
        except subprocess.CalledProcessError as exc:  # keep serving; the log says what failed
            print(f"serve: manage.py {args[0]} failed with status {exc.returncode}", flush=True)


def schedule_at(env: dict) -> dt.time:
    hours, _, minutes = env.get("SCHEDULE_AT", "03:30").partition(":")
    return dt.time(int(hours), int(minutes or 0))


def seconds_until(at: dt.time, now: dt.datetime) -> float:
    """Seconds from `now` (UTC) to the next `at` (UTC), at most a day."""
    target = now.replace(hour=at.hour, minute=at.minute, second=0, microsecond=0)
    if target <= now:
        target += dt.timedelta(days=1)
    return (target - now).total_seconds()


def scheduler(env: dict, stop: threading.Event) -> None:
    at = schedule_at(env)
    while not stop.wait(seconds_until(at, dt.datetime.now(dt.UTC))):
        daily_jobs(env)


def cron_line(env: dict) -> str:
    at = schedule_at(env)
    env_file = env.get("ENV_FILE") or str(ROOT / ".env")
    command = (
        f"cd {shlex.quote(str(ROOT))} && set -a && . {shlex.quote(env_file)} && set +a && "
        f"{shlex.quote(sys.executable)} manage.py backup --output {shlex.quote(backup_dir(env))}"
        f" && {shlex.quote(sys.executable)} manage.py purge"
    )
    return f"CRON_TZ=UTC\n{at.minute} {at.hour} * * * {command}"


def gunicorn_command(env: dict, bind: str) -> list[str]:
    workers = env.get("WEB_WORKERS") or str((os.cpu_count() or 1) + 1)
    return [
        sys.executable,
        "-m",
        "gunicorn",
        "arbiter.wsgi",
        f"--bind={bind}",
        "--worker-class=gthread",
        f"--workers={workers}",
        # Threads share a worker's memory; the engine keeps its caches per thread (issue 15).
        f"--threads={env.get('WEB_THREADS') or 4}",
        # Live-table pages ask every 2 s: keep their connection (through the proxy) open.
        "--keep-alive=5",
        "--access-logfile=-",
        "--graceful-timeout=20",
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bind", default="127.0.0.1:8000")
    parser.add_argument("--env-file", type=Path, default=None)
    parser.add_argument("--cron-line", action="store_true", help="print the cron line and exit")
    args = parser.parse_args(argv)
    env_file = args.env_file or Path(os.environ.get("ENV_FILE") or ROOT / ".env")
    env = environment(env_file)
    if args.cron_line:
        print(cron_line(env))
        return 0
    if not env_file.exists():
        print(f"serve: no {env_file}; using the environment alone (see .env.example)", flush=True)

    manage(env, "migrate", "--noinput")
    manage(env, "collectstatic", "--noinput", "-v0")
    if on(env, "LOAD_DEMO"):
        manage(env, "load_demo")

    server = subprocess.Popen(gunicorn_command(env, args.bind), cwd=ROOT, env=env)
    stop = threading.Event()

    def shut_down(signum, frame):
        stop.set()
        server.send_signal(signal.SIGTERM)

    signal.signal(signal.SIGTERM, shut_down)
    signal.signal(signal.SIGINT, shut_down)
    if on(env, "SCHEDULE"):
        threading.Thread(target=scheduler, args=(env, stop), daemon=True).start()
        print(f"serve: daily backup and purge at {schedule_at(env):%H:%M} UTC", flush=True)
    code = server.wait()
    stop.set()
    return code


if __name__ == "__main__":
    sys.exit(main())
