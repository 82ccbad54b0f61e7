"""Kiln's Triton backend (libtriton_kiln.so) in a real tritonserver, queried over HTTP and gRPC with tritonclient.

Every output is compared with an expectation made without Triton: the `kiln` command on the same model and inputs
(Kiln alone), and where the model zoo has them, ONNX Runtime's or PyTorch's outputs (tests/models/*/expected_*.npy).

    triton_backend_test.py ServingTest|ModelControlTest|BackendConfigTest

run_triton_tests.py starts it in the Python environment that holds the server, with these variables set:
KILN_TRITON_BACKENDS (the build's backends folder), KILN_CLI (the kiln command), KILN_SEED_PLUGINS (the seed plugin
library of the bundled default model) and KILN_SOURCE (the repository). With KILN_TRITON_INSTANCE_KIND=KIND_GPU
every model runs on KIND_GPU instances (Kiln's CUDA backend) instead of KIND_CPU, on a machine with a GPU, and is
compared with the kiln command's CUDA outputs.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import numpy as np
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

from triton_server import TritonServer

BACKENDS = os.environ["KILN_TRITON_BACKENDS"]
KILN = os.environ["KILN_CLI"]
SEED_PLUGINS = os.environ["KILN_SEED_PLUGINS"]
SOURCE = os.environ["KILN_SOURCE"]
MODELS = os.path.join(SOURCE, "tests", "models")
DEFAULT_MODEL = os.path.join(SOURCE, "examples", "default_model", "model.onnx")
KIND = os.environ.get("KILN_TRITON_INSTANCE_KIND", "KIND_CPU")
BACKEND = "cuda" if KIND == "KIND_GPU" else "cpu"
# The server and the kiln command run the same plan on the CPU; on a GPU, kernels may be chosen apart.
SAME = 1e-6 if BACKEND == "cpu" else 1e-4


def zoo(model, name):
    return os.path.join(MODELS, model, name)


def kiln_outputs(model, inputs, plugins=(), shapes=True):
    """The outputs of the kiln command (on BACKEND) for inputs, a dict of name -> array, as a dict of arrays."""
    with tempfile.TemporaryDirectory() as folder:
        loads, dims = [], []
        for name, array in inputs.items():
            path = os.path.join(folder, name + ".bin")
            np.ascontiguousarray(array).tofile(path)
            loads.append("%s:%s" % (name, path))
            dims.append("%s:%s" % (name, "x".join(str(d) for d in array.shape)))
        exported = os.path.join(folder, "outputs.json")
        command = [KILN, "--onnx=" + model, "--backend=" + BACKEND, "--loadInputs=" + ",".join(loads),
                   "--exportOutput=" + exported, "--iterations=1", "--warmUp=0", "--duration=0"]
        command += ["--shapes=" + ",".join(dims)] if shapes else []
        command += ["--staticPlugins=" + p for p in plugins]
        run = subprocess.run(command, capture_output=True, text=True)
        if run.returncode != 0:
            raise RuntimeError("kiln failed:\n" + run.stdout + run.stderr)
        with open(exported) as f:
            return {o["name"]: np.array(o["values"]).reshape([int(d) for d in o["dimensions"].split("x")])
                    for o in json.load(f)}


def write_model(repository, name, config, files):
    """A model folder: config.pbtxt and version 1 holding files (a dict of file name -> source path)."""
    version = os.path.join(repository, name, "1")
    os.makedirs(version)
    with open(os.path.join(repository, name, "config.pbtxt"), "w") as f:
        f.write('backend: "kiln"\n' + config)
    for file_name, source in files.items():
        shutil.copyfile(source, os.path.join(version, file_name))


def infer(client, module, model, inputs, outputs=None):
    """Runs one request with a client of module (httpclient or grpcclient); a dict of output name -> array."""
    tensors = []
    for name, array in inputs.items():
        tensor = module.InferInput(name, list(array.shape), datatype_of(array))
        tensor.set_data_from_numpy(array)
        tensors.append(tensor)
    requested = [module.InferRequestedOutput(n) for n in outputs] if outputs else None
    result = client.infer(model, tensors, outputs=requested)
    names = outputs or [o["name"] for o in (result.get_response()["outputs"] if module is httpclient
                                            else json_outputs(result))]
    return {n: result.as_numpy(n) for n in names}


def json_outputs(grpc_result):
    return [{"name": o.name} for o in grpc_result.get_response().outputs]


def datatype_of(array):
    return {np.float32: "FP32", np.float64: "FP64", np.float16: "FP16", np.int32: "INT32", np.int64: "INT64",
            np.object_: "BYTES"}[array.dtype.type]


INSTANCES = "instance_group [ { kind: %s } ]\n" % KIND


def eventually(read, wanted, holds=lambda value, wanted: value == wanted, seconds=10.0):
    """read() once it holds (value == wanted by default), or its last value after `seconds`."""
    deadline = time.monotonic() + seconds
    value = read()
    while not holds(value, wanted) and time.monotonic() < deadline:
        time.sleep(0.1)
        value = read()
    return value


def unregister_once_released(unregister, region, seconds=10.0):
    """unregister(region) once the server has let the region go. Triton counts the requests that use a shared memory
    region and drops a request's count after its response has gone out, so an unregister sent as soon as the response
    arrives can find the region still "in use": it is tried again until then."""
    deadline = time.monotonic() + seconds
    while True:
        try:
            unregister(region)
            return
        except InferenceServerException as error:
            if "currently in use" not in str(error) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def infer_in_shared_memory(client, module, region, images, output_bytes):
    """resnest_batched on images placed at the start of region, its logits written right after them; the logits'
    shape as the response gives it."""
    tensor = module.InferInput("image", list(images.shape), "FP32")
    tensor.set_shared_memory(region, images.nbytes, 0)
    output = module.InferRequestedOutput("logits")
    output.set_shared_memory(region, output_bytes, images.nbytes)
    result = client.infer("resnest_batched", [tensor], outputs=[output])
    described = result.get_output("logits")
    return [int(d) for d in (described["shape"] if module is httpclient else described.shape)]


class DeviceMemory:
    """A buffer on GPU 0 through CUDA's runtime library (ctypes: the test machine has the toolkit, and the client's
    own CUDA module needs cuda-python), with the IPC handle Triton's CUDA shared memory registers."""

    def __init__(self, size):
        import ctypes

        self.ctypes, self.bytes, self.pointer = ctypes, size, ctypes.c_void_p()
        cuda_home = os.environ.get("CUDA_HOME", "/usr/local/cuda")
        for library in ("libcudart.so", os.path.join(cuda_home, "lib64", "libcudart.so")):
            try:
                self.cudart = ctypes.CDLL(library)
                break
            except OSError:
                continue
        else:
            raise unittest.SkipTest("no CUDA runtime library (libcudart.so) to make GPU memory with")
        self.check(self.cudart.cudaSetDevice(0), "cudaSetDevice")
        self.check(self.cudart.cudaMalloc(ctypes.byref(self.pointer), ctypes.c_size_t(size)), "cudaMalloc")

    def check(self, status, call):
        if status != 0:
            raise RuntimeError("%s failed with CUDA error %d" % (call, status))

    def write(self, array, offset=0):
        host = np.ascontiguousarray(array)
        destination = self.ctypes.c_void_p(self.pointer.value + offset)
        self.check(self.cudart.cudaMemcpy(destination, host.ctypes.data_as(self.ctypes.c_void_p),
                                          self.ctypes.c_size_t(host.nbytes), 1), "cudaMemcpy to the GPU")

    def read(self, offset, size, dtype):
        host = np.empty(size // np.dtype(dtype).itemsize, dtype)
        source = self.ctypes.c_void_p(self.pointer.value + offset)
        self.check(self.cudart.cudaMemcpy(host.ctypes.data_as(self.ctypes.c_void_p), source,
                                          self.ctypes.c_size_t(size), 2), "cudaMemcpy from the GPU")
        return host

    def ipc_handle(self):
        """cudaIpcGetMemHandle's 64 bytes, base64-encoded as both of tritonclient's clients take them."""
        import base64

        handle = (self.ctypes.c_byte * 64)()
        self.check(self.cudart.cudaIpcGetMemHandle(handle, self.pointer), "cudaIpcGetMemHandle")
        return base64.b64encode(bytes(handle)).decode()

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.cudart.cudaFree(self.pointer)


def visible_gpus():
    """The GPUs the server sees: CUDA_VISIBLE_DEVICES's, else nvidia-smi's (0 where there is none)."""
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    if visible is not None:
        return len([d for d in visible.split(",") if d.strip()])
    try:
        listing = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=30).stdout
    except (OSError, subprocess.SubprocessError):
        return 0
    return listing.count("GPU ")


class ServingTest(unittest.TestCase):
    """One server with a repository of models loaded at start: a zoo model as ONNX and as a plan, the bundled default
    model with its seed plugin, the YOLO-style model ending in EfficientNMS_TRT, and configurations that exercise
    auto-completion, dynamic batching and variable shapes."""

    @classmethod
    def setUpClass(cls):
        cls.repository = tempfile.mkdtemp(prefix="kiln-triton-serving-")
        r = cls.repository
        write_model(r, "resnest", INSTANCES, {"model.onnx": zoo("resnest", "model.onnx")})
        plan = os.path.join(r, "resnest.plan")
        subprocess.run([KILN, "--onnx=" + zoo("resnest", "model.onnx"), "--backend=" + BACKEND, "--skipInference",
                        "--minShapes=image:1x3x64x64", "--optShapes=image:2x3x64x64", "--maxShapes=image:2x3x64x64",
                        "--saveEngine=" + plan], check=True, capture_output=True)
        write_model(r, "resnest_plan", INSTANCES, {"model.plan": plan})
        # The batcher waits up to 0.2 s for more requests, so that 16 clients' requests meet in one batch even where
        # the machine is loaded and the clients' threads start late (the concurrency test asks for batches of 3+).
        write_model(r, "resnest_batched", INSTANCES.replace("}", "count: 2 }") + """max_batch_size: 8
dynamic_batching { max_queue_delay_microseconds: 200000 }
input [ { name: "image" data_type: TYPE_FP32 dims: [ 3, -1, -1 ] } ]
output [ { name: "logits" data_type: TYPE_FP32 dims: [ 10 ] } ]
""", {"model.onnx": zoo("resnest", "model.onnx")})
        write_model(r, "resnest_shapes", INSTANCES + """max_batch_size: 0
input [ { name: "image" data_type: TYPE_FP32 dims: [ -1, 3, 64, 64 ] } ]
output [ { name: "logits" data_type: TYPE_FP32 dims: [ -1, 10 ] } ]
parameters { key: "min_shapes" value: { string_value: "image:1x3x64x64" } }
parameters { key: "opt_shapes" value: { string_value: "image:2x3x64x64" } }
parameters { key: "max_shapes" value: { string_value: "image:3x3x64x64" } }
""", {"model.onnx": zoo("resnest", "model.onnx")})
        write_model(r, "resnest_fp16", INSTANCES + 'parameters { key: "precision" value: { string_value: "FP16" } }\n',
                    {"model.onnx": zoo("resnest", "model.onnx")})
        write_model(r, "default_model", INSTANCES + 'parameters { key: "plugins" value: { string_value: "%s" } }\n'
                    % SEED_PLUGINS, {"model.onnx": DEFAULT_MODEL})
        write_model(r, "yolo_nms", INSTANCES, {"model.onnx": zoo("yolo_end2end", "model.onnx")})
        cls.server = TritonServer(r, BACKENDS)

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        shutil.rmtree(cls.repository, ignore_errors=True)

    def setUp(self):
        self.http = self.server.http()
        self.grpc = self.server.grpc()

    def assert_still_serving(self):
        self.assertTrue(self.server.running(), "tritonserver exited:\n" + self.server.log())
        self.assertTrue(self.http.is_model_ready("resnest"))

    def test_configuration_is_completed_from_the_engine(self):
        config = self.http.get_model_config("resnest")
        self.assertEqual(config["max_batch_size"], 4)  # the server's default-max-batch-size, the profile's maximum
        self.assertEqual([(i["name"], i["data_type"], i["dims"]) for i in config["input"]],
                         [("image", "TYPE_FP32", [3, 64, 64])])
        self.assertEqual([(o["name"], o["data_type"], o["dims"]) for o in config["output"]],
                         [("logits", "TYPE_FP32", [10])])
        plan_config = self.http.get_model_config("resnest_plan")
        self.assertEqual(plan_config["max_batch_size"], 2)  # the plan's profile
        default = self.http.get_model_config("default_model")
        self.assertEqual(default["max_batch_size"], 0)  # a fixed batch of 1: no batching
        self.assertEqual(default["input"][0]["dims"], [1, 3, 16, 16])

    def test_zoo_model_over_http_and_grpc_matches_kiln_and_onnxruntime(self):
        image = np.load(zoo("resnest", "input_0.npy"))
        expected = np.load(zoo("resnest", "expected_0.npy"))
        alone = kiln_outputs(zoo("resnest", "model.onnx"), {"image": image})["logits"]
        for module, client in ((httpclient, self.http), (grpcclient, self.grpc)):
            for model in ("resnest", "resnest_plan"):
                got = infer(client, module, model, {"image": image})["logits"]
                self.assertEqual(got.shape, (1, 10))
                np.testing.assert_allclose(got, alone, rtol=0, atol=SAME, err_msg=model)
                np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4, err_msg=model)

    def test_a_batch_of_four_in_one_request(self):
        rng = np.random.default_rng(1)
        images = rng.standard_normal((4, 3, 64, 64)).astype(np.float32)
        alone = kiln_outputs(zoo("resnest", "model.onnx"), {"image": images})["logits"]
        got = infer(self.http, httpclient, "resnest", {"image": images})["logits"]
        np.testing.assert_allclose(got, alone, rtol=0, atol=SAME)

    def test_fp16_precision_builds_a_plan_close_to_fp32(self):
        image = np.load(zoo("resnest", "input_0.npy"))
        expected = np.load(zoo("resnest", "expected_0.npy"))
        got = infer(self.http, httpclient, "resnest_fp16", {"image": image})["logits"]
        np.testing.assert_allclose(got, expected, rtol=0, atol=2e-2)
        with open(os.path.join(self.repository, "resnest_fp16", "1", "model.onnx.%s.plan.key" % BACKEND)) as f:
            self.assertIn("precision FP16", f.read())

    def test_default_model_with_seed_plugin_matches_kiln(self):
        rng = np.random.default_rng(2)
        image = rng.standard_normal((1, 3, 16, 16)).astype(np.float32)
        alone = kiln_outputs(DEFAULT_MODEL, {"input": image}, plugins=[SEED_PLUGINS], shapes=False)
        for module, client in ((httpclient, self.http), (grpcclient, self.grpc)):
            got = infer(client, module, "default_model", {"input": image})["probabilities"]
            np.testing.assert_allclose(got, alone["probabilities"], rtol=0, atol=SAME)
            self.assertAlmostEqual(float(got.sum()), 1.0, places=5)  # a softmax

    def test_yolo_with_efficient_nms_matches_kiln_and_pytorch(self):
        images = np.load(zoo("yolo_end2end", "input_0.npy"))
        names = ["num_dets", "det_boxes", "det_scores", "det_classes"]
        alone = kiln_outputs(zoo("yolo_end2end", "model.onnx"), {"images": images}, shapes=False)
        got = infer(self.grpc, grpcclient, "yolo_nms", {"images": images}, outputs=names)
        for i, name in enumerate(names):
            np.testing.assert_allclose(got[name], alone[name], rtol=0, atol=SAME, err_msg=name)
            expected = np.load(zoo("yolo_end2end", "expected_%d.npy" % i))
            np.testing.assert_allclose(got[name], expected, rtol=1e-4, atol=1e-4, err_msg=name)
        self.assertEqual(got["num_dets"].dtype, np.int32)

    def test_only_the_requested_outputs_come_back(self):
        images = np.load(zoo("yolo_end2end", "input_0.npy"))
        got = infer(self.http, httpclient, "yolo_nms", {"images": images}, outputs=["det_scores"])
        self.assertEqual(list(got), ["det_scores"])
        self.assertEqual(got["det_scores"].shape, (2, 100))

    def test_variable_shapes_within_the_profile(self):
        rng = np.random.default_rng(3)
        images = rng.standard_normal((3, 3, 64, 64)).astype(np.float32)
        alone = kiln_outputs(zoo("resnest", "model.onnx"), {"image": images})["logits"]
        for rows in (1, 3, 2):
            got = infer(self.http, httpclient, "resnest_shapes", {"image": images[:rows]})["logits"]
            np.testing.assert_allclose(got, alone[:rows], rtol=0, atol=SAME)

    def test_concurrent_clients_with_dynamic_batching_each_get_their_own_rows(self):
        rng = np.random.default_rng(4)
        images = rng.standard_normal((24, 3, 64, 64)).astype(np.float32)
        expected = kiln_outputs(zoo("resnest", "model.onnx"), {"image": images})["logits"]
        failures = []
        before = self.success_count("resnest_batched")

        def client(worker):
            connection = self.server.http()
            for k in range(6):
                first = (worker * 5 + k * 7) % 23
                rows = 1 + (worker + k) % 2  # requests of one and of two rows
                try:
                    got = infer(connection, httpclient, "resnest_batched", {"image": images[first:first + rows]})
                    if not np.allclose(got["logits"], expected[first:first + rows], rtol=0, atol=1e-5):
                        failures.append("worker %d request %d: wrong rows" % (worker, k))
                except InferenceServerException as e:
                    failures.append("worker %d request %d: %s" % (worker, k, e))

        workers = [threading.Thread(target=client, args=(w,)) for w in range(16)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        self.assertEqual(failures, [])
        # A client has its response before the backend reports the request's statistics, and Triton refreshes its
        # metrics every 2 s: both are read until they count every request.
        expected = before + 16 * 6
        self.assertEqual(eventually(lambda: self.success_count("resnest_batched"), expected), expected)
        stats = self.http.get_inference_statistics("resnest_batched")["model_stats"][0]
        batched = [b for b in stats["batch_stats"] if b["batch_size"] > 2]
        self.assertTrue(batched, "dynamic batching never ran more than one request at once: %s" % stats)
        line = 'nv_inference_request_success{model="resnest_batched",version="1"} %d' % expected
        self.assertIn(line, eventually(self.server.metrics, line, lambda metrics, wanted: wanted in metrics))

    def test_instances_on_every_gpu(self):
        gpus = visible_gpus()
        if KIND != "KIND_GPU" or gpus < 2:
            self.skipTest("needs KIND_GPU instances on a machine with two GPUs or more (%s, %d GPUs)" % (KIND, gpus))
        # KIND_GPU without a gpus list: Triton makes `count` instances on each GPU, and Kiln's backend builds or loads
        # the plan on each. The concurrent test above ran its requests across all of them.
        log = self.server.log()
        for gpu in range(gpus):
            self.assertIn("runs on the CUDA backend, GPU %d" % gpu, log)
        images = np.random.default_rng(5).standard_normal((8, 3, 64, 64)).astype(np.float32)
        expected = kiln_outputs(zoo("resnest", "model.onnx"), {"image": images})["logits"]
        answers = [None] * 32

        def client(k):
            answers[k] = infer(self.server.http(), httpclient, "resnest_batched", {"image": images[k % 8:k % 8 + 1]})

        workers = [threading.Thread(target=client, args=(k,)) for k in range(32)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        for k, got in enumerate(answers):
            np.testing.assert_allclose(got["logits"], expected[k % 8:k % 8 + 1], rtol=0, atol=1e-5)

    def test_system_shared_memory_inputs_and_outputs(self):
        import tritonclient.utils.shared_memory as shm

        images = np.random.default_rng(6).standard_normal((3, 3, 64, 64)).astype(np.float32)
        expected = kiln_outputs(zoo("resnest", "model.onnx"), {"image": images})["logits"].astype(np.float32)
        name = "kiln_test_%d" % os.getpid()
        region = shm.create_shared_memory_region(name, "/" + name, images.nbytes + expected.nbytes)
        try:
            shm.set_shared_memory_region(region, [images])
            for module, client in ((httpclient, self.http), (grpcclient, self.server.grpc())):
                client.register_system_shared_memory(name, "/" + name, images.nbytes + expected.nbytes)
                shm.set_shared_memory_region(region, [np.zeros_like(expected)], offset=images.nbytes)
                try:
                    got = infer_in_shared_memory(client, module, name, images, expected.nbytes)
                    np.testing.assert_allclose(shm.get_contents_as_numpy(region, np.float32, expected.shape,
                                                                         offset=images.nbytes), expected,
                                               rtol=0, atol=SAME, err_msg=module.__name__)
                    self.assertEqual(got, list(expected.shape))
                finally:
                    unregister_once_released(client.unregister_system_shared_memory, name)
        finally:
            shm.destroy_shared_memory_region(region)

    def test_cuda_shared_memory_inputs_and_outputs(self):
        if KIND != "KIND_GPU":
            self.skipTest("inputs in GPU memory are for KIND_GPU instances; these run on %s" % KIND)
        images = np.random.default_rng(7).standard_normal((3, 3, 64, 64)).astype(np.float32)
        expected = kiln_outputs(zoo("resnest", "model.onnx"), {"image": images})["logits"].astype(np.float32)
        with DeviceMemory(images.nbytes + expected.nbytes) as memory:
            memory.write(images)
            for module, client in ((httpclient, self.http), (grpcclient, self.server.grpc())):
                name = "kiln_test_cuda_%s" % module.__name__.split(".")[-1]
                client.register_cuda_shared_memory(name, memory.ipc_handle(), 0, memory.bytes)
                memory.write(np.zeros_like(expected), images.nbytes)
                try:
                    got = infer_in_shared_memory(client, module, name, images, expected.nbytes)
                    logits = memory.read(images.nbytes, expected.nbytes, np.float32).reshape(expected.shape)
                    np.testing.assert_allclose(logits, expected, rtol=0, atol=SAME, err_msg=module.__name__)
                    self.assertEqual(got, list(expected.shape))
                finally:
                    unregister_once_released(client.unregister_cuda_shared_memory, name)

    def success_count(self, model):
        return self.http.get_inference_statistics(model)["model_stats"][0]["inference_stats"]["success"]["count"]

    def test_bad_requests_fail_alone_with_a_clear_error(self):
        good = np.load(zoo("resnest", "input_0.npy"))
        cases = [
            # What the backend itself checks: a shape outside the engine's profile, which the configuration allows.
            ("resnest_shapes", {"image": np.zeros((4, 3, 64, 64), np.float32)}, "dimension 0 must be from 1 to 3"),
            ("resnest_batched", {"image": np.zeros((1, 3, 32, 32), np.float32)}, "dimension 2 must be 64"),
            # What the server checks against the completed configuration before the backend sees the request.
            ("resnest", {"image": np.zeros((1, 3, 64, 64), np.float64)}, "FP64"),
            ("resnest", {"picture": good}, "picture"),
            ("resnest", {"image": np.zeros((1, 3, 32, 32), np.float32)}, "unexpected shape"),
            ("resnest", {"image": np.array([[b"x"]], dtype=np.object_)}, "BYTES"),
        ]
        for model, inputs, message in cases:
            for module, client in ((httpclient, self.http), (grpcclient, self.grpc)):
                with self.assertRaises(InferenceServerException, msg=model) as raised:
                    infer(client, module, model, inputs)
                self.assertIn(message, str(raised.exception))
        self.assert_still_serving()
        got = infer(self.http, httpclient, "resnest_batched", {"image": good})["logits"]
        np.testing.assert_allclose(got, np.load(zoo("resnest", "expected_0.npy")), rtol=1e-4, atol=1e-4)

    def test_bad_and_good_requests_at_once(self):
        good = np.load(zoo("resnest", "input_0.npy"))
        expected = np.load(zoo("resnest", "expected_0.npy"))
        outcomes = []

        def send(bad):
            image = np.zeros((1, 3, 32, 32), np.float32) if bad else good
            try:
                got = infer(self.server.http(), httpclient, "resnest_batched", {"image": image})["logits"]
                outcomes.append(("ok", bad, bool(np.allclose(got, expected, rtol=1e-4, atol=1e-4))))
            except InferenceServerException as e:
                outcomes.append(("error", bad, "dimension 2 must be 64" in str(e)))

        threads = [threading.Thread(target=send, args=(i % 3 == 0,)) for i in range(12)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.assertEqual(sorted(outcomes), sorted([("error", True, True)] * 4 + [("ok", False, True)] * 8))


class ModelControlTest(unittest.TestCase):
    """A server in explicit model-control mode: models load, fail to load, unload and load again while it runs."""

    @classmethod
    def setUpClass(cls):
        cls.repository = tempfile.mkdtemp(prefix="kiln-triton-control-")
        cls.server = TritonServer(cls.repository, BACKENDS, ["--model-control-mode=explicit"])

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        shutil.rmtree(cls.repository, ignore_errors=True)

    def setUp(self):
        self.http = self.server.http()

    def load_error(self, name):
        with self.assertRaises(InferenceServerException) as raised:
            self.http.load_model(name)
        self.assertTrue(self.server.running(), "tritonserver exited:\n" + self.server.log())
        self.assertFalse(self.http.is_model_ready(name))
        return str(raised.exception)

    def test_plugin_libraries_missing_then_given(self):
        r = self.repository
        write_model(r, "seed_unloaded", INSTANCES, {"model.onnx": DEFAULT_MODEL})
        self.assertIn("MyCustomPlugin", self.load_error("seed_unloaded"))
        write_model(r, "seed_missing", INSTANCES + 'parameters { key: "plugins" value: { string_value: '
                    '"libs/libkiln_missing_plugins.so" } }\n', {"model.onnx": DEFAULT_MODEL})
        message = self.load_error("seed_missing")
        self.assertIn(os.path.join(r, "seed_missing", "libs", "libkiln_missing_plugins.so"), message)
        self.assertIn("cannot load plugin library", message)
        # The library in the model's folder, named relative to it.
        os.makedirs(os.path.join(r, "seed_given", "libs"))
        shutil.copyfile(SEED_PLUGINS, os.path.join(r, "seed_given", "libs", "libseed.so"))
        plugins = 'parameters { key: "plugins" value: { string_value: "libs/libseed.so" } }\n'
        write_model(r, "seed_given", INSTANCES + plugins, {"model.onnx": DEFAULT_MODEL})
        self.http.load_model("seed_given")
        image = np.ones((1, 3, 16, 16), np.float32)
        got = infer(self.http, httpclient, "seed_given", {"input": image})["probabilities"]
        alone = kiln_outputs(DEFAULT_MODEL, {"input": image}, plugins=[SEED_PLUGINS], shapes=False)
        np.testing.assert_allclose(got, alone["probabilities"], rtol=0, atol=SAME)

    def test_configurations_the_backend_refuses(self):
        r = self.repository
        cases = {
            "bytes_input": ('input [ { name: "image" data_type: TYPE_STRING dims: [ 3, 64, 64 ] } ]\n'
                            "max_batch_size: 4\n", "TYPE_STRING (BYTES)"),
            "wrong_type": ('input [ { name: "image" data_type: TYPE_INT32 dims: [ 3, 64, 64 ] } ]\n'
                           "max_batch_size: 4\n", "TYPE_INT32 in the configuration but TYPE_FP32"),
            "batch_too_large": ("max_batch_size: 16\n" + 'parameters { key: "max_shapes" value: { string_value: '
                                '"image:8x3x64x64" } }\n' + 'parameters { key: "min_shapes" value: { string_value: '
                                '"image:1x3x64x64" } }\n' + 'parameters { key: "opt_shapes" value: { string_value: '
                                '"image:8x3x64x64" } }\n', "the engine's profile takes at most 8"),
            "unknown_parameter": ('parameters { key: "precison" value: { string_value: "FP16" } }\n',
                                  'unknown parameter "precison"'),
            "bad_precision": ('parameters { key: "precision" value: { string_value: "INT3" } }\n', "precision"),
            "no_graphs": ('parameters { key: "max_cuda_graphs" value: { string_value: "0" } }\n',
                          'max_cuda_graphs ("0"): "0" is not a positive whole number'),
        }
        for name, (config, message) in cases.items():
            write_model(r, name, INSTANCES + config, {"model.onnx": zoo("resnest", "model.onnx")})
            self.assertIn(message, self.load_error(name), name)
        write_model(r, "no_model_file", INSTANCES, {})
        self.assertIn("holds neither model.plan", self.load_error("no_model_file"))
        # How many scores pass depends on their values: a request's rows could not be found in a shared run.
        shapes = "".join('parameters { key: "%s_shapes" value: { string_value: "scores:%d" } }\n' % (which, size)
                         for which, size in (("min", 1), ("opt", 4), ("max", 4)))
        write_model(r, "data_dependent", INSTANCES + "max_batch_size: 4\n" + shapes,
                    {"model.onnx": os.path.join(SOURCE, "tests", "triton", "models", "selected_scores.onnx")})
        self.assertIn('the shape of output "indices" depends on the input values', self.load_error("data_dependent"))

    def test_unload_and_reload(self):
        write_model(self.repository, "reloaded", INSTANCES, {"model.onnx": zoo("resnest", "model.onnx")})
        image = np.load(zoo("resnest", "input_0.npy"))
        expected = np.load(zoo("resnest", "expected_0.npy"))
        for _ in range(2):
            self.http.load_model("reloaded")
            got = infer(self.http, httpclient, "reloaded", {"image": image})["logits"]
            np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)
            self.http.unload_model("reloaded", unload_dependents=False)
            self.assertFalse(self.http.is_model_ready("reloaded"))
            with self.assertRaises(InferenceServerException):
                infer(self.http, httpclient, "reloaded", {"image": image})

    def test_changed_onnx_file_is_built_again(self):
        version = os.path.join(self.repository, "swapped", "1")
        write_model(self.repository, "swapped", INSTANCES, {"model.onnx": zoo("resnest", "model.onnx")})
        key_path = os.path.join(version, "model.onnx.%s.plan.key" % BACKEND)
        image = np.load(zoo("resnest", "input_0.npy"))
        keys = []
        for model in ("resnest", "resnest", "shufflenet_v2"):
            shutil.copyfile(zoo(model, "model.onnx"), os.path.join(version, "model.onnx"))
            self.http.load_model("swapped")
            got = infer(self.http, httpclient, "swapped", {"image": image})["logits"]
            np.testing.assert_allclose(got, np.load(zoo(model, "expected_0.npy")), rtol=1e-4, atol=1e-4, err_msg=model)
            self.http.unload_model("swapped")
            with open(key_path) as f:
                keys.append(f.read())
        self.assertEqual(keys[0], keys[1])
        self.assertNotEqual(keys[1], keys[2])
        log = self.server.log()
        self.assertEqual(log.count("building " + os.path.join(version, "model.onnx")), 2, log)
        self.assertIn("unchanged; using the plan built before", log)


class BackendConfigTest(unittest.TestCase):
    """The backend's own settings (--backend-config=kiln,...) and Triton's default-max-batch-size."""

    @classmethod
    def setUpClass(cls):
        cls.repository = tempfile.mkdtemp(prefix="kiln-triton-backend-config-")
        write_model(cls.repository, "seed", INSTANCES, {"model.onnx": DEFAULT_MODEL})
        write_model(cls.repository, "resnest", INSTANCES, {"model.onnx": zoo("resnest", "model.onnx")})
        cls.server = TritonServer(cls.repository, BACKENDS, ["--backend-config=kiln,plugins=" + SEED_PLUGINS,
                                                              "--backend-config=default-max-batch-size=6"])

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        shutil.rmtree(cls.repository, ignore_errors=True)

    def test_backend_plugins_serve_every_model(self):
        http = self.server.http()
        image = np.full((1, 3, 16, 16), 0.5, np.float32)
        got = infer(http, httpclient, "seed", {"input": image})["probabilities"]
        alone = kiln_outputs(DEFAULT_MODEL, {"input": image}, plugins=[SEED_PLUGINS], shapes=False)
        np.testing.assert_allclose(got, alone["probabilities"], rtol=0, atol=SAME)

    def test_default_max_batch_size_sizes_the_built_profile(self):
        http = self.server.http()
        self.assertEqual(http.get_model_config("resnest")["max_batch_size"], 6)
        images = np.random.default_rng(5).standard_normal((6, 3, 64, 64)).astype(np.float32)
        alone = kiln_outputs(zoo("resnest", "model.onnx"), {"image": images})["logits"]
        np.testing.assert_allclose(infer(http, httpclient, "resnest", {"image": images})["logits"], alone, rtol=0,
                                   atol=SAME)


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], *sys.argv[1:], "-v"])
