"""Runs the Triton backend's tests for CTest in the Python environment that holds the real server.

    run_triton_tests.py TEST_CLASS --backends DIR --kiln PATH --seed-plugins LIB --source ROOT

TEST_CLASS is a test class of one of this folder's triton_*_test.py modules.

The environment is a virtual environment with PyPI's nvidia-pytriton (the tritonserver binary, Triton 2.51) and
tritonclient, which scripts/install-deps.sh makes (tests/triton/requirements.txt) in $KILN_TRITON_VENV, else
~/.cache/kiln/triton-venv. Where it or the server is missing, exits with CTest's skip code (77) saying so.
"""

import argparse
import os
import sys


def venv_folder():
    configured = os.environ.get("KILN_TRITON_VENV")
    if configured:
        return configured
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(cache, "kiln", "triton-venv")


def skip(message):
    print("triton: skipped: " + message)
    sys.exit(77)


def module_of(test_class, folder):
    """The test module in folder that defines test_class."""
    for name in sorted(os.listdir(folder)):
        if name.startswith("triton_") and name.endswith("_test.py"):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                if "\nclass %s(" % test_class in f.read():
                    return os.path.join(folder, name)
    print("triton: no test module in %s defines %s" % (folder, test_class))
    sys.exit(2)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("test_class")
    parser.add_argument("--backends", required=True)
    parser.add_argument("--kiln", required=True)
    parser.add_argument("--seed-plugins", required=True)
    parser.add_argument("--source", required=True)
    args = parser.parse_args()
    venv = venv_folder()
    python = os.path.join(venv, "bin", "python")
    if not os.path.exists(python):
        skip("no Python environment with Triton at %s (scripts/install-deps.sh makes it; KILN_TRITON_VENV names "
             "another)" % venv)
    env = dict(os.environ, KILN_TRITON_BACKENDS=args.backends, KILN_CLI=args.kiln, KILN_SEED_PLUGINS=args.seed_plugins,
               KILN_SOURCE=args.source, PYTHONDONTWRITEBYTECODE="1")
    here = os.path.dirname(os.path.abspath(__file__))
    os.execve(python, [python, module_of(args.test_class, here), args.test_class], env)


if __name__ == "__main__":
    main()
