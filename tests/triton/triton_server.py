"""A real tritonserver process with Kiln's backend, on free ports, for the tests in triton_backend_test.py."""

import os
import socket
import subprocess
import tempfile
import time
import urllib.request

import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient


def server_paths():
    """The tritonserver binary and the folder of libraries it needs, inside the installed nvidia-pytriton."""
    import pytriton

    site = os.path.dirname(os.path.dirname(os.path.abspath(pytriton.__file__)))
    binary = os.path.join(site, "pytriton", "tritonserver", "bin", "tritonserver")
    libraries = os.path.join(site, "nvidia_pytriton.libs")
    return binary, libraries


def free_ports(count):
    """Ports nothing listens on now: the system hands out each while the others are still held."""
    sockets = []
    try:
        for _ in range(count):
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind(("127.0.0.1", 0))
            sockets.append(s)
        return [s.getsockname()[1] for s in sockets]
    finally:
        for s in sockets:
            s.close()


class TritonServer:
    """Starts tritonserver on repository with Kiln's backend folder; stop() ends it. A start that fails (a port taken
    between choosing and binding it) is retried on other ports."""

    def __init__(self, repository, backends, extra_args=(), attempts=3):
        binary, libraries = server_paths()
        self._log = tempfile.NamedTemporaryFile(prefix="tritonserver-", suffix=".log", delete=False)
        self.process = None
        for attempt in range(attempts):
            self.http_port, self.grpc_port, self.metrics_port = free_ports(3)
            command = [binary, "--model-repository=" + repository, "--backend-directory=" + backends,
                       "--http-port=%d" % self.http_port, "--grpc-port=%d" % self.grpc_port,
                       "--metrics-port=%d" % self.metrics_port, "--allow-gpu-metrics=false", *extra_args]
            env = dict(os.environ, LD_LIBRARY_PATH=libraries + ":" + os.environ.get("LD_LIBRARY_PATH", ""))
            self.process = subprocess.Popen(command, stdout=self._log, stderr=subprocess.STDOUT, env=env)
            if self._wait_until_ready():
                return
            self.stop()
        raise RuntimeError("tritonserver did not start; its log:\n" + self.log())

    def _wait_until_ready(self, timeout=120.0):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                return False
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/v2/health/ready" % self.http_port, timeout=1) as r:
                    if r.status == 200:
                        return True
            except OSError:
                pass
            time.sleep(0.1)
        return False

    def http(self, **kwargs):
        return httpclient.InferenceServerClient("127.0.0.1:%d" % self.http_port, **kwargs)

    def grpc(self):
        return grpcclient.InferenceServerClient("127.0.0.1:%d" % self.grpc_port)

    def metrics(self):
        with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % self.metrics_port, timeout=10) as r:
            return r.read().decode()

    def log(self):
        with open(self._log.name, encoding="utf-8", errors="replace") as f:
            return f.read()

    def running(self):
        return self.process is not None and self.process.poll() is None

    def stop(self):
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
