"""Runs the Python API's tests for CTest: pytest on this folder, or CTest's skip code (77) where pytest or numpy is
missing (scripts/install-deps.sh installs both from tests/requirements.txt)."""

import importlib.util
import sys

missing = [name for name in ("pytest", "numpy") if importlib.util.find_spec(name) is None]
if missing:
    print(f"python_api: skipped: {', '.join(missing)} not installed (pip install -r tests/requirements.txt)")
    sys.exit(77)

import pytest  # noqa: E402 (imported once known to be there)

sys.exit(pytest.main(["-q", "-p", "no:cacheprovider", *sys.argv[1:]]))
