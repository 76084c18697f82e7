"""Gaia Memory Server settings: every knob is an environment variable (docs/operating.md)."""

import os
import secrets
from pathlib import Path

import dj_database_url

from gaia_site.env import (
    data_dir,
    envbool,
    envfloat,
    envint,
    envlist,
    envstr,
)

BASE_DIR = Path(__file__).resolve().parent.parent
# Written in unless both the database (DATABASE_URL) and the secret key live elsewhere.
DATA_DIR = data_dir(
    "GAIA_DATA_DIR",
    str(BASE_DIR / "var"),
    must_write=not (envstr("DATABASE_URL") and envstr("GAIA_SECRET_KEY")),
)


def _secret_key() -> str:
    given = envstr("GAIA_SECRET_KEY")
    if given:
        return given
    path = DATA_DIR / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_urlsafe(50))
        path.chmod(0o600)
    return path.read_text().strip()


SECRET_KEY = _secret_key()
DEBUG = envbool("GAIA_DEBUG", False)
ALLOWED_HOSTS = envlist("GAIA_ALLOWED_HOSTS", "localhost,127.0.0.1,[::1]")
CSRF_TRUSTED_ORIGINS = envlist("GAIA_CSRF_TRUSTED_ORIGINS", "")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_q",
    "corsheaders",
    # our apps, in their import order (each imports only itself and those above it here)
    "core",
    "accounts",
    "webhooks",
    "retrieval",
    "conversations",
    "graph",
    "memory",
    "learning",
    "skills",
    "discovery",
    "privacy",
    "bench",
]

MIDDLEWARE = [
    # X-Request-ID, the id in log lines, request metrics
    "core.server.request_id.RequestMiddleware",
    "corsheaders.middleware.CorsMiddleware",  # before anything that answers (preflights)
    "django.middleware.security.SecurityMiddleware",
    "core.server.middleware.ContentSecurityPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "core.server.middleware.CommonMiddleware",  # 308 for a write without the slash
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "accounts.middleware.UserTimezoneMiddleware",
    "core.server.middleware.EraseHoldMiddleware",  # a page's write while its person's erase runs
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "core.server.middleware.ApiMiddleware",
    "core.server.middleware.StorageFullMiddleware",
]

ROOT_URLCONF = "gaia_site.urls"
WSGI_APPLICATION = "gaia_site.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database: SQLite (WAL) in the data directory unless DATABASE_URL says otherwise.
database_url = envstr("DATABASE_URL", f"sqlite:///{DATA_DIR / 'gaia.sqlite3'}")  # not a setting
# On SQLite a request thread keeps its connection (10 minutes): opening one per request cost
# ~2 ms (its pragmas, the schema, a cold page cache). A server's connections are counted,
# so there persistence is the operator's choice (docs/operating.md).
DATABASES = {
    "default": dj_database_url.parse(
        database_url,
        conn_max_age=envint(
            "GAIA_DB_CONN_MAX_AGE", 600 if database_url.startswith("sqlite") else 0
        ),
    )
}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # The same backend, with writers taking SQLite's write lock in turn (see its module).
    DATABASES["default"]["ENGINE"] = "core.sqlite_backend"
    DATABASES["default"]["TEST"] = {"NAME": ":memory:"}  # as for Django's own sqlite3 engine
    # IMMEDIATE avoids "database is locked" on concurrent read-then-write transactions.
    # Reads go through a memory map of the file (the OS's page cache, shared by every
    # connection) rather than being copied into each connection's small page cache: the
    # keyword stage reads hundreds of scattered rows per recall.
    _mmap_bytes = max(0, envint("GAIA_SQLITE_MMAP_MB", 256)) * 1024 * 1024
    DATABASES["default"]["OPTIONS"] = {
        "transaction_mode": "IMMEDIATE",
        "timeout": 20,
        "init_command": (
            "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL; PRAGMA secure_delete=ON;"
            f" PRAGMA mmap_size={_mmap_bytes};"
        ),
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "/login/"
LOGIN_REDIRECT_URL = "/"
LOGOUT_REDIRECT_URL = "/login/"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = Path(envstr("GAIA_STATIC_ROOT", str(DATA_DIR / "static")))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise warns about a missing root
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {"BACKEND": "whitenoise.storage.CompressedStaticFilesStorage"},
}
WHITENOISE_USE_FINDERS = True

# --- Security: production turns these on through GAIA_SECURE=1 (behind HTTPS).
_SECURE = envbool("GAIA_SECURE", False)
SESSION_COOKIE_SECURE = _SECURE
CSRF_COOKIE_SECURE = _SECURE
SECURE_SSL_REDIRECT = _SECURE and envbool("GAIA_SSL_REDIRECT", True)
SECURE_HSTS_SECONDS = envint("GAIA_HSTS_SECONDS", 31536000 if _SECURE else 0)
SECURE_HSTS_INCLUDE_SUBDOMAINS = _SECURE
SECURE_HSTS_PRELOAD = _SECURE
SECURE_PROXY_SSL_HEADER = (
    ("HTTP_X_FORWARDED_PROTO", "https") if envbool("GAIA_BEHIND_PROXY", False) else None
)
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
DATA_UPLOAD_MAX_MEMORY_SIZE = envint("GAIA_MAX_BODY_BYTES", 2 * 1024 * 1024)
GAIA_MAX_IMPORT_BYTES = envint("GAIA_MAX_IMPORT_BYTES", 200 * 1024 * 1024)
# Imports up to this size are stored during the request; larger ones by a worker (a job).
GAIA_IMPORT_SYNC_BYTES = envint("GAIA_IMPORT_SYNC_BYTES", 256 * 1024)
# The longest a client may take to send one whole request, headers and body (serve's web
# worker reads it before a thread takes it; a slower one gets 408).
GAIA_REQUEST_READ_TIMEOUT = envint("GAIA_REQUEST_READ_TIMEOUT", 120)

# --- REST API
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "accounts.auth.BearerTokenAuthentication",
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["accounts.auth.ActsForAPerson"],
    "DEFAULT_RENDERER_CLASSES": ["core.api.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["core.api.parsers.JSONParser"],
    "DEFAULT_SCHEMA_CLASS": "core.api.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "core.api.conventions.exception_handler",
    "DEFAULT_PAGINATION_CLASS": "core.api.conventions.Pagination",
    "DEFAULT_THROTTLE_CLASSES": ["core.api.conventions.TokenRateThrottle"],
    "DEFAULT_THROTTLE_RATES": {
        "token": envstr("GAIA_THROTTLE_RATE", "6000/min"),
        "login": envstr("GAIA_LOGIN_THROTTLE_RATE", "10/min"),
    },
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Gaia Memory Server API",
    "DESCRIPTION": "Long-term memory for AI agents: remember, recall, update, forget.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_AUTHENTICATION": [],  # the schema and docs are public; a bad token is no 401 there
    "SWAGGER_UI_DIST": "SIDECAR",  # served from our own static files: docs work offline
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "COMPONENT_SPLIT_REQUEST": True,
    # Enums are listed in the schema itself: no "* `fact` - fact" prose, no Blank/Null enums.
    "ENUM_GENERATE_CHOICE_DESCRIPTION": False,
    "ENUM_ADD_EXPLICIT_BLANK_NULL_CHOICE": False,
    "ENUM_NAME_OVERRIDES": {
        "CategoryEnum": "memory.api.serializers.ALL_CATEGORIES",
        "WritableCategoryEnum": "memory.models.CATEGORIES",
        "FindingStatusEnum": "discovery.models.STATUSES",
        "HealthStatusEnum": ["ok", "degraded", "down"],
        "ProfileSourceEnum": ["llm", "raw"],
        "KnowledgeSourceEnum": "memory.models.SOURCES",
        "EntityKindEnum": "graph.vocabulary.KINDS",
    },
}

# --- Background tasks (django-q2). ORM broker by default; Redis when GAIA_REDIS_URL is set.
GAIA_REDIS_URL = envstr("GAIA_REDIS_URL", "")
Q_CLUSTER = {
    "name": envstr("GAIA_Q_NAME", "gaia"),
    "workers": envint("GAIA_Q_WORKERS", 2),
    "timeout": envint("GAIA_Q_TIMEOUT", 120),
    "retry": envint("GAIA_Q_RETRY", 180),
    "max_attempts": envint("GAIA_Q_MAX_ATTEMPTS", 3),
    "ack_failures": True,
    "catch_up": False,
    "save_limit": envint("GAIA_Q_SAVE_LIMIT", 1000),
    "label": "Tasks",
    "poll": 0.5,
}
# Task workers run this much nicer than the web server: requests come first on shared cores.
GAIA_WORKER_NICE = envint("GAIA_WORKER_NICE", 10)
if GAIA_REDIS_URL:
    Q_CLUSTER["redis"] = GAIA_REDIS_URL
else:
    Q_CLUSTER["orm"] = "default"
CACHES = {
    "default": (
        {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": GAIA_REDIS_URL}
        if GAIA_REDIS_URL
        else {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}
    )
}
GAIA_SYNC_TASKS = envbool("GAIA_SYNC_TASKS", False)  # run tasks inline (tests, debugging)
if GAIA_SYNC_TASKS:
    Q_CLUSTER["sync"] = True
# Health: a queued task waiting longer than this means no worker is consuming the queue.
GAIA_WORKER_STALE_SECONDS = envint("GAIA_WORKER_STALE_SECONDS", 300)
# Health: less free space than this where the SQLite database is makes `storage` not ok.
GAIA_MIN_FREE_BYTES = envint("GAIA_MIN_FREE_BYTES", 64 * 1024 * 1024)

# --- Embeddings
GAIA_EMBEDDER = envstr("GAIA_EMBEDDER", "local")  # local | openai
GAIA_EMBED_URL = envstr("GAIA_EMBED_URL", "")
GAIA_EMBED_MODEL = envstr("GAIA_EMBED_MODEL", "")
GAIA_EMBED_API_KEY = envstr("GAIA_EMBED_API_KEY", "")
GAIA_EMBED_DIM = envint("GAIA_EMBED_DIM", 384)
GAIA_EMBED_TIMEOUT = envfloat("GAIA_EMBED_TIMEOUT", 10.0)
GAIA_EMBED_BATCH = envint("GAIA_EMBED_BATCH", 32)
# A server's model: the cosines of unrelated texts and of a sure paraphrase (MiniLM's scale
# by default), where a hit's relevance by similarity runs from 0 to 1.
GAIA_EMBED_SIMILARITY_NONE = envfloat("GAIA_EMBED_SIMILARITY_NONE", 0.25)
GAIA_EMBED_SIMILARITY_FULL = envfloat("GAIA_EMBED_SIMILARITY_FULL", 0.75)
GAIA_EMBED_THREADS = envint("GAIA_EMBED_THREADS", 0)  # local model threads; 0 = cores, max 4
# The local model (GAIA_EMBEDDER=local): bge-small-en-v1.5 (default) or all-minilm-l6-v2.
# Changing it re-embeds every row in the background (docs/recall.md).
GAIA_LOCAL_EMBED_MODEL = envstr("GAIA_LOCAL_EMBED_MODEL", "bge-small-en-v1.5")
GAIA_EMBED_MODEL_PATH = envstr("GAIA_EMBED_MODEL_PATH", "")
GAIA_EMBED_TOKENIZER_PATH = envstr("GAIA_EMBED_TOKENIZER_PATH", "")

# --- Recall
GAIA_INDEX_CACHE_MB = envint("GAIA_INDEX_CACHE_MB", 256)
# Per-person index snapshots on disk (retrieval/snapshots.py): a process that has not held
# an owner's index maps it from here instead of building it from the database.
GAIA_INDEX_SNAPSHOTS = envbool("GAIA_INDEX_SNAPSHOTS", True)
GAIA_INDEX_SNAPSHOT_DIR = envstr("GAIA_INDEX_SNAPSHOT_DIR", str(DATA_DIR / "indexes"))
# How often (seconds) each process applies the erases other nodes made to its own snapshot
# folder (retrieval/snapshot_marks.py); 0 = never (one node, or the tests).
GAIA_SNAPSHOT_ERASE_POLL = envfloat("GAIA_SNAPSHOT_ERASE_POLL", 2.0)
GAIA_RRF_K = envint("GAIA_RRF_K", 60)
# Equal weights: on conversational text BM25 is at least as good as MiniLM vectors, and
# 0.6/0.4 lets vector-only hits outrank keyword-only ones (docs/decisions.md).
GAIA_RRF_VECTOR_WEIGHT = envfloat("GAIA_RRF_VECTOR_WEIGHT", 0.5)
GAIA_RRF_KEYWORD_WEIGHT = envfloat("GAIA_RRF_KEYWORD_WEIGHT", 0.5)
# Candidates of the days a query names ("on 1 February, 2023"; retrieval/dates.py) score
# this much more (x 1.5).
GAIA_RRF_DATE_WEIGHT = envfloat("GAIA_RRF_DATE_WEIGHT", 0.5)
# Turns said by the one speaker a query names (retrieval/vocabulary.py) score this much more.
GAIA_RRF_SPEAKER_WEIGHT = envfloat("GAIA_RRF_SPEAKER_WEIGHT", 0.25)
# Hits less relevant than this (retrieval/relevance.py, 0..1) are not returned unless a
# caller asks for a lower min_relevance.
GAIA_MIN_RELEVANCE = envfloat("GAIA_MIN_RELEVANCE", 0.2)
# The relevance judge (retrieval/judge.py): "local" (the packaged cross-encoder, default)
# or "off" (fused order, relevance from similarity and matched words). A rerank server
# (GAIA_RERANK_URL) replaces the local one.
GAIA_JUDGE = envstr("GAIA_JUDGE", "local")
# The judge reads at most this many of the best fused candidates (at least top_k).
GAIA_JUDGE_CANDIDATES = envint("GAIA_JUDGE_CANDIDATES", 20)
# Past this, the fused order stands and the answer says it was not judged.
GAIA_JUDGE_DEADLINE = envfloat("GAIA_JUDGE_DEADLINE", 2.0)
GAIA_JUDGE_THREADS = envint("GAIA_JUDGE_THREADS", 1)  # onnxruntime threads per judgement
GAIA_JUDGE_CONCURRENCY = envint("GAIA_JUDGE_CONCURRENCY", 2)  # judgements at once
# Late interaction (retrieval/tokens.py): "local" (the packaged ColBERT encoder, default)
# or "off". Each item and turn keeps its token vectors, computed after its write commits:
# "background" (one niced thread per process, default), "inline" (in the writer's thread
# after commit) or "off" (only the backfill computes them).
GAIA_LATE = envstr("GAIA_LATE", "local")
# With late interaction on, the judged path orders its candidates by the late stage and the
# judge reads only the pairs that decide what is returned (retrieval/decide.py); off: the
# judge reads the first GAIA_JUDGE_CANDIDATES fused candidates of every question.
GAIA_JUDGE_DECIDES = envbool("GAIA_JUDGE_DECIDES", False)
GAIA_LATE_WRITES = envstr("GAIA_LATE_WRITES", "background")
GAIA_RERANK_URL = envstr("GAIA_RERANK_URL", "")
GAIA_RERANK_MODEL = envstr("GAIA_RERANK_MODEL", "")
GAIA_RERANK_API_KEY = envstr("GAIA_RERANK_API_KEY", "")
GAIA_RERANK_TIMEOUT = envfloat("GAIA_RERANK_TIMEOUT", 5.0)

# --- LLM (any OpenAI-compatible /v1/chat/completions server); empty URL = no LLM.
GAIA_LLM_URL = envstr("GAIA_LLM_URL", "")
GAIA_LLM_MODEL = envstr("GAIA_LLM_MODEL", "")
GAIA_LLM_API_KEY = envstr("GAIA_LLM_API_KEY", "")
GAIA_LLM_TIMEOUT = envfloat("GAIA_LLM_TIMEOUT", 60.0)
GAIA_LLM_RETRIES = envint("GAIA_LLM_RETRIES", 3)
GAIA_LLM_CONNECT_TIMEOUT = envfloat("GAIA_LLM_CONNECT_TIMEOUT", 5.0)
GAIA_LLM_MAX_TOKENS = envint("GAIA_LLM_MAX_TOKENS", 1024)
GAIA_LLM_MAX_BYTES = envint("GAIA_LLM_MAX_BYTES", 1024 * 1024)
GAIA_LLM_JSON_MODE = envbool("GAIA_LLM_JSON_MODE", True)
GAIA_LLM_BACKOFF = envfloat("GAIA_LLM_BACKOFF", 0.5)
GAIA_LLM_RETRY_AFTER_MAX = envfloat("GAIA_LLM_RETRY_AFTER_MAX", 30.0)
GAIA_LLM_BREAKER_THRESHOLD = envint("GAIA_LLM_BREAKER_THRESHOLD", 5)
GAIA_LLM_BREAKER_COOLDOWN = envfloat("GAIA_LLM_BREAKER_COOLDOWN", 60.0)
GAIA_EXTRACTION_MAX_ATTEMPTS = envint("GAIA_EXTRACTION_MAX_ATTEMPTS", 3)
# How long a turn is tried again (with back-off) while the model is unreachable.
GAIA_EXTRACTION_RETRY_HOURS = envfloat("GAIA_EXTRACTION_RETRY_HOURS", 24.0)
GAIA_IDLE_CONSOLIDATE_MINUTES = envint("GAIA_IDLE_CONSOLIDATE_MINUTES", 30)
GAIA_DECAY_EXEMPT_CONTEXTS = envlist("GAIA_DECAY_EXEMPT_CONTEXTS", "")
# Decay: days for an unused item's retention to halve; retention x importance under the
# threshold fades it (forgotten, restorable) once it is at least the prune age in days.
GAIA_DECAY_HALF_LIFE_DAYS = envfloat("GAIA_DECAY_HALF_LIFE_DAYS", 30.0)
GAIA_DECAY_THRESHOLD = envfloat("GAIA_DECAY_THRESHOLD", 0.05)
GAIA_DECAY_PRUNE_AGE_DAYS = envfloat("GAIA_DECAY_PRUNE_AGE_DAYS", 30.0)
# Shared skills: a word taught to an agent type by this many different people is the
# type's own and may reach its other users (docs/privacy.md).
GAIA_SKILL_WORD_PEOPLE = max(2, envint("GAIA_SKILL_WORD_PEOPLE", 3))
# Background schedules, in minutes (0 = not scheduled).
GAIA_EXTRACT_SWEEP_INTERVAL = envint("GAIA_EXTRACT_SWEEP_INTERVAL", 10)
GAIA_CONSOLIDATE_INTERVAL = envint("GAIA_CONSOLIDATE_INTERVAL", 10)
GAIA_RECONCILE_INTERVAL = envint("GAIA_RECONCILE_INTERVAL", 360)
GAIA_DECAY_INTERVAL = envint("GAIA_DECAY_INTERVAL", 1440)
GAIA_PRUNE_INTERVAL = envint("GAIA_PRUNE_INTERVAL", 1440)
GAIA_BACKFILL_INTERVAL = envint("GAIA_BACKFILL_INTERVAL", 15)
GAIA_IMPORT_RESUME_INTERVAL = envint("GAIA_IMPORT_RESUME_INTERVAL", 5)
GAIA_WEBHOOK_SWEEP_INTERVAL = envint("GAIA_WEBHOOK_SWEEP_INTERVAL", 1)

# --- Webhooks (docs/webhooks.md)
GAIA_WEBHOOK_TIMEOUT = envfloat("GAIA_WEBHOOK_TIMEOUT", 10.0)  # one POST, whole exchange
# Paused after this many failed attempts in a row spanning at least this many hours.
GAIA_WEBHOOK_PAUSE_FAILURES = envint("GAIA_WEBHOOK_PAUSE_FAILURES", 10)
GAIA_WEBHOOK_PAUSE_HOURS = envfloat("GAIA_WEBHOOK_PAUSE_HOURS", 24.0)
GAIA_WEBHOOK_KEEP_DAYS = envint("GAIA_WEBHOOK_KEEP_DAYS", 14)  # delivered events, then pruned
# People's and apps' receivers on loopback or private networks too (a self-hosted receiver
# next to the server); staff's own endpoints may always reach them (docs/webhooks.md).
GAIA_WEBHOOK_ALLOW_PRIVATE = envbool("GAIA_WEBHOOK_ALLOW_PRIVATE", False)

# --- Web app
GAIA_ALLOW_SIGNUP = envbool("GAIA_ALLOW_SIGNUP", False)

# GAIA_LOG_FORMAT=json: one JSON object a line (core/server/request_id.py), for a log collector.
GAIA_LOG_FORMAT = envstr("GAIA_LOG_FORMAT", "plain")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "plain": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
        "json": {"()": "core.server.request_id.JsonFormatter"},
    },
    # Session ids in logged paths become {session_id} (they outlive an erase).
    "filters": {
        "private_paths": {"()": "core.server.access_log.PrivatePathsFilter"},
        "request_id": {"()": "core.server.request_id.RequestIdFilter"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "formatter": "json" if GAIA_LOG_FORMAT == "json" else "plain",
            "filters": ["request_id", "private_paths"],
        }
    },
    "root": {"handlers": ["console"], "level": envstr("GAIA_LOG_LEVEL", "INFO")},
    # The MCP SDK logs every stateless request's session start and end at INFO; faiss's
    # loader logs each instruction set it tries in every process ("Could not load library
    # with AVX512 support due to: ModuleNotFoundError"), which reads like an error.
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        "mcp": {"level": "WARNING"},
        "faiss": {"level": "WARNING"},
    },
}

# --- Metrics (core/server/metrics.py, docs/operating.md "Metrics"): /metrics answers 404 unless
# GAIA_METRICS is on and GAIA_METRICS_TOKEN set; a scrape sends it as a bearer token.
GAIA_METRICS = envbool("GAIA_METRICS", False)
GAIA_METRICS_TOKEN = envstr("GAIA_METRICS_TOKEN", "")
GAIA_METRICS_DIR = envstr("GAIA_METRICS_DIR", str(DATA_DIR / "metrics"))
if GAIA_METRICS:  # several processes' counters, added up by the scrape (multiprocess mode)
    Path(GAIA_METRICS_DIR).mkdir(parents=True, exist_ok=True)
    os.environ.setdefault("PROMETHEUS_MULTIPROC_DIR", GAIA_METRICS_DIR)

# --- Browsers on other origins (django-cors-headers): closed unless listed, e.g.
# GAIA_CORS_ORIGINS=https://app.example.org,https://admin.example.org. Only the APIs.
CORS_ALLOWED_ORIGINS = envlist("GAIA_CORS_ORIGINS")
CORS_URLS_REGEX = r"^/(api/v1|mem0|mcp)(/.*)?$"
CORS_EXPOSE_HEADERS = ["X-Request-ID", "Retry-After"]
CORS_PREFLIGHT_MAX_AGE = 3600
