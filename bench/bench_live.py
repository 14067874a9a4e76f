"""The live table's "nothing changed" answer (issue 17): CPU per 304 in this process, through
Django's WSGI handler as gunicorn calls it (every middleware, the database read), for a viewer
of an unlisted scenario who is signed in (a session cookie sent).

Target: 50 viewers polling every 2 s are 25 answers a second; under 10 % of one core means under
4 ms of CPU per answer, gunicorn's own HTTP handling included (`scripts/load.py --mix poll`
measures the whole server). Baselines in the same run: the same poll answered by the `live` view
behind every middleware (no fast path), and `/healthz`.
"""

import io
import os
import sys

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arbiter.settings")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), HERE]

#: 4 ms per answer: 25 answers a second in 10 % of one core.
TARGET_MS = 0.1 * 1000 / 25


def handler(without_fast_path: bool = False):
    from django.conf import settings
    from django.core.handlers.wsgi import WSGIHandler
    from django.test.utils import override_settings

    if not without_fast_path:
        return WSGIHandler()
    middleware = [m for m in settings.MIDDLEWARE if not m.endswith("LiveTableMiddleware")]
    with override_settings(MIDDLEWARE=middleware):
        return WSGIHandler()


def main() -> None:
    import django

    django.setup()
    from bench_pictures import busy_table
    from django.contrib.auth.models import User
    from django.db import connection
    from django.test import Client
    from django.test.utils import setup_test_environment, teardown_test_environment
    from timing import compare, median_cpu_ms

    from battlefield.models import Scenario

    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        viewer = User.objects.create_user("bench-viewer")
        scenario = Scenario.objects.create(
            document=busy_table(), visibility=Scenario.Visibility.UNLISTED
        )
        client = Client()
        client.force_login(viewer)
        cookie = f"sessionid={client.cookies['sessionid'].value}"
        environ = {
            "REQUEST_METHOD": "GET",
            "PATH_INFO": f"/s/{scenario.share_token}/live",
            "QUERY_STRING": f"since={scenario.version}&steps=0",
            "SERVER_NAME": "testserver",
            "SERVER_PORT": "80",
            "SERVER_PROTOCOL": "HTTP/1.1",
            "HTTP_HOST": "testserver",
            "HTTP_COOKIE": cookie,
            "HTTP_IF_NONE_MATCH": f'"v{scenario.version}"',
            "wsgi.url_scheme": "http",
        }

        def ask(app, path=None, expect="304"):
            def once():
                statuses = []
                request = {**environ, "wsgi.input": io.BytesIO(b"")}
                if path:
                    request.update(PATH_INFO=path, QUERY_STRING="")
                body = app(request, lambda status, headers: statuses.append(status))
                b"".join(body)
                body.close()
                assert statuses[0].startswith(expect), statuses

            return once

        fast, slow = handler(), handler(without_fast_path=True)
        poll = median_cpu_ms(ask(fast), repeat=2000, warmup=50)
        view = median_cpu_ms(ask(slow), repeat=500, warmup=20)
        healthz = median_cpu_ms(ask(fast, "/healthz", "200"), repeat=500, warmup=20)
        print("   a signed-in viewer polls an unlisted busy table (every middleware, SQLite)")
        compare("one unchanged poll, 304 (CPU)", poll, view, TARGET_MS)
        compare("/healthz, for comparison (CPU)", healthz, None)
        print(
            f"   {poll * 1000:.0f} us per 304: 50 viewers every 2 s cost "
            f"{poll * 25 / 10:.1f} % of one core in Django (gunicorn's share: scripts/load.py "
            "--mix poll)"
        )
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
        teardown_test_environment()  # (the next benchmark in this process sets up its own)


if __name__ == "__main__":
    main()
