"""Kiln's Triton backend on outputs of data-dependent shape (NonZero, NonMaxSuppression) and with CUDA graphs.

    triton_graphs_and_outputs_test.py DataDependentTest|CudaGraphTest

Started by run_triton_tests.py like triton_backend_test.py, whose helpers and variables it shares: every response is
compared with the kiln command's outputs on the same inputs and, where there is one, an expectation made without
Kiln (numpy, ONNX Runtime's outputs in tests/models).
"""

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import unittest

import numpy as np
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient

from triton_backend_test import BACKEND, INSTANCES, KIND, KILN, SAME, SOURCE, infer, kiln_outputs, write_model, zoo
from triton_server import TritonServer

SELECTED_SCORES = os.path.join(SOURCE, "tests", "triton", "models", "selected_scores.onnx")


def shape_parameters(name, smallest, largest, opt=None):
    return "".join('parameters { key: "%s_shapes" value: { string_value: "%s:%s" } }\n' % (which, name, value)
                   for which, value in (("min", smallest), ("opt", opt or largest), ("max", largest)))


def selected_expectation(scores):
    """What selected_scores.onnx gives (tests/triton/make_models.py), by numpy."""
    positions = np.nonzero(scores > 0.5)[0]
    return {"indices": positions.reshape(1, -1).astype(np.int64), "selected": scores[positions]}


class DataDependentTest(unittest.TestCase):
    """Outputs whose shape the run decides: each response carries the shape its own run produced."""

    @classmethod
    def setUpClass(cls):
        cls.repository = tempfile.mkdtemp(prefix="kiln-triton-data-dependent-")
        r = cls.repository
        write_model(r, "selected", INSTANCES + shape_parameters("scores", "1", "16", "8"),
                    {"model.onnx": SELECTED_SCORES})
        write_model(r, "selected_two", INSTANCES.replace("}", "count: 2 }") + shape_parameters("scores", "1", "16"),
                    {"model.onnx": SELECTED_SCORES})
        # torchvision's SSDlite ends in NonMaxSuppression: how many boxes come out depends on the image.
        write_model(r, "ssdlite", INSTANCES + shape_parameters("image", "1x3x120x150", "1x3x120x150"),
                    {"model.onnx": zoo("ssdlite_pipeline", "model.onnx")})
        cls.server = TritonServer(r, os.environ["KILN_TRITON_BACKENDS"])

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        shutil.rmtree(cls.repository, ignore_errors=True)

    def test_configuration_shows_the_unknown_dimensions(self):
        config = self.server.http().get_model_config("selected")
        self.assertEqual(config["max_batch_size"], 0)  # a request's rows cannot be told apart in a shared run
        self.assertEqual([(o["name"], o["data_type"], o["dims"]) for o in config["output"]],
                         [("indices", "TYPE_INT64", [1, -1]), ("selected", "TYPE_FP32", [-1])])

    def test_each_response_has_the_shape_its_run_made(self):
        rng = np.random.default_rng(6)
        cases = [rng.random(5).astype(np.float32), np.array([0.9, 0.1, 0.7, 0.5, 0.6], np.float32),
                 np.zeros(7, np.float32), np.ones(16, np.float32), rng.random(1).astype(np.float32) + 0.5]
        http, grpc = self.server.http(), self.server.grpc()
        for scores in cases:
            expected = selected_expectation(scores)
            alone = kiln_outputs(SELECTED_SCORES, {"scores": scores})
            for module, client in ((httpclient, http), (grpcclient, grpc)):
                got = infer(client, module, "selected", {"scores": scores})
                for name in ("indices", "selected"):
                    self.assertEqual(got[name].shape, expected[name].shape, name)
                    self.assertEqual(got[name].dtype, expected[name].dtype, name)
                    np.testing.assert_array_equal(got[name], expected[name], err_msg=name)
                    np.testing.assert_array_equal(got[name], alone[name].reshape(expected[name].shape), err_msg=name)

    def test_concurrent_clients_each_get_their_own_count(self):
        rng = np.random.default_rng(7)
        inputs = [rng.random(1 + k % 16).astype(np.float32) for k in range(48)]
        failures = []

        def client(worker):
            connection = self.server.http()
            for k in range(worker, len(inputs), 8):
                try:
                    got = infer(connection, httpclient, "selected_two", {"scores": inputs[k]})
                    expected = selected_expectation(inputs[k])
                    if any(got[n].shape != expected[n].shape or not np.array_equal(got[n], expected[n])
                           for n in expected):
                        failures.append("request %d: got %s" % (k, got))
                except Exception as e:  # a closed connection too, if the server went down
                    failures.append("request %d: %r" % (k, e))

        workers = [threading.Thread(target=client, args=(w,)) for w in range(8)]
        for w in workers:
            w.start()
        for w in workers:
            w.join()
        self.assertEqual(failures, [])

    def test_nms_pipeline_matches_kiln_and_onnxruntime(self):
        image = np.load(zoo("ssdlite_pipeline", "input_0.npy"))
        names = ["boxes", "scores", "labels"]
        alone = kiln_outputs(zoo("ssdlite_pipeline", "model.onnx"), {"image": image})
        got = infer(self.server.grpc(), grpcclient, "ssdlite", {"image": image}, outputs=names)
        expected = {name: np.load(zoo("ssdlite_pipeline", "expected_%d.npy" % i)) for i, name in enumerate(names)}
        for name in names:
            self.assertEqual(got[name].shape, expected[name].shape, name)
            np.testing.assert_allclose(got[name], alone[name].reshape(expected[name].shape), rtol=0, atol=SAME,
                                       err_msg=name)
        np.testing.assert_allclose(got["scores"], expected["scores"], rtol=1e-3, atol=1e-3, err_msg="scores")
        # Detections of scores closer than the tolerance come in no order the model fixes (rounding that differs
        # between two FP32 engines may swap them): each of ONNX Runtime's must match one of Kiln's of the same label
        # and a score within the tolerance, with the same box.
        taken = np.zeros(len(got["scores"]), dtype=bool)
        for e in range(len(expected["scores"])):
            candidates = np.where(~taken & (got["labels"] == expected["labels"][e])
                                  & (np.abs(got["scores"] - expected["scores"][e]) <= 1e-3)
                                  & np.all(np.isclose(got["boxes"], expected["boxes"][e], rtol=1e-3, atol=1e-3),
                                           axis=1))[0]
            self.assertTrue(len(candidates) > 0, "ONNX Runtime's detection %d has no match among Kiln's" % e)
            taken[candidates[0]] = True


class CudaGraphTest(unittest.TestCase):
    """optimization { cuda { graphs: true } }: on KIND_GPU, responses replayed from graphs equal those of direct
    runs; on KIND_CPU the setting is logged as not applying and the model serves as without it."""

    GRAPHS = "optimization { cuda { graphs: true } }\n"

    @classmethod
    def setUpClass(cls):
        cls.repository = tempfile.mkdtemp(prefix="kiln-triton-graphs-")
        r = cls.repository
        # One plan for every model, so that direct runs and graphs run the same kernels.
        plan = os.path.join(r, "resnest.plan")
        subprocess.run([KILN, "--onnx=" + zoo("resnest", "model.onnx"), "--backend=" + BACKEND, "--skipInference",
                        "--minShapes=image:1x3x64x64", "--optShapes=image:4x3x64x64", "--maxShapes=image:4x3x64x64",
                        "--saveEngine=" + plan], check=True, capture_output=True)
        resnest = {"model.plan": plan}
        batching = "max_batch_size: 4\n" + INSTANCES
        write_model(r, "direct", batching, resnest)
        write_model(r, "graphs", batching + cls.GRAPHS, resnest)
        write_model(r, "graphs_limited", batching + cls.GRAPHS + 'parameters { key: "max_cuda_graphs" value: '
                    '{ string_value: "2" } }\n', resnest)
        write_model(r, "graphs_data_dependent", INSTANCES + cls.GRAPHS + shape_parameters("scores", "1", "16"),
                    {"model.onnx": SELECTED_SCORES})
        cls.server = TritonServer(r, os.environ["KILN_TRITON_BACKENDS"], ["--log-verbose=1"])

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()
        shutil.rmtree(cls.repository, ignore_errors=True)

    def test_kind_cpu_says_graphs_do_not_apply(self):
        if KIND == "KIND_GPU":
            self.skipTest("KIND_CPU alone: the instances here are KIND_GPU")
        self.assertIn("CUDA graphs (optimization { cuda { graphs: true } }) are for KIND_GPU instances",
                      self.server.log())
        image = np.load(zoo("resnest", "input_0.npy"))
        got = infer(self.server.http(), httpclient, "graphs", {"image": image})["logits"]
        np.testing.assert_allclose(got, np.load(zoo("resnest", "expected_0.npy")), rtol=1e-4, atol=1e-4)

    def test_replayed_graphs_answer_as_direct_runs(self):
        if KIND != "KIND_GPU":
            self.skipTest("CUDA graphs are captured on KIND_GPU instances only; these run on %s (set "
                          "KILN_TRITON_INSTANCE_KIND=KIND_GPU on a machine with a GPU)" % KIND)
        images = np.random.default_rng(8).standard_normal((4, 3, 64, 64)).astype(np.float32)
        alone = kiln_outputs(zoo("resnest", "model.onnx"), {"image": images})["logits"]
        http = self.server.http()
        # Batch sizes repeat and alternate: each first run captures, each later one replays its own graph, and a
        # graph replayed after runs of other shapes must still see its own shapes.
        for model in ("graphs", "graphs_limited"):
            for rows in (1, 3, 1, 2, 3, 4, 1, 4, 2):
                direct = infer(http, httpclient, "direct", {"image": images[:rows]})["logits"]
                graphed = infer(http, httpclient, model, {"image": images[:rows]})["logits"]
                np.testing.assert_allclose(graphed, direct, rtol=0, atol=1e-6, err_msg="%s, %d rows" % (model, rows))
                np.testing.assert_allclose(graphed, alone[:rows], rtol=0, atol=SAME, err_msg=model)
        log = self.server.log()
        self.assertIn("captures a CUDA graph for each set of input shapes", log)
        self.assertIn("captured a CUDA graph for image:3x3x64x64", log)
        self.assertNotIn("cannot capture", log)
        self.assertIn("holds 2 CUDA graphs (max_cuda_graphs)", log)

    def test_data_dependent_outputs_run_without_graphs(self):
        scores = np.array([0.9, 0.2, 0.8], np.float32)
        got = infer(self.server.http(), httpclient, "graphs_data_dependent", {"scores": scores})
        np.testing.assert_array_equal(got["selected"], selected_expectation(scores)["selected"])
        if KIND == "KIND_GPU":
            # Triton's log escapes the quotes of the message.
            self.assertIn('runs without CUDA graphs: the shape of output "indices" depends on the data',
                          self.server.log().replace('\\"', '"'))


if __name__ == "__main__":
    unittest.main(argv=[sys.argv[0], *sys.argv[1:], "-v"])
