"""Accounts and clubs (issue 7).

Accounts: sign up here; log in, log out, change and reset the password are Django's own auth
views (templates in templates/registration/), with rate limits on sign-up, log-in and reset.

Clubs: anyone signed in may create a club and becomes its organiser. Organisers make invite
links that admit a chosen number of people (Invite.DEFAULT_USES unless said) and expire after
Invite.DAYS days, revoke them, promote or demote members and remove them; whoever opens a live
invite link while signed in may join. Anyone may leave, except the last organiser of a club that
still has other members. Every change is recorded (ClubEvent) and shown to organisers. Club
pages are 404 to non-members.
"""

from __future__ import annotations

import functools
from urllib.parse import urlencode

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth import get_user_model, login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.contrib.auth.forms import UserCreationForm
from django.contrib.auth.hashers import make_password
from django.core import signing
from django.db import connection, transaction
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils.decorators import method_decorator
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.text import slugify
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from . import ratelimit
from .forms import NameField, text_validator
from .models import Club, ClubEvent, Invite, Membership, Scenario
from .ratelimit import rate_limit
from .text import normalise

# -- forms -----------------------------------------------------------------------------------


class SignUpForm(UserCreationForm):
    """User name, email (for password reset) and the password twice."""

    email = forms.EmailField(help_text="Used only to reset your password.")

    class Meta(UserCreationForm.Meta):
        model = get_user_model()
        fields = ("username", "email")

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        # User names are shown to club members: the same rules as every other name.
        self.fields["username"].validators.append(text_validator(name=True))
        self.name_taken = False

    # A sign-up must say when a user name is taken (Django's names are unique and chosen by the
    # user), but it says so only to a sign-up that is otherwise valid, and that one costs the
    # same password hashing as an account made: so an invalid sign-up (cheap to send) never tells
    # a taken name from a free one, by its page or its time (issue 15).

    def clean_username(self):
        username = self.cleaned_data.get("username")
        model = self._meta.model
        self.name_taken = (
            bool(username) and model.objects.filter(username__iexact=username).exists()
        )
        return username

    def validate_unique(self):
        if not self.name_taken:  # a taken name is answered in _post_clean, after the rest
            super().validate_unique()

    def _post_clean(self):
        super()._post_clean()
        if self.name_taken and not self._errors:
            make_password(self.cleaned_data.get("password1"))  # the time an account costs
            self.add_error(
                "username",
                forms.ValidationError(
                    self.instance.unique_error_message(self._meta.model, ("username",))
                ),
            )


class ClubForm(forms.Form):
    name = NameField(max_length=100)

    def clean_name(self):
        name = self.cleaned_data["name"].strip()
        if not slugify(name):
            raise forms.ValidationError("Use at least one letter or digit.")
        return name


class InviteForm(forms.Form):
    max_uses = forms.IntegerField(
        label="People it admits",
        initial=Invite.DEFAULT_USES,
        min_value=1,
        max_value=Invite.MAX_USES,
        required=False,
        error_messages={
            "invalid": f"Give the number of people, between 1 and {Invite.MAX_USES}.",
            "min_value": f"Give the number of people, between 1 and {Invite.MAX_USES}.",
            "max_value": f"Give the number of people, between 1 and {Invite.MAX_USES}.",
        },
    )


class SharingForm(forms.Form):
    """Visibility and club of a scenario (its owner's choice, among their own clubs)."""

    visibility = forms.ChoiceField(choices=Scenario.Visibility.choices)
    club = forms.ModelChoiceField(queryset=Club.objects.none(), required=False, empty_label="None")

    def __init__(self, *args, user=None, **kwargs):
        super().__init__(*args, **kwargs)
        if user is not None and user.is_authenticated:
            self.fields["club"].queryset = Club.objects.filter(memberships__user=user)

    def clean(self):
        data = super().clean()
        if data.get("visibility") == Scenario.Visibility.CLUB and not data.get("club"):
            self.add_error("club", "Choose the club whose members may see it.")
        return data


# -- accounts --------------------------------------------------------------------------------


def safe_next(request, default: str = "home") -> str:
    target = request.POST.get("next") or request.GET.get("next") or ""
    if target and url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return default


@never_cache
@require_http_methods(["GET", "POST"])
@rate_limit("signup")
def signup(request):
    if request.user.is_authenticated:
        return redirect("home")
    form = SignUpForm(request.POST or None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            user = form.save()
            login(request, user, backend="django.contrib.auth.backends.ModelBackend")
            messages.success(request, f"Welcome, {user.username}: you are signed in.")
            return redirect(safe_next(request))
        status = 422
    return TemplateResponse(
        request,
        "registration/signup.html",
        {"form": form, "next": safe_next(request, "")},
        status=status,
    )


#: The cookie that marks a browser where an account has logged in before (a "known device").
DEVICE_COOKIE = "arbiter_device"
DEVICE_SALT = "battlefield.accounts.device"
DEVICE_DAYS = 365


def _account_key(name: str) -> str:
    return f"name:{ratelimit.hashed(name)}"


def known_device(request, name: str) -> bool:
    """Has this browser logged in to the account `name` before (a signed cookie says so)?"""
    try:
        names = signing.loads(
            request.COOKIES.get(DEVICE_COOKIE, ""),
            salt=DEVICE_SALT,
            max_age=DEVICE_DAYS * 86_400,
        )
    except signing.BadSignature:
        return False
    return isinstance(names, list) and ratelimit.hashed(name) in names


def _remember_device(request, response, name: str) -> None:
    try:
        names = signing.loads(request.COOKIES.get(DEVICE_COOKIE, ""), salt=DEVICE_SALT)
    except signing.BadSignature:
        names = []
    names = [n for n in names if isinstance(n, str)][-4:] + [ratelimit.hashed(name)]
    response.set_cookie(
        DEVICE_COOKIE,
        signing.dumps(sorted(set(names)), salt=DEVICE_SALT),
        max_age=DEVICE_DAYS * 86_400,
        httponly=True,
        secure=settings.SESSION_COOKIE_SECURE,
        samesite="Lax",
    )


def log_in_limits(view):
    """The log-in limits (issue 15), for the site's log-in and the admin's alike:

    - per address and account name together ("login"): guessing one account's password from
      one place is slowed down, while its owner elsewhere logs in as usual;
    - per address over all names ("login_address", generous: a club's wifi is one address);
    - per account, failed log-ins only, over a longer window ("login_account"): a slow guess
      from many addresses is stopped too, but a correct password from a browser that has
      logged in to this account before (a signed cookie) still passes, so the owner is never
      locked out by someone else's guessing.
    """

    @functools.wraps(view)
    def wrapped(request, *args, **kwargs):
        if request.method != "POST":
            return view(request, *args, **kwargs)
        name = normalise(request.POST.get("username", "")).strip().lower()[:150]
        ratelimit.check(
            request,
            "login",
            also=(f"pair:{ratelimit.client_address(request)}:{ratelimit.hashed(name)}",),
            client=False,
        )
        ratelimit.check(request, "login_address")
        if not known_device(request, name):
            refusal = ratelimit.over_limit("login_account", _account_key(name))
            if refusal is not None:
                raise refusal
        response = view(request, *args, **kwargs)
        user = getattr(request, "user", None)
        if user is not None and user.is_authenticated and response.status_code in (301, 302):
            _remember_device(request, response, name)
        else:
            ratelimit.count_event("login_account", _account_key(name))
        return response

    return wrapped


@method_decorator(log_in_limits, name="post")
class LoginView(auth_views.LoginView):
    """Django's log-in under the log-in limits (`log_in_limits`)."""


@method_decorator(rate_limit("password_reset"), name="dispatch")
class PasswordResetView(auth_views.PasswordResetView):
    """Django's password reset (mail through EMAIL_BACKEND), counted against its rate limit."""


# -- clubs -----------------------------------------------------------------------------------


def member_club(request, slug: str) -> tuple[Club, str]:
    """The club and the user's role in it; 404 for anyone who is not a member."""
    club = get_object_or_404(Club, slug=slug)
    role = club.role_of(request.user)
    if role is None:
        raise Http404("No such club")
    return club, role


def organiser_club(request, slug: str) -> Club:
    club, role = member_club(request, slug)
    if role != Membership.Role.ORGANISER:
        raise Http404("Only the club's organisers may do that")
    return club


def unique_slug(name: str) -> str:
    base = slugify(name)[:50] or "club"
    slug, n = base, 1
    while Club.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug


@login_required
@require_http_methods(["GET", "POST"])
def clubs(request):
    """My clubs, and a form to create one (its creator becomes its organiser)."""
    form = ClubForm(request.POST or None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            name = form.cleaned_data["name"]
            with transaction.atomic():
                club = Club.objects.create(name=name, slug=unique_slug(name))
                Membership.objects.create(
                    club=club, user=request.user, role=Membership.Role.ORGANISER
                )
                ClubEvent.record(club, ClubEvent.Kind.CREATED, request.user, member=request.user)
            messages.success(request, f"Club “{club.name}” created: you are its organiser.")
            return redirect(club)
        status = 422
    memberships = Membership.objects.filter(user=request.user).select_related("club")
    return TemplateResponse(
        request, "clubs/clubs.html", {"memberships": memberships, "form": form}, status=status
    )


@login_required
@require_GET
def club_detail(request, slug: str):
    club, role = member_club(request, slug)
    is_organiser = role == Membership.Role.ORGANISER
    context = {
        "club": club,
        "role": role,
        "is_organiser": is_organiser,
        "memberships": club.memberships.select_related("user"),
        "scenarios": club.scenarios.filter(deleted_at=None)
        .exclude(visibility=Scenario.Visibility.PRIVATE)
        .order_by("-updated"),
        "invites": Invite.live(club) if is_organiser else [],
        "invite_form": InviteForm(),
        "events": club.events.select_related("actor", "member")[:50] if is_organiser else [],
    }
    return TemplateResponse(request, "clubs/club.html", context)


@login_required
@require_POST
def club_invite(request, slug: str):
    """An organiser makes an invite link (valid Invite.DAYS days, for `max_uses` people)."""
    club = organiser_club(request, slug)
    form = InviteForm(request.POST)
    if not form.is_valid():
        messages.error(request, " ".join(str(e) for e in form.errors["max_uses"]))
        return redirect(club)
    invite = club.make_invite(request.user, form.cleaned_data["max_uses"] or Invite.DEFAULT_USES)
    people = "person" if invite.max_uses == 1 else "people"
    messages.success(
        request,
        f"Invite link made; it admits {invite.max_uses} {people} until "
        f"{invite.expires_at:%d %B %Y %H:%M} UTC: "
        f"{request.build_absolute_uri(invite.get_absolute_url())}",
    )
    return redirect(club)


@login_required
@require_POST
def club_invite_revoke(request, slug: str, invite_id: int):
    """An organiser revokes an invite link: it admits no one from now on."""
    club = organiser_club(request, slug)
    invite = get_object_or_404(club.invites, pk=invite_id)
    invite.revoke(request.user)
    messages.success(request, "Invite link revoked: it admits no one any more.")
    return redirect(club)


@require_http_methods(["GET", "POST"])
def club_join(request, token: str):
    """Open an invite link: see the club, then join it (signed in; while the link works)."""
    invite = get_object_or_404(Invite.objects.select_related("club"), token=token)
    club = invite.club
    if invite.refusal is not None:
        return TemplateResponse(
            request, "clubs/join.html", {"invite": invite, "club": club}, status=410
        )
    if not request.user.is_authenticated:
        # Issue 13: a signed-out visitor sees which club invites them, and signs in (or up)
        # straight back to this invite; joining itself needs the account (the POST below).
        if request.method == "POST":
            return auth_views.redirect_to_login(request.get_full_path())
        back = urlencode({"next": request.get_full_path()})
        return TemplateResponse(
            request,
            "clubs/join.html",
            {
                "invite": invite,
                "club": club,
                "login": f"{reverse('login')}?{back}",
                "signup": f"{reverse('signup')}?{back}",
            },
        )
    if club.role_of(request.user) is not None:
        messages.info(request, f"You are already a member of {club.name}.")
        return redirect(club)
    if request.method == "POST":
        if invite.admit(request.user) or club.role_of(request.user) is not None:
            messages.success(request, f"Welcome to {club.name}.")
            return redirect(club)
        invite.refresh_from_db()  # the last use went to someone else a moment ago
        return TemplateResponse(
            request, "clubs/join.html", {"invite": invite, "club": club}, status=410
        )
    return TemplateResponse(request, "clubs/join.html", {"invite": invite, "club": club})


@login_required
@require_POST
def club_leave(request, slug: str):
    club, role = member_club(request, slug)
    others = club.memberships.exclude(user=request.user)
    if (
        role == Membership.Role.ORGANISER
        and others.exists()
        and not others.filter(role=Membership.Role.ORGANISER).exists()
    ):
        messages.error(
            request, "You are the club's last organiser: make another member organiser first."
        )
        return redirect(club)
    with transaction.atomic():
        club.memberships.filter(user=request.user).delete()
        ClubEvent.record(club, ClubEvent.Kind.LEFT, request.user, member=request.user)
    if not others.exists():
        club.delete()  # nobody left: its scenarios stay with their owners, without a club
        messages.success(request, f"You left {club.name}; it had no other members, so it is gone.")
    else:
        messages.success(request, f"You left {club.name}.")
    return redirect("clubs")


@login_required
@require_POST
def club_role(request, slug: str, user_id: int):
    """An organiser makes a member organiser, or an organiser a member again (not themself
    when they are the last one)."""
    club = organiser_club(request, slug)
    membership = get_object_or_404(club.memberships, user_id=user_id)
    role = request.POST.get("role")
    if role not in Membership.Role.values:
        messages.error(request, "Unknown role.")
        return redirect(club)
    if role == Membership.Role.MEMBER and club.is_last_organiser(membership):
        messages.error(request, "A club needs at least one organiser.")
        return redirect(club)
    club.change_role(membership, role, request.user)
    messages.success(request, f"{membership.user.username} is now {membership.get_role_display()}.")
    return redirect(club)


@login_required
@require_POST
def club_remove(request, slug: str, user_id: int):
    """An organiser removes a member (or another organiser; not the club's last organiser)."""
    club = organiser_club(request, slug)
    membership = get_object_or_404(club.memberships.select_related("user"), user_id=user_id)
    if club.is_last_organiser(membership):
        messages.error(request, "A club needs at least one organiser: you cannot remove the last.")
        return redirect(club)
    club.remove(membership, request.user)
    messages.success(request, f"{membership.user.username} is no longer a member of {club.name}.")
    return redirect(club)


# -- health ----------------------------------------------------------------------------------


@never_cache
@require_GET
def healthz(request):
    """For load balancers: 200 when the database answers, 503 when it does not."""
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            cursor.fetchone()
    except Exception as exc:  # any database failure means "take me out of rotation"
        return JsonResponse({"status": "error", "database": type(exc).__name__}, status=503)
    return JsonResponse({"status": "ok", "database": "ok"})
