from tests.recall_fixtures import account, commit, model_server, remote_embedder  # noqa: F401
