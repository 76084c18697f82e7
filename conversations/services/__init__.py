"""The one write path for conversation turns and tool calls, by sub-domain: recording
(sessions, turns, tool calls as they happen), imports (a file's records, checked then
stored), extraction and consolidation (the states the learning jobs move turns through),
and redaction (prune and redact, for privacy)."""
