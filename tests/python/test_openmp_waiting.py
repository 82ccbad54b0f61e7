"""Importing kiln shortens libgomp's spinning before libgomp starts (python/kiln/__init__.py), unless the user chose
a wait policy or a spin count: checked on libgomp's own report of its settings (OMP_DISPLAY_ENV=verbose), in a fresh
interpreter each, since libgomp reads them once per process."""
import os
import subprocess
import sys

import pytest


def libgomp_settings(**environment):
    """libgomp's report of its settings in a new interpreter that imports kiln, with `environment` in place of this
    one's wait settings."""
    env = {name: value for name, value in os.environ.items() if name not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    env.update(environment, OMP_DISPLAY_ENV="verbose")
    run = subprocess.run([sys.executable, "-c", "import kiln"], env=env, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    return run.stderr


@pytest.mark.parametrize("environment, shown", [
    ({}, "GOMP_SPINCOUNT = '3000'"),
    ({"GOMP_SPINCOUNT": "1234"}, "GOMP_SPINCOUNT = '1234'"),
    ({"OMP_WAIT_POLICY": "active"}, "GOMP_SPINCOUNT = '30000000000'"),
])
def test_import_sets_a_short_spin_unless_the_user_chose(environment, shown):
    assert shown in libgomp_settings(**environment)
