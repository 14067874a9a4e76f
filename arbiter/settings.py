"""Arbiter's settings: one file, read from the environment (README "Configuration")."""

import os
import sys
from pathlib import Path

import dj_database_url
from django.utils.csp import CSP

BASE_DIR = Path(__file__).resolve().parent.parent


def env_bool(name: str, default: bool) -> bool:
    return os.environ.get(name, str(default)).strip().lower() in ("1", "true", "yes", "on")


def env_list(name: str, default: str) -> list[str]:
    return [item.strip() for item in os.environ.get(name, default).split(",") if item.strip()]


def env_int(name: str, default: int) -> int:
    return int(os.environ.get(name, default))


def env_rate(name: str, default: tuple[int, int]) -> tuple[int, int]:
    """'count/seconds', e.g. RATE_LIMIT_API=120/60; '0/60' turns the limit off."""
    value = os.environ.get(name)
    if not value:
        return default
    count, _, seconds = value.partition("/")
    return int(count), int(seconds or 60)


# Off unless the environment turns it on (`make run` does, for development): a server started
# without configuration shows no tracebacks and refuses to run without its own secret key. The
# test suite (pytest) is a development run too.
DEBUG = env_bool("DEBUG", "pytest" in sys.modules)
SECRET_KEY = os.environ.get("SECRET_KEY", "")
if not SECRET_KEY:
    if not DEBUG:
        raise RuntimeError(
            "SECRET_KEY must be set when DEBUG is off (DEBUG=true only for development)"
        )
    # Only ever with DEBUG on, which only the environment turns on.
    SECRET_KEY = "insecure-development-key-only-for-debug"
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", "127.0.0.1,localhost,testserver")
# Needed behind an HTTPS proxy for POSTs from the site's own pages, e.g. "https://arbiter.club.org".
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django_htmx",
    "battlefield",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    # The live table's "nothing changed" (304) before the rest (battlefield/live.py).
    "battlefield.live.LiveTableMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "battlefield.middleware.LimitsMiddleware",
]

ROOT_URLCONF = "arbiter.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

WSGI_APPLICATION = "arbiter.wsgi.application"

# SQLite by default (WAL, IMMEDIATE transactions, a busy timeout); PostgreSQL via DATABASE_URL.
if os.environ.get("DATABASE_URL"):
    DATABASES = {"default": dj_database_url.parse(os.environ["DATABASE_URL"], conn_max_age=60)}
else:
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.sqlite3",
            "NAME": os.environ.get("SQLITE_PATH", str(BASE_DIR / "db.sqlite3")),
            # Kept open between requests, as with PostgreSQL: opening one (and setting WAL on it)
            # cost more than the live table's whole "nothing changed" answer (issue 17).
            "CONN_MAX_AGE": 60,
            "OPTIONS": {
                "transaction_mode": "IMMEDIATE",
                "timeout": 20,
                "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
            },
        }
    }

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# What pages keep per scenario version (battlefield/pagecache.py), in each process's memory: at
# most 100 entries of at most PAGE_ENTRY_BYTES (1 MB) each, so at most 100 MB and in practice a
# few MB (a busy table's page is ~60 KB). Point it at Redis to share it between app servers.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "OPTIONS": {"MAX_ENTRIES": 100},
    }
}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
# `make serve` collects into STATIC_ROOT (ignored by git; set it to a folder outside the checkout
# on a server, e.g. /var/lib/arbiter/static).
STATIC_ROOT = os.environ.get("STATIC_ROOT") or BASE_DIR / "staticfiles"
# whitenoise serves static files (collectstatic into STATIC_ROOT in production); compressed but
# not renamed, so the vendored htmx keeps the sha384 noted beside it.
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}

# Sessions live in the database, so several app servers behind one proxy share them.
SESSION_ENGINE = "django.contrib.sessions.backends.db"

if not DEBUG:
    # Behind a TLS-terminating proxy (README "Deployment").
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    SESSION_COOKIE_SECURE = env_bool("SECURE_COOKIES", True)
    CSRF_COOKIE_SECURE = env_bool("SECURE_COOKIES", True)
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    # Load balancers ask for /healthz over plain HTTP, inside the network.
    SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31_536_000)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)

SESSION_COOKIE_HTTPONLY = True
# Pages carry the CSRF token themselves (hx-headers on the body): scripts never need the cookie.
CSRF_COOKIE_HTTPONLY = True
X_FRAME_OPTIONS = "DENY"
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
SECURE_CROSS_ORIGIN_OPENER_POLICY = "same-origin"

# Django's built-in Content Security Policy: scripts and styles only from this site's own
# files (no inline script, no hx-on; behaviour lives in static/js), pictures from here or data:
# URLs, no plugins, no framing, forms post only here.
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "connect-src": [CSP.SELF],
    "font-src": [CSP.SELF],
    "object-src": [CSP.NONE],
    "base-uri": [CSP.NONE],
    "frame-ancestors": [CSP.NONE],
    "form-action": [CSP.SELF],
}

# Accounts (battlefield/accounts.py): Django's auth views with our templates.
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "home"
PASSWORD_RESET_TIMEOUT = 3 * 86_400

# Mail (password reset), Django 6.1's MAILERS: printed on the console unless EMAIL_HOST names an
# SMTP server (production: `check --deploy` refuses the console backend).
if os.environ.get("EMAIL_HOST"):
    MAILERS = {
        "default": {
            "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
            "OPTIONS": {
                "host": os.environ["EMAIL_HOST"],
                "port": env_int("EMAIL_PORT", 587),
                "username": os.environ.get("EMAIL_HOST_USER", ""),
                "password": os.environ.get("EMAIL_HOST_PASSWORD", ""),
                "use_tls": env_bool("EMAIL_USE_TLS", True),
                "timeout": 20,
            },
        }
    }
else:
    MAILERS = {"default": {"BACKEND": "django.core.mail.backends.console.EmailBackend"}}
DEFAULT_FROM_EMAIL = os.environ.get("DEFAULT_FROM_EMAIL", "arbiter@localhost")

# Rate limits (battlefield/ratelimit.py): (requests, seconds) per client address and per user,
# counted in the database so several app servers share them.
RATE_LIMITS = {
    "signup": env_rate("RATE_LIMIT_SIGNUP", (5, 3600)),
    # Log-ins (battlefield/accounts.py, log_in_limits): per address and account name together;
    # per address over all names (generous: a club's wifi is one address); failed log-ins per
    # account over an hour, which a browser that logged in to that account before passes.
    "login": env_rate("RATE_LIMIT_LOGIN", (10, 300)),
    "login_address": env_rate("RATE_LIMIT_LOGIN_ADDRESS", (100, 300)),
    "login_account": env_rate("RATE_LIMIT_LOGIN_ACCOUNT", (30, 3600)),
    "password_reset": env_rate("RATE_LIMIT_PASSWORD_RESET", (5, 3600)),
    "import": env_rate("RATE_LIMIT_IMPORT", (30, 3600)),
    "api": env_rate("RATE_LIMIT_API", (120, 60)),
}
# Quotas per account (battlefield/models.py check_quota, README "Limits"): scenarios kept
# (copies and deleted ones not yet purged included) and bytes of scenario documents; 0: none.
QUOTA_SCENARIOS = env_int("QUOTA_SCENARIOS", 200)
QUOTA_BYTES = env_int("QUOTA_BYTES", 50_000_000)

# The engine's deadline per request, in seconds of the worker thread's CPU time (rules/budget.py):
# a judgement or search that runs out answers "too complex to judge here" (README "Limits").
# 0 turns it off.
ENGINE_DEADLINE = float(os.environ.get("ENGINE_DEADLINE", "2"))

# How many proxies in front of the app servers append to X-Forwarded-For (0: use the peer).
TRUSTED_PROXIES = env_int("TRUSTED_PROXIES", 0)

# Largest request body Django reads into memory (scenario imports are limited separately).
DATA_UPLOAD_MAX_MEMORY_SIZE = 2_500_000
# Largest request body at all, uploads included: larger ones are refused with 413 unread.
MAX_REQUEST_BYTES = 3_000_000

# Errors and warnings to stderr (gunicorn and systemd keep it), in every mode.
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": os.environ.get("LOG_LEVEL", "WARNING")},
}
