#!/usr/bin/env python3
"""scripts/check-includes.py on small scratch trees: each planted include that breaks the layering must be named,
and the includes the rules allow must pass. Run: check_includes_test.py [repository root]."""

import os
import subprocess
import sys
import tempfile
import unittest

REPOSITORY = os.path.abspath(sys.argv.pop(1) if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "../.."))
SCRIPT = os.path.join(REPOSITORY, "scripts", "check-includes.py")

# A tree that follows the rules: one file per module, each including what it may.
CLEAN = {
    "include/NvInfer.h": "#pragma once\n",
    "include/kiln/Logging.h": "#include <NvInfer.h>\n",
    "src/device_common/include/device_common/half.h": "#pragma once\n",
    "src/device_common/include/device_common/element_size.h": '#include "device_common/half.h"\n#include <NvInfer.h>\n',
    "src/core/data_type.h": '#include "device_common/half.h"\n#include <NvInfer.h>\n',
    "src/core/logging.h": "#include <kiln/Logging.h>\n",
    "src/core/logging.cpp": '#include "core/logging.h"\n',
    "src/shape/expr.h": '#include "core/data_type.h"\n',
    "src/network/layer.h": '#include "shape/expr.h"\n#include "core/logging.h"\n',
    "src/plan/plan_model.h": '#include "network/layer.h"\n',
    "src/backend/backend.h": '#include "plan/plan_model.h"\n',
    "src/backend/cpu/cpu_backend.h": '#include "backend/backend.h"\n',
    "src/backend/cuda/cuda_backend.h": '#include "backend/backend.h"\n#include "device_common/half.h"\n',
    "src/backend/choice/backends.cpp": '#include "backend/cpu/cpu_backend.h"\n#include "backend/cuda/cuda_backend.h"\n',
    "src/runtime/plan_description.h": '#include "backend/backend.h"\n',
    "src/onnx/parser.cpp": '#include "core/data_type.h"\n#include <kiln/Logging.h>\n#include <string>\n',
    "tools/kiln/inspect.cpp": '#include "runtime/plan_description.h"\n#include "core/data_type.h"\n',
    "plugins/common/fields.h": '#include "device_common/half.h"\n#include <NvInfer.h>\n',
    "plugins/gelu/gelu.cu": '#include "common/fields.h"\n',
    "plugins/gelu/gelu_test.cpp": '#include "core/logging.h"\n#include "plugin_harness.h"\n',
    "python/src/module.cpp": "#include <NvInfer.h>\n",
    "examples/seed/plugin.cpp": "#include <NvInfer.h>\n",
}


class CheckIncludes(unittest.TestCase):
    def run_check(self, changes, exceptions=None):
        """The script's exit code and output on CLEAN with changes (path: text, or None to remove the file)."""
        with tempfile.TemporaryDirectory() as root:
            files = dict(CLEAN)
            files.update(changes)
            if exceptions is not None:
                files["scripts/include-exceptions.txt"] = exceptions
            for path, text in files.items():
                if text is not None:
                    os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
                    with open(os.path.join(root, path), "w", encoding="utf-8") as out:
                        out.write(text)
            result = subprocess.run([sys.executable, SCRIPT, "--root", root], capture_output=True, text=True)
            return result.returncode, result.stdout + result.stderr

    def assert_fails_naming(self, changes, *expected, exceptions=None):
        code, output = self.run_check(changes, exceptions)
        self.assertEqual(code, 1, output)
        for text in expected:
            self.assertIn(text, output)

    def test_clean_tree_passes(self):
        code, output = self.run_check({})
        self.assertEqual(code, 0, output)

    def test_plugin_reaching_into_src(self):
        self.assert_fails_naming({"plugins/gelu/gelu.cu": '#include "core/data_type.h"\n'},
                                 "plugins/gelu/gelu.cu:1: includes src/core/data_type.h: plugins may include only")

    def test_angle_brackets_are_checked_too(self):
        self.assert_fails_naming({"plugins/gelu/gelu.cu": "#include <backend/backend.h>\n"},
                                 "plugins/gelu/gelu.cu:1: includes src/backend/backend.h")

    def test_backends_never_include_each_other(self):
        self.assert_fails_naming({"src/backend/cuda/kernel.cu": '#include "backend/cpu/cpu_backend.h"\n'},
                                 "backend/cuda and backend/cpu are siblings")

    def test_shared_device_code_includes_only_the_public_api(self):
        self.assert_fails_naming({"src/device_common/include/device_common/half.h": '#include "core/data_type.h"\n'},
                                 "includes src/core/data_type.h: device_common may include only modules below it")

    def test_include_upwards_and_the_cycle_it_makes(self):
        self.assert_fails_naming({"src/network/plan_reader.h": '#include "plan/plan_model.h"\n'},
                                 "src/network/plan_reader.h:1: includes src/plan/plan_model.h: network may include "
                                 "only modules below it, not plan",
                                 "modules include each other in a cycle: network -> plan -> network")

    def test_interfaces_are_exported_only_to_the_modules_named(self):
        self.assert_fails_naming({"src/onnx/inspect.cpp": '#include "runtime/plan_description.h"\n'},
                                 "src/onnx/inspect.cpp:1: includes src/runtime/plan_description.h: onnx may include")
        self.assert_fails_naming({"tools/kiln/plan.cpp": '#include "plan/plan_model.h"\n'},
                                 "tools/kiln/plan.cpp:1: includes src/plan/plan_model.h")

    def test_core_parts_defined_in_the_library_stay_below(self):
        self.assert_fails_naming({"src/onnx/log.cpp": '#include "core/logging.h"\n'},
                                 "src/onnx/log.cpp:1: includes src/core/logging.h", "getLogger()")
        self.assert_fails_naming({"src/core/data_type.cpp": '#include "core/data_type.h"\n'},
                                 "src/core/data_type.h: its functions are defined in libkiln")

    def test_listed_exception_passes_and_a_stale_one_fails(self):
        bad = {"src/backend/cuda/kernel.cu": '#include "backend/cpu/cpu_backend.h"\n'}
        listed = "src/backend/cuda/kernel.cu -> src/backend/cpu/cpu_backend.h  # being moved\n"
        code, output = self.run_check(bad, exceptions=listed)
        self.assertEqual(code, 0, output)
        self.assertIn("1 known exceptions", output)
        self.assert_fails_naming({}, "scripts/include-exceptions.txt:1: src/backend/cuda/kernel.cu -> "
                                 "src/backend/cpu/cpu_backend.h breaks no rule now", exceptions=listed)

    def test_unknown_folders_and_files_are_errors(self):
        self.assert_fails_naming({"src/quantization/scale.h": "#pragma once\n"},
                                 "src/quantization/scale.h: belongs to no module")
        self.assert_fails_naming({"src/shape/expr.h": '#include "shape/missing.h"\n'},
                                 'src/shape/expr.h:1: "shape/missing.h" is no file of the repository')


if __name__ == "__main__":
    unittest.main(verbosity=2)
