"""Tests of the Python client package (clients/python), imported from the source tree.

tests/system/test_python_client.py installs the package into a fresh virtualenv instead.
"""

import sys
from pathlib import Path

CLIENT_SOURCE = Path(__file__).resolve().parents[2] / "clients" / "python"
if str(CLIENT_SOURCE) not in sys.path:
    sys.path.insert(0, str(CLIENT_SOURCE))
