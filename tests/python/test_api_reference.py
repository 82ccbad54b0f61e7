"""docs/python-api.md lists every public name of the package: it must say what the package has, no more, no less."""

import os

import list_python_api

REFERENCE = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "python-api.md")


def test_the_reference_lists_exactly_what_the_package_has(capsys):
    status = list_python_api.main(["list_python_api.py", "--check", REFERENCE])
    assert status == 0, capsys.readouterr().out


def test_the_generated_list_names_the_core_classes_and_their_members():
    listing = list_python_api.generated()
    for expected in ("**`Builder`**", "`build_serialized_network`", "**`IExecutionContext`**", "`execute_async_v3`",
                     "**`DataType`**", "`HALF`", "**`IPluginV3`**", "### `kiln.tensorrt.plugin`", "`register`"):
        assert expected in listing
