"""Export and import of one user's whole memory as JSON Lines (no embeddings).

Format (version 3): one JSON object per line. The first is a header
`{"type": "header", "format": "gaia-memory-export", "version": 3, ...}`; then `session`,
`turn`, `tool_call` and `knowledge` records (each item with its earlier `versions`, oldest
first, see memory/versions.py), then the graph's `entity` and `relation` records
(graph/imports.py, docs/graph.md); the last line is
`{"type": "end", "records": N, "counts": {...}}`. Ids in a file are the exporter's ids and
only link records of the same file (a turn's session, an item's `superseded_by` and
`source_turn`; an entity's items, a relation's entities, items, turns and `ended_by`);
they never name rows of the importing account. Version 2 files (no graph) and version 1
files (no graph, no last line) are still imported.

Export streams from data it has checked: each record is made valid (text that is not
Unicode scalar values, NUL characters and non-finite numbers are repaired, and counted
as `repaired` on the last line) before its line is sent, and the last line says how many
records came before it, so a file cut short is recognised: import refuses a version 2 or 3
file without that line, or whose count differs.

Import is two passes over the file (`check_lines`, then `store_lines`):

1. Every line is checked before anything is stored: valid UTF-8 and JSON, no lone
   surrogates or NUL in any key or value, known record types and fields, the owning
   services' validation (`conversations.services.*_import_clean`,
   `memory.imports.memory_import_clean`: the same rules as a write; a token's import
   cannot raise trust: its items are a token's writes, and its rows name only agents
   the account has, while the owner's import creates at most NEW_AGENTS_MAX new ones)
   and the links between records. A bad line is a ValidationError
   naming it, and nothing is stored.
2. Sessions, turns, tool calls, items, then entities and relations are stored through
   those services in chunks,
   each its own short transaction (`core.chunks`), so an import never holds the write
   lock for long. What is already there is skipped (importing twice adds nothing); an
   item is stored after the item that superseded it, already linked to it, so a
   superseded item is never active and near-duplicate folding never merges two items
   of one file (see `memory_import_many`). Imported turns and items are embedded (or
   queued for embedding) as each chunk commits.

Large files are stored and imported by a worker in slices (memory.import_jobs); a
`Journal` then records which lines are done, so a run that stops resumes where it was.
"""
