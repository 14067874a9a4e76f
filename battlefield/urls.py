from django.urls import path

from . import api_docs, lessons, live, stepper, views

urlpatterns = [
    path("", views.home, name="home"),
    path("scenarios/new", views.scenario_new, name="scenario_new"),
    path("scenarios/import", views.scenario_import, name="scenario_import"),
    path("scenarios/<int:pk>/", views.scenario_detail, name="scenario"),
    path("scenarios/<int:pk>/scenario.json", views.scenario_json, name="scenario_json"),
    path("s/<slug:token>/", views.share, name="share"),
    path("s/<slug:token>/scenario.json", views.share_json, name="share_json"),
    path("s/<slug:token>/table.png", views.share_png, name="share_png"),
    path("s/<slug:token>/table.svg", views.share_svg, name="share_svg"),
    path("s/<slug:token>/copy", views.fork, name="fork"),
    path("s/<slug:token>/live", live.live, name="live"),
    path("api/v1/adjudicate", views.api_adjudicate, name="api_adjudicate"),
    # the API's description (issue 17): OpenAPI 3.1, its JSON Schemas, a readable page
    path("api/v1/", api_docs.api_page, name="api"),
    path("api/v1/openapi.json", api_docs.openapi, name="api_openapi"),
    path("api/v1/schemas/<str:name>", api_docs.schema, name="api_schema"),
    # Accounts (issue 7): the owner's controls, soft delete and restore.
    path("scenarios/<int:pk>/sharing", views.scenario_sharing, name="scenario_sharing"),
    path("scenarios/<int:pk>/rotate-link", views.scenario_rotate_link, name="scenario_rotate"),
    path("scenarios/<int:pk>/turn", stepper.scenario_turn, name="scenario_turn"),
    path("scenarios/<int:pk>/delete", views.scenario_delete, name="scenario_delete"),
    path("scenarios/<int:pk>/restore", views.scenario_restore, name="scenario_restore"),
    path("scenarios/deleted", views.scenarios_deleted, name="scenarios_deleted"),
    # the move stepper, step links and lessons (stepper.py, lessons.py)
    path("scenarios/<int:pk>/move", stepper.move, name="move"),
    path("scenarios/<int:pk>/move/check", stepper.move_check, name="move_check"),
    path("scenarios/<int:pk>/move/suggest", stepper.move_suggest, name="move_suggest"),
    path("scenarios/<int:pk>/move/commit", stepper.move_commit, name="move_commit"),
    path("scenarios/<int:pk>/move/undo", stepper.move_undo, name="move_undo"),
    path("scenarios/<int:pk>/move/casualty", stepper.move_casualty, name="move_casualty"),
    # trying moves through the share link: nothing stored, Commit only for editors (issue 7)
    path("s/<slug:token>/move", stepper.move, name="share_move"),
    path("s/<slug:token>/move/check", stepper.move_check, name="share_move_check"),
    path("s/<slug:token>/move/suggest", stepper.move_suggest, name="share_move_suggest"),
    path("s/<slug:token>/steps/<int:index>/", stepper.step_detail, name="step"),
    path("s/<slug:token>/steps/<int:index>/table.png", stepper.step_png, name="step_png"),
    path(
        "s/<slug:token>/steps/<int:index>/<str:table>/ruler", stepper.step_ruler, name="step_ruler"
    ),
    path("lessons/<slug:slug>/", lessons.lesson, name="lesson"),
    path("lessons/<slug:slug>/<int:number>/", lessons.lesson, name="lesson_step"),
    path("lessons/<slug:slug>/<int:number>/ruler", lessons.lesson_ruler, name="lesson_ruler"),
    path("lessons/<slug:slug>/check", lessons.lesson_check, name="lesson_check"),
    path("lessons/<slug:slug>/suggest", lessons.lesson_suggest, name="lesson_suggest"),
]

# The scenario editor and the ruler (battlefield/editor.py).
from . import editor  # noqa: E402

urlpatterns += [
    path("scenarios/<int:pk>/edit", editor.editor, name="editor"),
    path("scenarios/<int:pk>/edit/place", editor.place, name="editor_place"),
    path("scenarios/<int:pk>/edit/terrain", editor.terrain_add, name="editor_terrain_add"),
    path("scenarios/<int:pk>/edit/terrain/draw", editor.terrain_draw, name="editor_terrain_draw"),
    path(
        "scenarios/<int:pk>/edit/terrain/<str:terrain_id>",
        editor.terrain_change,
        name="editor_terrain",
    ),
    path(
        "scenarios/<int:pk>/edit/units/catalogue",
        editor.unit_add_profile,
        name="editor_unit_profile",
    ),
    path("scenarios/<int:pk>/edit/units/new", editor.unit_add_manual, name="editor_unit_manual"),
    path("scenarios/<int:pk>/edit/unit/<str:unit_id>", editor.unit_change, name="editor_unit"),
    path(
        "scenarios/<int:pk>/edit/unit/<str:unit_id>/casualty",
        editor.unit_casualty,
        name="editor_casualty",
    ),
    path("scenarios/<int:pk>/edit/turn", editor.turn, name="editor_turn"),
    path("scenarios/<int:pk>/edit/armies", editor.armies, name="editor_armies"),
    path("scenarios/<int:pk>/edit/undo", editor.undo, name="editor_undo"),
    path("scenarios/<int:pk>/edit/redo", editor.redo, name="editor_redo"),
    path("scenarios/<int:pk>/ruler", editor.ruler, name="editor_ruler"),
    path("s/<slug:token>/ruler", editor.share_ruler, name="share_ruler"),
]

# Setting up a real game (issue 14, battlefield/armylists.py).
from . import armylists  # noqa: E402

urlpatterns += [
    path("about", armylists.about, name="about"),
    path("scenarios/from-layout", armylists.layout_new, name="layout_new"),
    path("scenarios/<int:pk>/edit/dataset", armylists.catalogue_search, name="catalogue_search"),
    path("scenarios/<int:pk>/edit/dataset/add", armylists.catalogue_add, name="catalogue_add"),
    path("scenarios/<int:pk>/edit/roster", armylists.roster_preview, name="roster_preview"),
    path("scenarios/<int:pk>/edit/roster/place", armylists.roster_place, name="roster_place"),
    path("scenarios/<int:pk>/edit/surge", armylists.unit_surge, name="unit_surge"),
    path("scenarios/<int:pk>/edit/correct", armylists.unit_correct, name="unit_correct"),
    path("scenarios/<int:pk>/edit/flyer", armylists.flyer_add, name="flyer_add"),
]
