"""The browser tests find Chromium wherever the usual install put it, or where
GAIA_CHROMIUM says (they had looked at Debian's /usr/bin/chromium only)."""

from pathlib import Path

from tests.web import chromium


def _executable(path: Path) -> str:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("#!/bin/sh\n")
    path.chmod(0o755)
    return str(path)


def test_gaia_chromium_names_the_browser(tmp_path, monkeypatch):
    browser = _executable(tmp_path / "my" / "chrome")
    monkeypatch.setenv("GAIA_CHROMIUM", browser)
    assert chromium.find_chromium() == browser


def test_a_gaia_chromium_that_is_no_file_is_said_so(tmp_path, monkeypatch):
    monkeypatch.setenv("GAIA_CHROMIUM", str(tmp_path / "nothing"))
    assert chromium.find_chromium() is None
    assert "GAIA_CHROMIUM=" in chromium.missing_reason()


def test_any_usual_name_on_path_is_found(tmp_path, monkeypatch):
    monkeypatch.delenv("GAIA_CHROMIUM", raising=False)
    browser = _executable(tmp_path / "bin" / "chromium-browser")  # Ubuntu's name
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))
    assert chromium.find_chromium() == browser


def test_a_usual_install_path_off_path_is_found(tmp_path, monkeypatch):
    monkeypatch.delenv("GAIA_CHROMIUM", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    browser = _executable(tmp_path / "snap" / "chromium")
    monkeypatch.setattr(chromium, "PATHS", ("/no/such/chromium", browser))
    assert chromium.find_chromium() == browser


def test_nothing_found_says_where_it_looked_and_how_to_point_at_one(tmp_path, monkeypatch):
    monkeypatch.delenv("GAIA_CHROMIUM", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    monkeypatch.setattr(chromium, "PATHS", ("/no/such/chromium",))
    assert chromium.find_chromium() is None
    assert "GAIA_CHROMIUM" in chromium.missing_reason()
