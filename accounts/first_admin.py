"""The generated admin password, kept until it is changed so `serve` can show it last.

`make run` prints the migrations, the static files and the schedules before the server
starts, so a password printed once at first start scrolled out of sight (line 150 of
203). ensure_admin keeps the generated password in the data directory (mode 600, next to
the secret key and the database, which give as much away); `serve` shows it under its
banner for as long as it still opens the account, and the file is removed once the
password has been changed (on /password/ or with `manage.py changepassword`).

The password itself is printed once, under the first banner after it was generated; a
log that keeps every start must not hold it again and again. Later starts say where the
kept copy is, for as long as it still opens the account.
"""

from pathlib import Path

from django.conf import settings
from django.contrib.auth import get_user_model


def _path() -> Path:
    return Path(settings.DATA_DIR) / "first_admin_password"


def first_admin_password_keep(*, username: str, password: str) -> None:
    """Keep a generated admin password for `serve` to show until it is changed."""
    path = _path()
    path.touch(mode=0o600)
    path.chmod(0o600)
    path.write_text(f"{username}\n{password}\n")


def first_admin_path() -> Path:
    """Where the generated password is kept until it is changed."""
    return _path()


def first_admin_shown() -> bool:
    """Whether a banner showed the kept password already; marks it shown from now on."""
    path = _path()
    lines = path.read_text().split("\n")
    if "shown" in lines[2:]:
        return True
    with path.open("a") as kept:
        kept.write("shown\n")
    return False


def first_admin_login() -> tuple[str, str] | None:
    """(username, password) while the generated password still opens the account; the
    kept copy is removed once it no longer does."""
    path = _path()
    try:
        username, password = path.read_text().split("\n")[:2]
    except (FileNotFoundError, ValueError):
        return None
    admin = get_user_model().objects.filter(username=username).first()
    if admin is not None and admin.check_password(password):
        return username, password
    path.unlink(missing_ok=True)
    return None
