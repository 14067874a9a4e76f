"""Built-in lessons: loading them (battlefield/demo/lessons/*.json, format `arbiter.lesson/1`,
see that folder's README) and their pages.

A lesson is a demo scenario plus narrated steps; each step has its own URL
(`/lessons/<slug>/<n>/`) and is the `lesson` partial that htmx swaps on next / previous. The last
step, "Try it", runs the stepper's placement step on the lesson's table with the move, its
declarations and its dice locked: the player places the models by hand or presses Suggest, then
Check. Nothing is stored: the engine judges in memory, and the poses live in the form and the
query string.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from django.http import Http404, QueryDict
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from shapely.geometry import LineString
from shapely.ops import nearest_points

from rules import InvalidInput, adjudicate, suggest
from rules.geometry import fmt
from rules.situation import base_distance

from .editor import ruler_answer
from .games import game
from .models import Lesson, Scenario, load_row
from .pictures import Overlay, table_svg
from .ratelimit import rate_limit
from .showing import target_zones, trail_overlays
from .stepper import (
    PLACE,
    Stage,
    Urls,
    check_response,
    error_response,
    judged,
    reach_overlays,
    read_poses,
    situation_of,
    stepper_context,
    suggest_response,
)
from .validation import parse_json
from .views import link_preview, page

LESSON_FORMAT = "arbiter.lesson/1"
LESSON_DIR = Path(__file__).resolve().parent / "demo" / "lessons"
REQUIRED = ("slug", "title", "system", "scenario", "steps")
#: What a narrated step may draw over its table (README "Format"): the reach of the lesson's
#: move, the target's engagement zone, the start-to-end trails, the game's ranges.
SHOWS = ("reach", "target", "trails", "ranges")
#: The table a narrated step shows: as the scenario is, or after the lesson's move as the
#: engine makes it (its suggestion, judged).
TABLES = ("before", "after")


# -- loading ----------------------------------------------------------------------------------


def read_lesson(path: Path) -> dict:
    """One lesson file, checked enough to be shown: raises InvalidInput naming the field."""
    doc = parse_json(path.read_bytes(), what=f"file {path.name}")
    if not isinstance(doc, dict) or doc.get("format") != LESSON_FORMAT:
        raise InvalidInput("format", f"must be {LESSON_FORMAT!r}")
    for name in REQUIRED:
        if not doc.get(name):
            raise InvalidInput(name, "is missing")
    if doc["slug"] != path.stem:
        raise InvalidInput("slug", f"must be the file name without .json ({path.stem!r})")
    steps = doc["steps"]
    if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
        raise InvalidInput("steps", "must be a list of steps")
    for i, step in enumerate(steps):
        if not step.get("title") or not step.get("text"):
            raise InvalidInput(f"steps[{i}]", "needs a title and a text")
        if "try" in step and not isinstance(step["try"], dict):
            raise InvalidInput(f"steps[{i}].try", "must be a move")
        if step.get("table", "before") not in TABLES:
            raise InvalidInput(f"steps[{i}].table", f"must be one of {', '.join(TABLES)}")
        if not set(step.get("show", ())) <= set(SHOWS):
            raise InvalidInput(f"steps[{i}].show", f"may hold only {', '.join(SHOWS)}")
        for pair in step.get("measure", ()):
            if not (isinstance(pair, list) and len(pair) == 2):
                raise InvalidInput(f"steps[{i}].measure", "must be pairs of model ids")
    return doc


def load_lessons(folder: Path = LESSON_DIR) -> tuple[int, int]:
    """Create or update a Lesson per file (keyed by slug); the scenario is the demo scenario
    of the same file stem, which `load_demo` loads first. Returns (created, updated)."""
    created = changed = 0
    for path in sorted(folder.glob("*.json")):
        doc = read_lesson(path)
        scenario = Scenario.objects.filter(demo_key=doc["scenario"]).first()
        if scenario is None:
            raise InvalidInput("scenario", f"{path.name}: no demo scenario {doc['scenario']!r}")
        if scenario.system != doc["system"]:
            raise InvalidInput("system", f"{path.name}: the scenario is a {scenario.system} table")
        values = {
            "title": doc["title"][:200],
            "system": doc["system"],
            "scenario": scenario,
            "summary": doc.get("summary", ""),
            "steps": doc["steps"],
            "order": int(doc.get("order", 0) or 0),
        }
        outcome = load_row(Lesson, {"slug": doc["slug"]}, values)
        created += outcome == "created"
        changed += outcome == "changed"
    return created, changed


# -- pages ------------------------------------------------------------------------------------


def lesson_urls(lesson: Lesson, number: int) -> Urls:
    return Urls(
        here=reverse("lesson_step", args=[lesson.slug, number]),
        check=reverse("lesson_check", args=[lesson.slug]),
        suggest=reverse("lesson_suggest", args=[lesson.slug]),
        ruler=reverse("lesson_ruler", args=[lesson.slug, number]),
    )


def try_step(lesson: Lesson) -> tuple[int, dict] | None:
    """(1-based number, move) of the lesson's "Try it" step."""
    for i, step in enumerate(lesson.steps, start=1):
        if isinstance(step.get("try"), dict):
            return i, step["try"]
    return None


def locked_stage(move: dict, params: QueryDict, situation) -> Stage:
    """The lesson's move, locked (unit, type, declarations, dice from the lesson), with the
    player's poses from `params`. The lesson's dice count as entered: every player sees them."""
    unit = situation.unit(move["unit"])
    dice = move.get("dice")
    stage = Stage(
        unit=unit.id,
        type=move["type"],
        declarations=dict(move.get("declarations", {})),
        roll="hand" if dice else "server",
        dice=tuple(dice) if dice else None,
        seed=None if dice else 1,
        dice_text=" ".join(str(d) for d in dice or ()),
        after=True,  # the lesson makes the declarations asked after the roll, too
    )
    stage.poses = read_poses(params, unit)
    return stage


def focus_models(situation, focus) -> list[str]:
    """The model ids a step's focus (unit or model ids) highlights."""
    ids: list[str] = []
    for ref in focus or ():
        if situation.has_unit(ref):
            ids.extend(m.id for m in situation.unit(ref).models)
        else:
            try:
                ids.append(situation.model(ref).id)
            except InvalidInput:
                pass
    return ids


def lesson_context(lesson: Lesson, number: int, params: QueryDict, *, verdict=None) -> dict:
    steps = lesson.steps
    if not 1 <= number <= len(steps):
        raise Http404("No such step")
    step = steps[number - 1]
    situation = situation_of(lesson.scenario)
    context = {
        "lesson": lesson,
        "number": number,
        "count": len(steps),
        "lesson_step": step,
        "step_links": [
            {
                "number": i,
                "title": s.get("title", ""),
                "url": reverse("lesson_step", args=[lesson.slug, i]),
            }
            for i, s in enumerate(steps, start=1)
        ],
        "previous_url": reverse("lesson_step", args=[lesson.slug, number - 1])
        if number > 1
        else None,
        "next_url": reverse("lesson_step", args=[lesson.slug, number + 1])
        if number < len(steps)
        else None,
        "unit_name": situation.unit_name,
        "is_try": "try" in step,
    }
    if "try" in step:
        stage = locked_stage(step["try"], params, situation)
        context.update(
            stepper_context(
                situation, stage, lesson_urls(lesson, number), verdict=verdict, locked=True
            )
        )
    else:
        shown, overlays = step_table(lesson, step, situation)
        context["svg"] = table_svg(
            shown,
            highlight=focus_models(shown, step.get("focus")),
            overlays=overlays,
            dom_id="table",
            interactive=True,  # its models are the ruler's ends, by pointer or keyboard
        )
        context["ruler_url"] = reverse("lesson_ruler", args=[lesson.slug, number])
        context["focus_names"] = focus_names(situation, step.get("focus"))
    return context


def focus_names(situation, focus) -> list[str]:
    """The names the table labels for a step's focus (unit names; a model by its unit's)."""
    names: list[str] = []
    for ref in focus or ():
        if situation.has_unit(ref):
            name = situation.unit(ref).name or ref
        else:
            try:
                model = situation.model(ref)
            except InvalidInput:
                continue
            name = f"a model of {situation.unit(model.unit).name or model.unit}"
        if name not in names:
            names.append(name)
    return names


def lesson_move(lesson: Lesson, situation):
    """The lesson's move as the engine makes it: (stage, its suggestion judged), kept on the
    situation (one per scenario version); (stage, None) when the engine cannot suggest it."""
    found = try_step(lesson)
    if found is None:
        return None, None
    stage = locked_stage(found[1], QueryDict(), situation)
    memo = situation.memo.setdefault("battlefield.lesson_moves", {})
    key = (lesson.slug, repr(found[1]))
    if key not in memo:
        move = stage.move(with_end=False)
        try:
            memo[key] = adjudicate(situation, suggest(situation, move))
        except (InvalidInput, NotImplementedError):
            memo[key] = None
    return stage, memo[key]


def step_table(lesson: Lesson, step: dict, situation) -> tuple:
    """A narrated step's own table and overlays (README "Format": `table`, `show`,
    `measure`): the scenario as it is or after the lesson's move, with the reach, the
    target's engagement zone, the trails and the game's ranges it asks for, and measuring
    lines between the model pairs it names, each labelled with its distance."""
    shows: Sequence[str] = step.get("show", ())
    after = step.get("table", "before") == "after"
    shown, overlays = situation, []
    if after or shows:
        stage, verdict = lesson_move(lesson, situation)
        if stage is not None and verdict is not None:
            move = stage.move(with_end=False)
            if after and verdict.after is not None:
                shown = verdict.after
            if "ranges" in shows:
                # A reach is where the move may go: drawn before it, not after.
                overlays += [
                    Overlay(geometry, css, label)
                    for geometry, css, label in game(situation.system).move_overlays(
                        shown, shown.unit(stage.unit), stage.type
                    )
                    if not (after and "reach" in css)
                ]
            if "reach" in shows:
                overlays += reach_overlays(situation, move, verdict)
            if "target" in shows:
                overlays += target_zones(situation, verdict.move)
            if "trails" in shows:
                overlays += trail_overlays(situation, shown, stage.unit)
    overlays += measuring_lines(shown, step.get("measure", ()))
    return shown, overlays


def measuring_lines(situation, pairs) -> list[Overlay]:
    """A ruler between the closest points of two bases, labelled with the distance between
    them as the rules measure it (`base_distance`, RULES.md 1.1)."""
    unit = '"' if situation.unit_name == "in" else f" {situation.unit_name}"
    out = []
    for a_id, b_id in pairs:
        try:
            a, b = situation.model(a_id), situation.model(b_id)
        except InvalidInput:
            continue
        p, q = nearest_points(a.footprint, b.footprint)
        out.append(Overlay(LineString([p, q]), "ruler", f"{fmt(base_distance(a, b))}{unit}"))
    return out


@require_GET
def lesson(request, slug: str, number: int = 1):
    """A lesson's step: narration and the table with the step's focus highlighted; for the
    "Try it" step, the placement form (the poses may come in the query string)."""
    lesson_obj = get_object_or_404(Lesson.objects.select_related("scenario"), slug=slug)
    try:
        context = lesson_context(lesson_obj, number, request.GET)
        status = 200
    except InvalidInput as exc:
        context = lesson_context(lesson_obj, number, QueryDict())
        context["error"] = exc
        status = 422
    context["preview"] = link_preview(
        request, lesson_obj.scenario, situation_of(lesson_obj.scenario)
    )
    context["page_url"] = request.build_absolute_uri(reverse("lesson", args=[lesson_obj.slug]))
    return page(request, "battlefield/lesson.html", context, partial="lesson", status=status)


@require_GET
def lesson_ruler(request, slug: str, number: int):
    """The ruler on a lesson step's table (`editor.ruler_answer`): the table the step shows (a
    narrated step's before or after table; the "Try it" step's starting table, its models
    measured where the page has them through the poses the script sends)."""
    lesson_obj = get_object_or_404(Lesson.objects.select_related("scenario"), slug=slug)
    steps = lesson_obj.steps
    if not 1 <= number <= len(steps):
        raise Http404("No such step")
    step = steps[number - 1]
    situation = situation_of(lesson_obj.scenario)
    if "try" not in step:
        situation, _ = step_table(lesson_obj, step, situation)
    return ruler_answer(request, situation)


def posted_lesson(request, slug: str):
    lesson_obj = get_object_or_404(Lesson.objects.select_related("scenario"), slug=slug)
    found = try_step(lesson_obj)
    if found is None:
        raise Http404("This lesson has no Try it step")
    return lesson_obj, found


def locked_params(request, move: dict, situation) -> QueryDict:
    """The posted form with the lesson's move put back over anything posted for it."""
    stage = locked_stage(move, request.POST, situation)
    params = QueryDict(mutable=True)
    for name, value in stage.query().items():
        for v in value if isinstance(value, list) else [value]:
            params.appendlist(name, str(v))
    return params


@require_POST
@rate_limit("api")  # each one runs the engine, like the adjudication API
def lesson_check(request, slug: str):
    """Judge the player's placement in the lesson's "Try it" (in memory, nothing stored)."""
    lesson_obj, (number, move) = posted_lesson(request, slug)
    situation = situation_of(lesson_obj.scenario)
    context = {"lesson": lesson_obj}
    try:
        request.POST = locked_params(request, move, situation)
        _, _, stepper = judged(request, situation, lesson_urls(lesson_obj, number), locked=True)
    except InvalidInput as exc:
        return error_response(request, context, exc)
    if not request.htmx:
        full = lesson_context(lesson_obj, number, request.POST, verdict=stepper["verdict"])
        return TemplateResponse(request, "battlefield/lesson.html", full)
    return check_response(request, {**context, **stepper})


@require_POST
@rate_limit("api")  # each one runs the engine, like the adjudication API
def lesson_suggest(request, slug: str):
    lesson_obj, (number, move) = posted_lesson(request, slug)
    situation = situation_of(lesson_obj.scenario)
    try:
        request.POST = locked_params(request, move, situation)
    except InvalidInput as exc:
        return error_response(request, {"lesson": lesson_obj}, exc)

    def full_page(stage):
        params = QueryDict(mutable=True)
        for name, value in stage.query().items():
            params.appendlist(name, str(value))
        context = lesson_context(lesson_obj, number, params)
        return TemplateResponse(request, "battlefield/lesson.html", context)

    return suggest_response(
        request,
        situation,
        lesson_urls(lesson_obj, number),
        {"lesson": lesson_obj},
        locked=True,
        full_page=full_page,
    )


__all__ = [
    "PLACE",
    "lesson",
    "lesson_check",
    "lesson_ruler",
    "lesson_suggest",
    "load_lessons",
    "read_lesson",
]
