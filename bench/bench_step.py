"""The stepper's step partial (verdict plus table SVG) on a busy table, through Django's test
Client, against a trivial Django view measured in the same run (issue 6: at most 60 ms median).

The table is bench_pictures' seeded 44 x 60 in table (25 terrain pieces, 60 models); the move
is a surge judged by the engine, checked by the scenario's owner.
"""

import os
import sys
from urllib.parse import urlencode

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "arbiter.settings")
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.dirname(HERE), HERE]

TARGET_MS = 60
PARTIAL = {"HX-Request": "true", "HX-Request-Type": "partial"}
FORM = "application/x-www-form-urlencoded"


def urlconf():
    """The site's URLs plus a trivial view, the baseline of the ratio."""
    import types

    from django.http import HttpResponse
    from django.urls import include, path

    module = types.ModuleType("bench_step_urls")
    module.urlpatterns = [
        path("bench/trivial", lambda request: HttpResponse("ok")),
        path("", include("arbiter.urls")),
    ]
    return module


def forget() -> None:
    """Empty every page cache (the baseline: each request computes everything afresh)."""
    from django.core.cache import cache

    from battlefield import pagecache, pictures, scene

    cache.clear()
    pagecache.forget_situations()
    pictures.forget_svg_pieces()
    scene.forget_looks()


def main() -> None:
    import django

    django.setup()
    from bench_pictures import busy_table
    from django.contrib.auth.models import User
    from django.db import connection
    from django.test import Client
    from django.test.utils import (
        override_settings,
        setup_test_environment,
        teardown_test_environment,
    )
    from timing import compare, median_cpu_ms, report

    from battlefield.models import Scenario

    setup_test_environment()
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True)
    try:
        document = busy_table()
        unit = document["units"][0]
        unit["abilities"] = [
            {
                "id": "blood-surge",
                "kind": "surge",
                "trigger": "models-destroyed-by-shooting",
                "distance": "D6",
            }
        ]
        data = {
            "unit": unit["id"],
            "roll": "hand",
            "type": "surge",
            "ability": "blood-surge",
            "trigger-event": "shot",
            "trigger-by": document["units"][1]["id"],
            "trigger-models_destroyed": "1",
            "dice": "4",
            "after": "done",  # nothing further is declared after the surge's roll
        }
        for m in unit["models"]:
            data[f"pose-{m['id']}-x"] = str(m["x"])
            data[f"pose-{m['id']}-y"] = str(m["y"] + 0.5)
        owner = User.objects.create_user("bench-owner")
        scenario = Scenario.objects.create(document=document, owner=owner)
        client = Client()
        client.force_login(owner)
        check = f"/scenarios/{scenario.pk}/move/check"
        body = urlencode(data)

        def post():
            """The Check as htmx sends it: the form urlencoded (htmx 4's default encoding)."""
            return client.post(check, body, content_type=FORM, headers=PARTIAL)

        with override_settings(ROOT_URLCONF=urlconf()):
            response = post()
            assert response.status_code == 200, response.content[:500]
            assert b"<svg" in response.content and b"finding" in response.content
            print(
                f"   table 60 x 44 in, {len(document['terrain'])} terrain pieces, "
                f"{sum(len(u['models']) for u in document['units'])} models; move: a surge"
            )
            # CPU medians throughout: on 2 cores shared with other work, wall time measures the
            # neighbours as much as the page.
            trivial = median_cpu_ms(lambda: client.get("/bench/trivial"), repeat=60)
            step = median_cpu_ms(lambda: post(), repeat=30)
            report("trivial view (CPU)", trivial)
            report(
                "step partial (Check: verdict + table SVG with reach overlay and labels, CPU)",
                step,
                TARGET_MS,
            )
            # Issue 16: what is kept per scenario version, against the same request with every
            # page cache emptied first (the work done before issue 16), CPU medians.
            share = scenario.share_url()
            anonymous = Client()
            assert anonymous.get(share).status_code == 200
            cached_share = median_cpu_ms(lambda: anonymous.get(share), repeat=30)
            cold_share = median_cpu_ms(lambda: anonymous.get(share), repeat=15, before=forget)
            compare("share page, busy table (CPU)", cached_share, cold_share, 5)
            cached_check = median_cpu_ms(lambda: post(), repeat=15)
            cold_check = median_cpu_ms(lambda: post(), repeat=9, before=forget)
            compare("Check, busy table, surge (CPU)", cached_check, cold_check, 15)
            print(
                f"   ratio step / trivial: {step / trivial:.1f}x; "
                f"response {len(response.content) / 1024:.1f} KB"
            )
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)
        teardown_test_environment()  # (the next benchmark in this process sets up its own)


if __name__ == "__main__":
    main()
