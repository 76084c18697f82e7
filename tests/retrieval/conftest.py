from tests.recall_fixtures import commit, fresh_caches, model_server, remote_embedder  # noqa: F401
