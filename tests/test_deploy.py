"""deploy/ (issue 17): the proxy configuration and the systemd unit are checked by the tools
that will read them, where this machine has them (caddy: `apt install caddy`; systemd-analyze),
and by the facts the rest of the setup relies on everywhere."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CADDYFILE = ROOT / "deploy" / "Caddyfile"
UNIT = ROOT / "deploy" / "arbiter.service"


def test_caddy_accepts_the_caddyfile(tmp_path):
    caddy = shutil.which("caddy")
    if caddy is None:
        pytest.skip("caddy is not installed (apt install caddy)")
    result = subprocess.run(
        [caddy, "validate", "--config", str(CADDYFILE), "--adapter", "caddyfile"],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=tmp_path,
        env={"HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path), "PATH": "/usr/bin:/bin"},
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert "Valid configuration" in result.stdout + result.stderr


def test_the_caddyfile_proxies_to_make_serve_over_tls():
    text = CADDYFILE.read_text()
    code = "\n".join(line.split("#", 1)[0] for line in text.splitlines())
    assert code.count("{") == code.count("}"), "unbalanced braces"
    makefile = (ROOT / "Makefile").read_text()
    host = re.search(r"^HOST \?= (\S+)", makefile, re.M)[1]
    port = re.search(r"^PORT \?= (\S+)", makefile, re.M)[1]
    assert f"reverse_proxy {host}:{port}" in code  # make serve's default address
    # a site address with a host name: Caddy gets a certificate and redirects HTTP to HTTPS
    assert re.search(r"^\{\$ARBITER_DOMAIN:[a-z0-9.-]+\} \{", code, re.M)
    assert "health_uri /healthz" in code


def test_systemd_accepts_the_unit():
    analyze = shutil.which("systemd-analyze")
    if analyze is None:
        pytest.skip("systemd-analyze is not installed")
    result = subprocess.run(
        [analyze, "verify", str(UNIT)], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    complaints = [line for line in result.stderr.splitlines() if UNIT.name in line]
    assert not complaints, complaints


def test_the_unit_runs_make_serve_with_the_env_file():
    text = UNIT.read_text()
    assert re.search(r"^ExecStart=/usr/bin/make .*\bserve\b", text, re.M)
    assert "Environment=ENV_FILE=" in text
    assert re.search(r"^WantedBy=multi-user.target", text, re.M)


def test_env_example_names_every_setting():
    """Every variable arbiter/settings.py and scripts/serve.py read is in .env.example."""
    example = (ROOT / ".env.example").read_text()
    named = set(re.findall(r"^([A-Z][A-Z0-9_]*)=", example, re.M))
    settings = (ROOT / "arbiter/settings.py").read_text()
    read = set(re.findall(r'(?:environ\.get|env_\w+)\(\s*"([A-Z][A-Z0-9_]+)"', settings))
    read |= set(re.findall(r'environ\["([A-Z][A-Z0-9_]+)"\]', settings))
    # scripts/serve.py: every upper-case name it quotes is a variable it reads
    read |= set(
        re.findall(r"""["']([A-Z][A-Z0-9_]{2,})["']""", (ROOT / "scripts/serve.py").read_text())
    )
    read -= {"DJANGO_SETTINGS_MODULE", "ENV_FILE"}  # which file to read: not in the file
    missing = sorted(read - named)
    assert not missing, f".env.example does not name {missing}: add them with a comment"
