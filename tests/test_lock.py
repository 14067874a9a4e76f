"""The lock files in requirements/ (issue 17, "installs that repeat"): `make run`, `make serve`
and `make test` install exactly these versions, checked against their hashes. A dependency
added to pyproject.toml without running `make lock` would be missing from a clean install; this
test says so first."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())
PROJECT = PYPROJECT["project"]
EXTRAS = PROJECT.get("optional-dependencies", {})

#: Each lock file and the pyproject.toml groups it must cover (Makefile `lock`).
LOCKS = {
    "base.txt": ["dependencies"],
    "test.txt": ["dependencies", "test", "dev"],
    "bench.txt": ["dependencies", *EXTRAS],
}
PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?==([^\s;\\]+)", re.M)


def pinned(lock: str) -> dict[str, Version]:
    text = (ROOT / "requirements" / lock).read_text()
    return {canonicalize_name(name): Version(version) for name, version in PIN.findall(text)}


def named(group: str) -> list[Requirement]:
    lines = PROJECT["dependencies"] if group == "dependencies" else EXTRAS[group]
    return [Requirement(line) for line in lines]


@pytest.mark.parametrize("lock", LOCKS)
def test_the_lock_file_pins_every_dependency_pyproject_names(lock):
    versions = pinned(lock)
    problems = []
    for group in LOCKS[lock]:
        for requirement in named(group):
            name = canonicalize_name(requirement.name)
            where = f"pyproject.toml {group!r}: {requirement}"
            if name not in versions:
                problems.append(f"{name} is not in requirements/{lock} ({where})")
            elif not requirement.specifier.contains(versions[name], prereleases=True):
                problems.append(
                    f"requirements/{lock} pins {name}=={versions[name]}, outside {where}"
                )
            for extra in requirement.extras:  # psycopg[binary] -> psycopg-binary
                if canonicalize_name(f"{name}-{extra}") not in versions and name == "psycopg":
                    problems.append(f"{name}[{extra}] is not in requirements/{lock}")
    assert not problems, "The lock files are out of date: run `make lock`.\n" + "\n".join(problems)


@pytest.mark.parametrize("lock", LOCKS)
def test_every_pin_carries_hashes(lock):
    text = (ROOT / "requirements" / lock).read_text()
    entries = re.split(r"\n(?=[A-Za-z0-9])", text.split("\n", 2)[2])
    unhashed = [e.split()[0] for e in entries if "==" in e and "--hash=sha256:" not in e]
    assert not unhashed, f"pins without hashes in requirements/{lock}: {unhashed}"


def test_the_makefile_installs_from_the_lock_files():
    makefile = (ROOT / "Makefile").read_text()
    for lock in LOCKS:
        assert f"--require-hashes -r $(LOCKS)/{lock}" in makefile
    assert "--no-deps -e ." in makefile
