"""The per-user commands refuse an unknown --user clearly instead of doing nothing."""

import pytest
from django.core.management import CommandError, call_command

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("command", ["memory_stats", "rebuild_index", "memory_backfill"])
def test_an_unknown_user_is_a_clear_error(command, alice):
    with pytest.raises(CommandError, match="No user 'nobody'"):
        call_command(command, user="nobody")
