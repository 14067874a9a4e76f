"""Admin: every scenario save goes through the one validator (Scenario.clean)."""

from django.contrib import admin

from .models import (
    Club,
    ClubEvent,
    Invite,
    Lesson,
    Membership,
    Picture,
    Scenario,
    Step,
    UnitProfile,
)


class StepInline(admin.TabularInline):
    model = Step
    extra = 0
    can_delete = False
    readonly_fields = ["index", "move", "verdict", "dice", "created_at"]

    def has_add_permission(self, request, obj=None):
        return False  # steps are appended by adjudication, never typed in


@admin.register(Scenario)
class ScenarioAdmin(admin.ModelAdmin):
    list_display = [
        "name",
        "system",
        "visibility",
        "owner",
        "club",
        "version",
        "updated",
        "deleted_at",
    ]
    list_filter = ["system", "visibility", "club"]
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
    fields = ["document", "owner", "club", "visibility", "deleted_at", *readonly_fields]
    inlines = [StepInline]


@admin.register(UnitProfile)
class UnitProfileAdmin(admin.ModelAdmin):
    list_display = ["name", "system", "faction", "move", "base"]
    list_filter = ["system", "faction"]
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


# -- clubs (issue 7) ---------------------------------------------------------------------------


class MembershipInline(admin.TabularInline):
    model = Membership
    extra = 0
    autocomplete_fields = ["user"]


class InviteInline(admin.TabularInline):
    model = Invite
    extra = 0
    readonly_fields = ["token", "created_by", "created", "uses", "revoked_by"]


class ClubEventInline(admin.TabularInline):
    """The club's history: read-only, it records what happened."""

    model = ClubEvent
    extra = 0
    fields = ("at", "kind", "actor", "member", "role", "invite")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None):
        return False


@admin.register(Club)
class ClubAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "created"]
    search_fields = ["name", "slug"]
    prepopulated_fields = {"slug": ["name"]}
    inlines = [MembershipInline, InviteInline, ClubEventInline]


@admin.register(Membership)
class MembershipAdmin(admin.ModelAdmin):
    list_display = ["user", "club", "role", "joined"]
    list_filter = ["role", "club"]
    search_fields = ["user__username", "club__name"]
