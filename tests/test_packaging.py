"""The project installs as a package (``pip install -e .``) and imports from anywhere."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_every_package_folder_is_in_the_project_table():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    listed = set(project["tool"]["setuptools"]["packages"]["find"]["include"])
    folders = {path.parent.name for path in ROOT.glob("*/__init__.py")} - {"tests", "bench", "devtools"}
    assert folders <= listed, folders - listed
    assert {f"{name}.py" for name in project["tool"]["setuptools"]["py-modules"]} == {
        path.name for path in ROOT.glob("*.py") if path.name != "gunicorn.conf.py"
    }


@pytest.mark.slow
def test_editable_install_imports_from_another_folder(tmp_path):
    prefix = tmp_path / "prefix"
    install = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--disable-pip-version-check",
            "-e",
            str(ROOT),
            "--prefix",
            str(prefix),
        ],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert install.returncode == 0, install.stderr[-2000:]
    (site,) = prefix.glob("lib/python3*/site-packages")
    check = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import site; site.addsitedir({str(site)!r}); import app, web; "
            "print(app.create_app.__module__, web.__file__)",
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert check.returncode == 0, check.stderr[-2000:]
    assert check.stdout.split() == ["app", str(ROOT / "web" / "__init__.py")]
