"""Settings read from the environment: a value that cannot be read stops start-up."""

import subprocess
import sys
from pathlib import Path

import pytest
from django.core.exceptions import ImproperlyConfigured

from gaia_site.env import envbool, envfloat, envfloat_or_none, envint

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("value", ["1", "true", "Yes", " ON "])
def test_a_yes_value_reads_as_true(monkeypatch, value):
    monkeypatch.setenv("GAIA_TEST_FLAG", value)
    assert envbool("GAIA_TEST_FLAG") is True


@pytest.mark.parametrize("value", ["0", "false", "No", "off"])
def test_a_no_value_reads_as_false(monkeypatch, value):
    monkeypatch.setenv("GAIA_TEST_FLAG", value)
    assert envbool("GAIA_TEST_FLAG", True) is False


def test_an_empty_or_missing_value_is_the_default(monkeypatch):
    monkeypatch.delenv("GAIA_TEST_FLAG", raising=False)
    assert envbool("GAIA_TEST_FLAG", True) is True
    monkeypatch.setenv("GAIA_TEST_FLAG", "  ")
    assert envbool("GAIA_TEST_FLAG", True) is True


@pytest.mark.parametrize("value", ["ture", "enabled", "2", "y"])
def test_an_unknown_yes_no_value_is_an_error_naming_the_variable(monkeypatch, value):
    monkeypatch.setenv("GAIA_SECURE", value)
    with pytest.raises(ImproperlyConfigured, match="GAIA_SECURE"):
        envbool("GAIA_SECURE")


def test_a_number_that_is_not_one_is_an_error_naming_the_variable(monkeypatch):
    monkeypatch.setenv("GAIA_TEST_NUMBER", "ten")
    with pytest.raises(ImproperlyConfigured, match="GAIA_TEST_NUMBER='ten' is not a whole"):
        envint("GAIA_TEST_NUMBER", 1)
    with pytest.raises(ImproperlyConfigured, match="GAIA_TEST_NUMBER='ten' is not a number"):
        envfloat("GAIA_TEST_NUMBER", 1.0)


def test_the_server_refuses_to_start_with_a_misspelt_boolean(tmp_path):
    env = {"PATH": "/usr/bin:/bin", "GAIA_DATA_DIR": str(tmp_path), "GAIA_SECURE": "ture"}
    done = subprocess.run(
        [sys.executable, "manage.py", "check"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode != 0
    assert "GAIA_SECURE='ture' is not a yes/no value" in done.stderr


@pytest.mark.parametrize("value", ["nan", "inf", "-Infinity"])
def test_a_number_that_is_not_finite_is_an_error_naming_the_variable(monkeypatch, value):
    monkeypatch.setenv("GAIA_MIN_RELEVANCE", value)
    with pytest.raises(ImproperlyConfigured, match="GAIA_MIN_RELEVANCE"):
        envfloat("GAIA_MIN_RELEVANCE", 0.2)


def test_an_optional_number_is_none_until_set(monkeypatch):
    monkeypatch.delenv("GAIA_RERANK_MIN_SCORE", raising=False)
    assert envfloat_or_none("GAIA_RERANK_MIN_SCORE") is None
    monkeypatch.setenv("GAIA_RERANK_MIN_SCORE", " 0.35 ")
    assert envfloat_or_none("GAIA_RERANK_MIN_SCORE") == pytest.approx(0.35)
    monkeypatch.setenv("GAIA_RERANK_MIN_SCORE", "high")
    with pytest.raises(ImproperlyConfigured, match="GAIA_RERANK_MIN_SCORE"):
        envfloat_or_none("GAIA_RERANK_MIN_SCORE")
