"""Web pages for a person's conversations: sessions, turns, search, tool calls."""
