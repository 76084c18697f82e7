"""Background intelligence: the jobs that turn conversations into durable knowledge.

One module per job (extraction, extract_text, consolidation, reconciliation, decay,
prune, profile, tool_errors). Each job is a service over one user's rows; tasks
(`memory/tasks.py`, `conversations/tasks.py`) and commands are thin wrappers around them.
Knowledge is written only through `memory.services`.
"""
