import os

from django.core.wsgi import get_wsgi_application

from core.server.access_log import private_paths
from core.server.wsgi_body import known_length

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gaia_site.settings")
# A chunked body (no Content-Length) is read whole first: Django would read it as empty.
# The access log then shows paths without the session ids clients chose (outermost: it
# changes the server's own environ).
application = private_paths(known_length(get_wsgi_application()))

from gaia_site.env import envbool  # noqa: E402 (settings are configured now)
from retrieval.embedding.startup import embedder_preload  # noqa: E402

if envbool("GAIA_PRELOAD_EMBEDDER", False):  # `serve` sets it and runs gunicorn --preload
    embedder_preload()
