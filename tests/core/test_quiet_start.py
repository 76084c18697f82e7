"""Start-up logs read cleanly: faiss's loader, which tries instruction sets one by one in
every process and logs each miss at INFO ("Could not load library with AVX512 support
due to: ModuleNotFoundError"), says only what went wrong."""

import logging
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = (
    "import django, logging; django.setup(); "
    "import faiss; "
    "logging.getLogger('faiss.loader').info('Loading faiss with AVX512 support.'); "
    "logging.getLogger('faiss.loader').error('faiss could not be loaded at all')"
)


def test_faiss_loader_lines_below_warning_are_not_logged():
    assert logging.getLogger("faiss.loader").getEffectiveLevel() == logging.WARNING


def test_a_process_that_loads_faiss_logs_only_its_errors(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT],
        cwd=ROOT,
        env={
            "DJANGO_SETTINGS_MODULE": "gaia_site.settings",
            "GAIA_DATA_DIR": str(tmp_path),
            "GAIA_LOG_LEVEL": "INFO",
            "PATH": "/usr/bin:/bin",
        },
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "faiss.loader" in done.stderr and "could not be loaded at all" in done.stderr
    assert "AVX512 support" not in done.stderr and "Loading faiss" not in done.stderr
