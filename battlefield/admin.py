"""Admin: every scenario save goes through the one validator (Scenario.clean)."""

from django.contrib import admin

from .models import Lesson, Picture, Scenario, Step, UnitProfile


class StepInline(admin.TabularInline):
    model = Step
    extra = 0
    can_delete = False
    readonly_fields = ["index", "move", "verdict", "dice", "created_at"]

    def has_add_permission(self, request, obj=None):
        return False  # steps are appended by adjudication, never typed in


@admin.register(Scenario)
class ScenarioAdmin(admin.ModelAdmin):
    list_display = ["name", "system", "visibility", "owner", "version", "updated"]
    list_filter = ["system", "visibility"]
    search_fields = ["name"]
    readonly_fields = [
        "system",
        "name",
        "share_token",
        "version",
        "forked_from",
        "demo_key",
        "created",
        "updated",
    ]
    fields = ["document", "owner", "visibility", *readonly_fields]
    inlines = [StepInline]


@admin.register(UnitProfile)
class UnitProfileAdmin(admin.ModelAdmin):
    list_display = ["name", "system", "move", "base"]
    list_filter = ["system"]
    search_fields = ["name"]


@admin.register(Lesson)
class LessonAdmin(admin.ModelAdmin):
    list_display = ["title", "system", "order", "scenario"]
    list_filter = ["system"]
    prepopulated_fields = {"slug": ["title"]}


@admin.register(Picture)
class PictureAdmin(admin.ModelAdmin):
    list_display = ["scenario", "version", "created"]
    readonly_fields = ["scenario", "version", "created"]
    exclude = ["png"]
