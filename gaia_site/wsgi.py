import os

from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "gaia_site.settings")
application = get_wsgi_application()

from gaia_site.env import envbool  # noqa: E402 (settings are configured now)
from retrieval.embedding.startup import embedder_preload  # noqa: E402

if envbool("GAIA_PRELOAD_EMBEDDER", False):  # `serve` sets it and runs gunicorn --preload
    embedder_preload()
