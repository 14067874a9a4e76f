from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path

from battlefield import accounts

urlpatterns = [
    # The admin's log-in is under the same limits as the site's (battlefield/accounts.py).
    path("admin/login/", accounts.log_in_limits(admin.site.login)),
    path("admin/", admin.site.urls),
    path("healthz", accounts.healthz, name="healthz"),
    # Accounts: our sign-up; Django's auth views (log-in and reset rate-limited) for the rest.
    path("accounts/signup/", accounts.signup, name="signup"),
    path("accounts/login/", accounts.LoginView.as_view(), name="login"),
    path("accounts/password_reset/", accounts.PasswordResetView.as_view(), name="password_reset"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/", include("django.contrib.auth.urls")),
    # Clubs.
    path("clubs/", accounts.clubs, name="clubs"),
    path("clubs/join/<slug:token>/", accounts.club_join, name="club_join"),
    path("clubs/<slug:slug>/", accounts.club_detail, name="club"),
    path("clubs/<slug:slug>/invite", accounts.club_invite, name="club_invite"),
    path("clubs/<slug:slug>/leave", accounts.club_leave, name="club_leave"),
    path("clubs/<slug:slug>/members/<int:user_id>/role", accounts.club_role, name="club_role"),
    path(
        "clubs/<slug:slug>/members/<int:user_id>/remove", accounts.club_remove, name="club_remove"
    ),
    path(
        "clubs/<slug:slug>/invites/<int:invite_id>/revoke",
        accounts.club_invite_revoke,
        name="club_invite_revoke",
    ),
    path("", include("battlefield.urls")),
]
