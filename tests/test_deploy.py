import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.own_sqlite  # CI's PostgreSQL pass leaves it to the SQLite pass

ROOT = Path(__file__).resolve().parent.parent


def _check_deploy(tmp_path: Path, **env: str) -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if not k.startswith("GAIA_")}
    environ.pop("DATABASE_URL", None)
    environ.update({"GAIA_DATA_DIR": str(tmp_path), **env})
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_documented_production_settings_pass_check_deploy(tmp_path):
    result = _check_deploy(
        tmp_path,
        GAIA_SECURE="1",
        GAIA_SECRET_KEY="x" * 20 + "a-long-random-production-key-1234567890",
    )
    assert result.returncode == 0, result.stdout + result.stderr


def _documented_production_env() -> dict[str, str]:
    """The variables of the "Production settings" block in docs/operating.md."""
    doc = (ROOT / "docs" / "operating.md").read_text()
    block = doc.split("### Production settings", 1)[1].split("```sh", 1)[1].split("```", 1)[0]
    pairs = [line.split("=", 1) for line in block.strip().splitlines()]
    return {key.strip(): value.strip() for key, value in pairs}


def test_the_documented_production_block_passes_check_deploy_with_a_generated_key(tmp_path):
    documented = _documented_production_env()
    assert {"GAIA_SECURE", "GAIA_ALLOWED_HOSTS", "DATABASE_URL"} <= set(documented)
    result = _check_deploy(tmp_path, **documented)
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "secret_key").stat().st_mode & 0o077 == 0  # readable by its owner only


def test_the_laptop_defaults_are_flagged_by_check_deploy(tmp_path):
    result = _check_deploy(tmp_path)
    assert result.returncode != 0
    assert "SESSION_COOKIE_SECURE" in result.stdout + result.stderr


@pytest.mark.parametrize("value", ["", "0"])
def test_debug_is_off_unless_asked(tmp_path, value):
    environ = {k: v for k, v in os.environ.items() if not k.startswith("GAIA_")}
    environ.update({"GAIA_DATA_DIR": str(tmp_path), "GAIA_DEBUG": value})
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import django,os;os.environ['DJANGO_SETTINGS_MODULE']="
            "'gaia_site.settings';django.setup();from django.conf import settings;"
            "print(settings.DEBUG, (settings.DATA_DIR / 'secret_key').exists())",
        ],
        cwd=ROOT,
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.stdout.strip() == "False True", out.stderr


def settings_read(source: str) -> set[str]:
    """The GAIA_* environment variables a settings module names (every string that is one
    such name: what its env helpers are called with)."""
    return {
        node.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and re.fullmatch(r"GAIA_[A-Z0-9_]+", node.value)
    }


def undocumented(names: set[str], doc: str) -> list[str]:
    return sorted(name for name in names if not re.search(rf"\b{name}\b", doc))


def test_every_setting_read_in_settings_py_is_documented_in_operating_md():
    names = settings_read((ROOT / "gaia_site" / "settings.py").read_text())
    assert len(names) > 80 and {"GAIA_DATA_DIR", "GAIA_THROTTLE_RATE"} <= names
    assert undocumented(names, (ROOT / "docs" / "operating.md").read_text()) == []


def test_the_settings_doc_check_names_a_setting_the_docs_leave_out():
    source = 'X = envint("GAIA_NEW_KNOB", 3)\nY = envstr("GAIA_SECURE_X")\nZ = "gaia_low"\n'
    assert settings_read(source) == {"GAIA_NEW_KNOB", "GAIA_SECURE_X"}
    doc = "`GAIA_SECURE` turns on HTTPS; `GAIA_NEW_KNOB` sets it."
    assert undocumented(settings_read(source), doc) == ["GAIA_SECURE_X"]
