from tests.recall_fixtures import commit, model_server, remote_embedder  # noqa: F401
