"""A Python plugin that declares more outputs than a layer can have (num_outputs = 2^31 - 1): add_plugin_v3 refuses
it with an error naming the plugin and the count. Before Kiln bounded the count, the layer's outputs were sized by it
and the interpreter ended (std::bad_alloc inside a noexcept method), so the network is made in a child interpreter
and the test checks how that one ended."""

import subprocess
import sys
import textwrap

CHILD = textwrap.dedent("""
    import kiln.tensorrt as trt

    class Logger(trt.ILogger):
        def __init__(self):
            trt.ILogger.__init__(self)
            self.errors = []

        def log(self, severity, msg):
            if severity <= trt.ILogger.ERROR:
                self.errors.append(msg)

    class ManyOutputs(trt.IPluginV3, trt.IPluginV3OneCore, trt.IPluginV3OneBuild):
        def __init__(self, outputs):
            trt.IPluginV3.__init__(self)
            trt.IPluginV3OneCore.__init__(self)
            trt.IPluginV3OneBuild.__init__(self)
            self.plugin_name = "ManyOutputs"
            self.plugin_version = "1"
            self.plugin_namespace = ""
            self.num_outputs = outputs

        def get_capability_interface(self, type):
            return self

        def clone(self):
            return ManyOutputs(self.num_outputs)

        def get_output_data_types(self, input_types):
            return [input_types[0]] * self.num_outputs

        def get_output_shapes(self, inputs, shape_inputs, expr_builder):
            return [inputs[0]] * self.num_outputs

        def supports_format_combination(self, pos, in_out, num_inputs):
            return True

        def configure_plugin(self, inputs, outputs):
            pass

    logger = Logger()
    builder = trt.Builder(logger)
    network = builder.create_network()
    x = network.add_input("x", trt.float32, (4,))
    huge = network.add_plugin_v3([x], [], ManyOutputs(2**31 - 1))
    assert huge is None
    assert any("ManyOutputs" in e and "getNbOutputs returned 2147483647" in e for e in logger.errors), logger.errors
    three = network.add_plugin_v3([x], [], ManyOutputs(3))
    assert three is not None and three.num_outputs == 3, logger.errors
    print("refused")
""")


def test_a_plugin_with_too_many_outputs_is_refused():
    done = subprocess.run([sys.executable, "-c", CHILD], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    assert "refused" in done.stdout
