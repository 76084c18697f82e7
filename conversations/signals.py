"""What the conversations app announces, so apps above it can react without being called.

Sent inside the write's transaction; receivers queue their work on commit.
"""

from django.dispatch import Signal

# A user turn was stored that background extraction should read: send(sender, turn).
turn_pending = Signal()
# A tool call was logged: send(sender, call).
tool_call_logged = Signal()
# A session was consolidated (its conversation is over for now): send(sender, session).
session_finished = Signal()
