"""The server process: gunicorn and its worker, the middleware, request ids and logs,
metrics and health."""
