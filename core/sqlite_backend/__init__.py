"""SQLite with a queue for its write lock (the embedded default's database backend)."""
