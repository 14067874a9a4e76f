"""Load test (`make load`): gunicorn on 127.0.0.1 with a scratch database and the demo data,
N concurrent clients for S seconds over three requests in turn:

- the share page of a public demo scenario (the whole page: SVG table, legend, Open Graph tags),
- a step partial: step 0 of that scenario (the demo move, committed first) asked for as an
  htmx partial (`--partial PATH` asks for another),
- the adjudication API with a Warmaster home-back move (a real verdict, not an error).

Prints requests per second, p50/p95 latency and the error count, per request and overall.
Only ever talks to 127.0.0.1. Production settings (DEBUG off), except that TLS redirects are
off (plain HTTP on loopback) and the API rate limit is lifted (every client here shares one
address; the limit itself is tested in tests/battlefield/test_ratelimit.py).

    python scripts/load.py --clients 50 --seconds 60 [--workers 3] [--threads 4]   # gthread
    python scripts/load.py --workers 5 --threads 1                                  # sync

The mixed mix (`--mix mixed`, issue 15) is a club evening: each client in turn asks the share
page of the busy 40K demo table, the stepper's preview of a 40K normal move (GET, the reach
overlay), Check, the editor page, the adjudication API with the same move, and (one client in
five, each on its own copy of the table, signed in) Commit with the version it read and then Undo;
at the end the steps stored are counted against the commits and undos answered (lost and
duplicated steps must both be 0).

    python scripts/load.py --mix mixed --clients 50 --seconds 60               # gthread
    python scripts/load.py --mix mixed --clients 50 --seconds 60 --threads 1   # sync

The polling mix (`--mix poll`, issue 17's live table) instead has each client act as a viewer
of the share page: it asks the live endpoint every `--every` seconds with the version it shows
as an ETag (nothing changes, so every answer should be an empty 304), and the run reports the
server's CPU time (gunicorn and its workers, from /proc) as a share of one core.

    python scripts/load.py --mix poll --clients 50 --seconds 60 --every 2 --workers 2
"""

from __future__ import annotations

import argparse
import html
import http.client
import json
import os
import re
import secrets
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
DEMO = ROOT / "battlefield" / "demo"


def free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def environment(database: Path, api_limit: str) -> dict:
    env = dict(os.environ)
    env.pop("DATABASE_URL", None)
    env.update(
        DEBUG="false",
        SECRET_KEY=secrets.token_urlsafe(50),
        ALLOWED_HOSTS=HOST,
        SQLITE_PATH=str(database),
        SECURE_SSL_REDIRECT="false",
        SECURE_COOKIES="false",
        SECURE_HSTS_SECONDS="0",
        RATE_LIMIT_API=api_limit,
        PYTHONWARNINGS="ignore:No directory at",
    )
    return env


def manage(env: dict, *args: str) -> str:
    result = subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return result.stdout


#: Commit the demo home-back move as step 0 of its scenario (as the stepper does), so that the
#: step page and its partial can be asked for; print the share and step paths.
SETUP = """
import json
from pathlib import Path
from rules import adjudicate
from battlefield.models import Scenario, Step
from battlefield.validation import adjudication_request
s = Scenario.objects.get(demo_key="warmaster-home-back")
move = json.loads(Path("battlefield/demo/moves/warmaster-home-back.json").read_text())
situation, parsed = adjudication_request({"scenario": s.document, "move": move})
verdict = adjudicate(situation, parsed)
step = Step.append(s, move, verdict.as_dict(), before=s.document)
print(s.share_url())
print(f"{s.share_url()}steps/{step.index}/")
"""


#: The mixed mix's data: a signed-in player with `COPIES` copies of the busy 40K demo table
#: (one per committing client), and the paths and ids the clients need, as JSON.
MIXED_SETUP = """
import json, sys
from django.contrib.auth import get_user_model
from django.test import Client
from battlefield.models import Scenario
demo = Scenario.objects.get(demo_key="40k-battlefield")
player = get_user_model().objects.create_user("load-player")
copies = [
    Scenario.objects.create(document=demo.document, owner=player, visibility="unlisted")
    for _ in range(COPIES)
]
client = Client()
client.force_login(player)
print(json.dumps({
    "share": demo.share_url(),
    "session": client.cookies["sessionid"].value,
    "copies": [c.pk for c in copies],
    "document": demo.document,
}))
"""

#: The mixed mix's 40K move: the Intercessors 3 in to the right (legal on the demo table).
MIXED_UNIT, MIXED_DX = "intercessors", 3.0
#: One client in this many commits and undoes (each on its own copy of the table).
COMMIT_EVERY = 5


def demo_paths(env: dict) -> tuple[str, str]:
    """The share page of the home-back demo and its step 0 page."""
    lines = [x for x in manage(env, "shell", "-v", "0", "-c", SETUP).split() if x.startswith("/s/")]
    return lines[-2], lines[-1]


def wait_until_up(base: str, deadline: float) -> None:
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise SystemExit("gunicorn did not answer /healthz in time")


class Results:
    def __init__(self):
        self.lock = threading.Lock()
        self.latency: dict[str, list[float]] = {}
        self.errors: dict[str, int] = {}
        self.error_samples: list[str] = []

    def add(self, name: str, seconds: float, error: str | None) -> None:
        with self.lock:
            self.latency.setdefault(name, []).append(seconds)
            if error:
                self.errors[name] = self.errors.get(name, 0) + 1
                if len(self.error_samples) < 5:
                    self.error_samples.append(f"{name}: {error}")


def client(base: str, requests: list, stop_at: float, results: Results, offset: int) -> None:
    i = offset
    while time.monotonic() < stop_at:
        name, path, body, headers = requests[i % len(requests)]
        i += 1
        request = urllib.request.Request(f"{base}{path}", data=body, headers=headers)
        started = time.perf_counter()
        error = None
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                response.read()
                if response.status != 200:
                    error = f"HTTP {response.status}"
        except urllib.error.HTTPError as exc:
            error = f"HTTP {exc.code}"
        except Exception as exc:  # a load test counts every failure, it never stops on one
            error = type(exc).__name__
        results.add(name, time.perf_counter() - started, error)


def mixed_setup(env: dict, copies: int) -> dict:
    out = manage(env, "shell", "-v", "0", "-c", MIXED_SETUP.replace("COPIES", str(copies)))
    return json.loads(out.strip().splitlines()[-1])


def mixed_forms(document: dict) -> tuple[dict, dict]:
    """The stepper's form for the mixed mix's move, and the same move as a move document."""
    unit = next(u for u in document["units"] if u["id"] == MIXED_UNIT)
    form = {"unit": MIXED_UNIT, "type": "normal", "roll": "server", "seed": "1"}  # no dice
    end = {}
    for m in unit["models"]:
        form[f"pose-{m['id']}-x"] = str(m["x"] + MIXED_DX)
        form[f"pose-{m['id']}-y"] = str(m["y"])
        end[m["id"]] = {"x": m["x"] + MIXED_DX, "y": m["y"]}
    move = {"format": "arbiter.move/1", "unit": MIXED_UNIT, "type": "normal", "end": end}
    return form, move


class Player:
    """One signed-in browser: the session and CSRF cookies, and the CSRF header with them."""

    def __init__(self, base: str, session: str):
        self.base = base
        token = secrets.token_hex(16)  # a CSRF secret of 32 characters, as Django's own
        self.headers = {
            "Cookie": f"sessionid={session}; csrftoken={token}",
            "X-CSRFToken": token,
        }

    def ask(self, path: str, form: dict | None = None, headers: dict | None = None):
        """(status, body) of a GET (form None) or a form POST; redirects are not followed."""
        data = None
        all_headers = {**self.headers, **(headers or {})}
        if form is not None:
            data = urllib.parse.urlencode(form).encode()
            all_headers["Content-Type"] = "application/x-www-form-urlencoded"
        request = urllib.request.Request(f"{self.base}{path}", data=data, headers=all_headers)
        try:
            with urllib.request.build_opener(_NoRedirect).open(request, timeout=30) as response:
                return response.status, response.read().decode()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode(errors="replace")

    def ask_json(self, path: str, body: bytes):
        """(status, "") of a POST to the API: JSON, no cookies, no CSRF (as a script sends)."""
        headers = {"Content-Type": "application/json"}
        request = urllib.request.Request(f"{self.base}{path}", data=body, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                response.read()
                return response.status, ""
        except urllib.error.HTTPError as exc:
            return exc.code, ""


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


VERSION = re.compile(r'name="version" value="(\d+)"')


def mixed_client(player: Player, plan: dict, stop_at: float, results: Results, n: int) -> None:
    """One client of the mixed mix: every kind of request in turn (see the module doc)."""
    share, form, api_body = plan["share"], plan["form"], plan["api"]
    mine = plan["copies"][n // COMMIT_EVERY] if n % COMMIT_EVERY == 0 else None
    preview_pk = mine or plan["copies"][0]
    query = urllib.parse.urlencode(form)
    partial = {"HX-Request": "true", "HX-Request-Type": "partial"}
    kinds = ["share", "preview", "check", "editor", "api"] + (["commit"] if mine else [])
    i = n
    while time.monotonic() < stop_at:
        kind = kinds[i % len(kinds)]
        i += 1
        started = time.perf_counter()
        error = None
        try:
            if kind == "share":
                status, _ = player.ask(share)
            elif kind == "preview":
                status, _ = player.ask(f"/scenarios/{preview_pk}/move?{query}")
            elif kind == "check":
                status, _ = player.ask(f"/scenarios/{preview_pk}/move/check", form, partial)
            elif kind == "editor":
                status, _ = player.ask(f"/scenarios/{preview_pk}/edit")
            elif kind == "api":
                status, _ = player.ask_json("/api/v1/adjudicate", api_body)
            else:  # commit, then undo, each with the version the page showed
                status = commit_and_undo(player, mine, form, query, plan, results)
            if status not in (200, 302, 303):
                error = f"HTTP {status}"
        except Exception as exc:  # a load test counts every failure, it never stops on one
            error = type(exc).__name__
        results.add(kind, time.perf_counter() - started, error)


def commit_and_undo(player: Player, pk: int, form: dict, query: str, plan: dict, results) -> int:
    """Commit the move on this client's own copy with the version its page shows, then undo it
    the same way; counts the steps the server said it stored."""
    status, page = player.ask(f"/scenarios/{pk}/move?{query}")
    version = VERSION.search(page)
    if status != 200 or version is None:
        return status if status != 200 else 599
    status, _ = player.ask(f"/scenarios/{pk}/move/commit", {**form, "version": version.group(1)})
    if status not in (200, 302, 303):
        return status
    with results.lock:
        plan["stored"][pk] = plan["stored"].get(pk, 0) + 1
    status, page = player.ask(f"/scenarios/{pk}/move")
    version = VERSION.search(page) or re.search(r'"version" value="(\d+)"', page)
    if version is None:
        return 598
    status, _ = player.ask(f"/scenarios/{pk}/move/undo", {"version": version.group(1)})
    if status in (200, 302, 303):
        with results.lock:
            plan["stored"][pk] = plan["stored"].get(pk, 0) + 1
    return status


STEP_COUNT = """
from battlefield.models import Step
print(" ".join(f"{pk}:{Step.objects.filter(scenario_id=pk).count()}" for pk in PKS))
"""


def count_steps(env: dict, pks: list[int]) -> dict[int, int]:
    out = manage(env, "shell", "-v", "0", "-c", STEP_COUNT.replace("PKS", repr(pks)))
    return {int(k): int(v) for k, v in (x.split(":") for x in out.split())}


def percentile(values: list[float], p: float) -> float:
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(p) - 1]


def report(results: Results, seconds: float) -> None:
    print(f"{'request':<10} {'count':>7} {'req/s':>8} {'p50 ms':>8} {'p95 ms':>8} {'errors':>7}")
    everything: list[float] = []
    for name, values in results.latency.items():
        everything += values
        print(
            f"{name:<10} {len(values):>7} {len(values) / seconds:>8.1f} "
            f"{percentile(values, 50) * 1000:>8.0f} {percentile(values, 95) * 1000:>8.0f} "
            f"{results.errors.get(name, 0):>7}"
        )
    if everything:
        print(
            f"{'all':<10} {len(everything):>7} {len(everything) / seconds:>8.1f} "
            f"{percentile(everything, 50) * 1000:>8.0f} {percentile(everything, 95) * 1000:>8.0f} "
            f"{sum(results.errors.values()):>7}"
        )
    for sample in results.error_samples:
        print("error:", sample)


def poller(base: str, path: str, etag: str, every: float, stop_at: float, results, offset):
    """One viewer of the live table: asks `path` every `every` seconds with If-None-Match, over
    one kept-alive connection as a browser does (HTTP/1.1)."""
    where = urlsplit(base)
    connection = http.client.HTTPConnection(where.hostname, where.port, timeout=30)
    time.sleep(every * offset)  # viewers do not all open the page in the same instant
    while time.monotonic() < stop_at:
        began = time.monotonic()
        error = None
        for _attempt in (1, 2):  # a browser, too, asks again once on a closed kept-alive link
            try:
                connection.request("GET", path, headers={"If-None-Match": etag})
                response = connection.getresponse()
                response.read()
                error = None if response.status == 304 else f"HTTP {response.status}"
                break
            except Exception as exc:  # a load test counts every failure, never stops on one
                error = type(exc).__name__
                connection.close()
        results.add("poll", time.monotonic() - began, error)
        time.sleep(max(0.0, every - (time.monotonic() - began)))
    connection.close()


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process and all its children (Linux /proc)."""
    ticks = os.sysconf("SC_CLK_TCK")
    pids, total = [pid], 0.0
    while pids:
        current = pids.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / ticks
            for task in Path(f"/proc/{current}/task").iterdir():
                children = (task / "children").read_text().split()
                pids += [int(child) for child in children]
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


def live_path(base: str, share: str) -> tuple[str, str]:
    """The live endpoint and ETag as the share page renders them."""
    with urllib.request.urlopen(f"{base}{share}", timeout=30) as response:
        page = response.read().decode()
    tag = re.search(r'<div id="live"[^>]*>', page).group(0)
    path = html.unescape(re.search(r'hx-get="([^"]+)"', tag).group(1))
    version = re.search(r"v(\d+)", tag.split("If-None-Match", 1)[1]).group(1)
    return path, f'"v{version}"'


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--seconds", type=float, default=60)
    # gthread workers by default, as docs/deploy.md serves (the engine is thread-safe since
    # issue 15); `--threads 1` measures sync workers.
    parser.add_argument("--workers", type=int, default=(os.cpu_count() or 1) + 1)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument(
        "--api-limit",
        default="0/60",
        help="RATE_LIMIT_API for the run (default off; e.g. 1000000/60 counts without refusing)",
    )
    parser.add_argument("--partial", help="path of another partial (default: the step's)")
    parser.add_argument(
        "--mix",
        choices=["pages", "poll", "mixed"],
        default="pages",
        help="pages: share page, step partial, API (default); poll: live-table viewers; "
        "mixed: share, 40K preview, Check, editor, API, Commit and Undo (issue 15)",
    )
    parser.add_argument("--every", type=float, default=2.0, help="poll interval (--mix poll)")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="arbiter-load-") as scratch:
        env = environment(Path(scratch) / "db.sqlite3", args.api_limit)
        manage(env, "migrate", "--noinput", "-v0")
        manage(env, "load_demo")
        share, step = demo_paths(env)
        plan = None
        if args.mix == "mixed":
            data = mixed_setup(env, (args.clients + COMMIT_EVERY - 1) // COMMIT_EVERY)
            form, move = mixed_forms(data["document"])
            plan = {
                "share": data["share"],
                "session": data["session"],
                "copies": data["copies"],
                "form": form,
                "api": json.dumps({"scenario": data["document"], "move": move}).encode(),
                "stored": {},
            }
        payload = json.dumps(
            {
                "scenario": json.loads(
                    (DEMO / "scenarios" / "warmaster-home-back.json").read_text()
                ),
                "move": json.loads((DEMO / "moves" / "warmaster-home-back.json").read_text()),
            }
        ).encode()
        partial_headers = {"HX-Request": "true", "HX-Request-Type": "partial"}
        requests = [
            ("share", share, None, {}),
            ("step", args.partial or step, None, partial_headers),
            ("api", "/api/v1/adjudicate", payload, {"Content-Type": "application/json"}),
        ]

        port = free_port()
        base = f"http://{HOST}:{port}"
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "gunicorn",
                "arbiter.wsgi",
                f"--bind={HOST}:{port}",
                f"--workers={args.workers}",
                f"--threads={args.threads}",
                "--keep-alive=5",  # as `make serve`: pollers every 2 s keep their connection
                "--log-level=warning",
            ],
            cwd=ROOT,
            env=env,
        )
        try:
            wait_until_up(base, time.monotonic() + 60)
            print(
                f"{args.clients} clients for {args.seconds:.0f} s against gunicorn on {base} "
                f"({args.workers} workers x {args.threads} threads, SQLite, {os.cpu_count()} CPUs)"
            )
            results = Results()
            if args.mix == "poll":
                path, etag = live_path(base, share)
                time.sleep(1)  # let the first page's work settle before measuring
                cpu_before = cpu_seconds(server.pid)
                started = time.monotonic()
                stop_at = started + args.seconds
                viewers = [
                    threading.Thread(
                        target=poller,
                        args=(base, path, etag, args.every, stop_at, results, i / args.clients),
                    )
                    for i in range(args.clients)
                ]
                for viewer in viewers:
                    viewer.start()
                for viewer in viewers:
                    viewer.join(timeout=args.seconds + 60)
                elapsed = time.monotonic() - started
                cpu = cpu_seconds(server.pid) - cpu_before
                report(results, elapsed)
                print(
                    f"server CPU: {cpu:.2f} s in {elapsed:.1f} s = {100 * cpu / elapsed:.1f} % "
                    f"of one core ({args.clients} viewers polling every {args.every:g} s)"
                )
                return
            if plan is not None:
                stop_at = time.monotonic() + args.seconds
                started = time.monotonic()
                players = [
                    threading.Thread(
                        target=mixed_client,
                        args=(Player(base, plan["session"]), plan, stop_at, results, i),
                    )
                    for i in range(args.clients)
                ]
                for player in players:
                    player.start()
                for player in players:
                    player.join(timeout=args.seconds + 60)
                report(results, time.monotonic() - started)
                stored = count_steps(env, plan["copies"])
                answered = plan["stored"]
                lost = sum(max(0, answered.get(pk, 0) - n) for pk, n in stored.items())
                duplicated = sum(max(0, n - answered.get(pk, 0)) for pk, n in stored.items())
                print(
                    f"steps: {sum(answered.values())} committed or undone as answered, "
                    f"{sum(stored.values())} stored; lost {lost}, duplicated {duplicated}"
                )
                return
            stop_at = time.monotonic() + args.seconds
            started = time.monotonic()
            threads = [
                threading.Thread(target=client, args=(base, requests, stop_at, results, i))
                for i in range(args.clients)
            ]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join(timeout=args.seconds + 60)
            report(results, time.monotonic() - started)
        finally:
            server.terminate()
            try:
                server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                server.kill()


if __name__ == "__main__":
    main()
