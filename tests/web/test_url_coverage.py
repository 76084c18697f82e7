"""Every page of the web app that shows or changes a user's data has a cross-user test."""

import re
from pathlib import Path

from django.urls import get_resolver

# Pages with no user data behind them: anyone may see them, the tests in test_accounts.
NO_USER_DATA = {"web-login", "web-logout", "web-signup", "web-password-change"}


def test_every_web_page_has_a_cross_user_test():
    names = {
        name
        for name in get_resolver().reverse_dict
        if isinstance(name, str) and name.startswith("web-")
    }
    assert "web-memory-detail" in names  # the URLconf was read
    tested = set()
    for path in Path(__file__).parent.glob("test_*.py"):
        tested.update(re.findall(r'cross_user\("([\w-]+)"\)', path.read_text()))
    assert sorted(names - NO_USER_DATA - tested) == []
