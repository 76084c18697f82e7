"""Old home of the embedding package, now `retrieval.embedding`; kept for task paths."""
