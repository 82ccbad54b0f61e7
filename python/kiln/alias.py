"""The opt-in ``tensorrt`` alias: after it is installed, ``import tensorrt`` gives Kiln's TensorRT API, so that
scripts written for TensorRT run on Kiln unmodified.

    python -m kiln.alias install [--target DIR] [--force]   # writes DIR/tensorrt/ (default: site-packages)
    python -m kiln.alias uninstall [--target DIR]            # removes it, only if Kiln wrote it
    python -m kiln.alias status                              # what ``import tensorrt`` finds

A real TensorRT is never shadowed without being asked: ``install`` refuses while ``import tensorrt`` finds another
package (``--force`` installs anyway), and ``uninstall`` removes only a folder whose ``__init__.py`` Kiln wrote.
"""

import argparse
import importlib.util
import os
import shutil
import sys
import sysconfig

MARKER = "__kiln_alias__ = True"

ALIAS_SOURCE = f'''"""TensorRT's Python API served by Kiln (written by `python -m kiln.alias install`; remove it with
`python -m kiln.alias uninstall`)."""
from kiln.tensorrt import *  # noqa: F401,F403
from kiln.tensorrt import __version__  # noqa: F401
import sys as _sys
import kiln.tensorrt as _kiln_tensorrt
import kiln.tensorrt.plugin as plugin

# `import tensorrt.plugin` finds Kiln's decorator API under this name: the same module, not a second copy.
_sys.modules[__name__ + ".plugin"] = plugin

{MARKER}


def __getattr__(name):
    return getattr(_kiln_tensorrt, name)
'''


def _is_alias(package_dir):
    init = os.path.join(package_dir, "__init__.py")
    try:
        with open(init, encoding="utf-8") as file:
            return MARKER in file.read()
    except OSError:
        return False


def importable_tensorrt():
    """The folder of the ``tensorrt`` package this Python would import, or None."""
    spec = importlib.util.find_spec("tensorrt")
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return os.path.abspath(list(spec.submodule_search_locations)[0])
    return os.path.abspath(spec.origin) if spec.origin else None


def install(target, force=False):
    """Writes the alias into ``target``; returns an error message, or None."""
    found = importable_tensorrt()
    if found is not None and not _is_alias(found) and not force:
        return (f"a TensorRT package is already importable ({found}); the alias would shadow it. Use --force to "
                "install it anyway")
    package_dir = os.path.join(target, "tensorrt")
    if os.path.exists(package_dir) and not _is_alias(package_dir):
        return f"{package_dir} exists and is not Kiln's alias; not overwriting it"
    os.makedirs(package_dir, exist_ok=True)
    with open(os.path.join(package_dir, "__init__.py"), "w", encoding="utf-8") as file:
        file.write(ALIAS_SOURCE)
    return None


def uninstall(target):
    """Removes the alias from ``target``; returns an error message, or None."""
    package_dir = os.path.join(target, "tensorrt")
    if not os.path.exists(package_dir):
        return f"no tensorrt package in {target}"
    if not _is_alias(package_dir):
        return f"{package_dir} is not Kiln's alias (a real TensorRT?); not removing it"
    shutil.rmtree(package_dir)
    return None


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m kiln.alias", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("action", choices=["install", "uninstall", "status"])
    parser.add_argument("--target", default=sysconfig.get_paths()["purelib"],
                        help="the folder to write tensorrt/ into (default: this Python's site-packages)")
    parser.add_argument("--force", action="store_true", help="install even where another TensorRT is importable")
    args = parser.parse_args(argv)
    if args.action == "status":
        found = importable_tensorrt()
        kind = "none" if found is None else ("Kiln's alias" if _is_alias(found) else "another TensorRT")
        print(f"import tensorrt finds: {kind}{'' if found is None else ' (' + found + ')'}")
        return 0
    error = install(args.target, args.force) if args.action == "install" else uninstall(args.target)
    if error is not None:
        print(f"kiln.alias {args.action}: {error}", file=sys.stderr)
        return 1
    print(f"kiln.alias {args.action}: done ({os.path.join(args.target, 'tensorrt')})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
