"""Exec and port-forward of the Python `kubernetes` client (WebSocket, v4.channel.k8s.io) against the simulator.

Run by simulator/clients/python-streams.test.ts as `python3 streams.py KUBECONFIG NAMESPACE`. The checks follow
the scenarios of the client's own end-to-end tests test_pod_apis, test_exit_code and test_portforward_http
(the namespace's default service account, a busybox pod whose shell runs loops and command substitution, gzip's
binary output, uptime, an interactive shell over stdin as text and as bytes, the pods of all namespaces, the
exit codes of false / sh -c 'sleep 1; exit 3' / true / ls, urllib fetching nginx's page through a forwarded
port, and the pods deleted), written here in our own words. One JSON line per check, as matrix.py prints them.
"""

import base64
import gzip
import inspect
import json
import socket
import sys
import time
import urllib.request

from kubernetes import client, config
from kubernetes.stream import portforward, stream
from kubernetes.client.rest import ApiException
from kubernetes.stream.ws_client import ERROR_CHANNEL, WSClient

from checklib import run_checks

KUBECONFIG, NS = sys.argv[1], sys.argv[2]
config.load_kube_config(config_file=KUBECONFIG)
core = client.CoreV1Api()

CHECKS = []


def check(fn):
    CHECKS.append(fn)
    return fn


def running_pod(name, container):
    core.create_namespaced_pod(NS, {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": {"containers": [container]}})
    deadline = time.time() + 60
    while time.time() < deadline:
        pod = core.read_namespaced_pod(name, NS)
        if pod.status.phase == "Running":
            return pod
        time.sleep(0.2)
    raise AssertionError("pod %s never ran" % name)


def settle(resp, done, seconds=5):
    deadline = time.time() + seconds
    while not done() and resp.is_open() and time.time() < deadline:
        resp.update(timeout=0.05)


# Newer clients read exec output as bytes with binary=True; python3-kubernetes 22.6 decodes every frame as UTF-8.
BINARY = "binary" in inspect.signature(WSClient.__init__).parameters


def default_service_account():
    """The namespace's default ServiceAccount, made by the serviceaccount controller, as the e2e tests wait for it."""
    deadline = time.time() + 30
    while True:
        try:
            return core.read_namespaced_service_account("default", NS)
        except ApiException as e:
            if e.status != 404 or time.time() > deadline:
                raise
            time.sleep(0.2)


def interactive_shell(pod, as_bytes):
    """An interactive shell fed through stdin, stdout and stderr apart, then its Success status on the error channel."""
    extra = {"binary": True} if BINARY and as_bytes else {}
    resp = stream(core.connect_post_namespaced_pod_exec, pod, NS, command=["/bin/sh"], stderr=True, stdin=True, stdout=True, tty=False,
                  _preload_content=False, **extra)
    sent = (lambda t: t.encode()) if as_bytes else (lambda t: t)
    read = (lambda t: t.encode()) if extra else (lambda t: t)
    resp.write_stdin(sent("echo line one\n"))
    assert resp.readline_stdout(timeout=5) == read("line one")
    assert not resp.peek_stderr()
    resp.write_stdin(sent("echo line two >&2\n"))
    assert resp.readline_stderr(timeout=5) == read("line two")
    assert not resp.peek_stdout()
    resp.write_stdin(sent("exit\n"))
    # The upstream test calls update(timeout=5) once for the status and once for the close; python3-kubernetes
    # 22.6 polls that timeout in milliseconds, so on a loaded machine 5 ms can pass before the answer is there.
    # The same reads, each given its 5 seconds:
    settle(resp, lambda: ERROR_CHANNEL in resp._channels)
    status = json.loads(resp.read_channel(ERROR_CHANNEL))
    assert status["status"] == "Success", status
    settle(resp, lambda: not resp.is_open())
    assert not resp.is_open()


@check
def exec_pod_apis():
    assert default_service_account().metadata.name == "default"
    created = running_pod("busybox-apis", {"name": "sleep", "image": "busybox", "args": ["/bin/sh", "-c", "while true;do date;sleep 5; done"]})
    assert created.status.phase
    out = stream(core.connect_get_namespaced_pod_exec, "busybox-apis", NS, command=["/bin/sh", "-c", "for i in $(seq 1 3); do date; done"],
                 stderr=False, stdin=False, stdout=True, tty=False)
    assert isinstance(out, str) and len(out.splitlines()) == 3, repr(out)
    # gzip's binary output: as bytes where the client can read them, else through base64 (22.6 decodes as text).
    if BINARY:
        out = stream(core.connect_get_namespaced_pod_exec, "busybox-apis", NS, command=["/bin/sh", "-c", 'echo -n "This is a test string" | gzip'],
                     stderr=False, stdin=False, stdout=True, tty=False, binary=True)
        assert isinstance(out, bytes), type(out)
        gzipped = out
    else:
        out = stream(core.connect_get_namespaced_pod_exec, "busybox-apis", NS, command=["/bin/sh", "-c", 'echo -n "This is a test string" | gzip | base64'],
                     stderr=False, stdin=False, stdout=True, tty=False)
        gzipped = base64.b64decode(out)
    assert gzip.decompress(gzipped).decode("utf-8") == "This is a test string", repr(gzipped)
    out = stream(core.connect_post_namespaced_pod_exec, "busybox-apis", NS, command=["uptime"], stderr=False, stdin=False, stdout=True, tty=False)
    assert len(out.splitlines()) == 1, repr(out)
    interactive_shell("busybox-apis", False)
    interactive_shell("busybox-apis", True)
    assert len(core.list_pod_for_all_namespaces().items) > 0
    core.delete_namespaced_pod("busybox-apis", NS, body={})
    return "default service account, 3 dates, gzip%s, uptime, interactive shell as text and bytes, delete" % (" (bytes)" if BINARY else " | base64")


@check
def exec_exit_codes():
    running_pod("busybox-codes", {"name": "sleep", "image": "busybox", "args": ["/bin/sh", "-c", "while true;do date;sleep 5; done"]})
    got = []
    for command, expected in ((["false"], 1), (["/bin/sh", "-c", "sleep 1; exit 3"], 3), (["true"], 0), (["/bin/sh", "-c", "ls /"], 0)):
        resp = stream(core.connect_get_namespaced_pod_exec, "busybox-codes", NS, command=command, stderr=True, stdin=False, stdout=True, tty=False,
                      _preload_content=False)
        assert resp.returncode is None
        resp.run_forever(timeout=10)
        assert resp.returncode == expected, (command, resp.returncode)
        assert resp.returncode == expected, "returncode read twice"
        got.append(resp.returncode)
    return "exit codes %s" % got


@check
def exec_stdout_and_status():
    out = stream(core.connect_get_namespaced_pod_exec, "busybox-codes", NS, command=["sh", "-c", "echo $HOSTNAME"], stderr=True, stdin=False, stdout=True,
                 tty=False)
    assert out == "busybox-codes\n", repr(out)
    return out.strip()


@check
def portforward_http():
    running_pod("nginx-forward", {"name": "nginx", "image": "nginx"})
    original = socket.create_connection

    def through_forward(address, *args, **kwargs):
        host = address[0].decode() if isinstance(address[0], bytes) else address[0]
        parts = host.split(".")
        if len(parts) != 3 or parts[2] != "kubernetes":
            return original(address, *args, **kwargs)
        pf = portforward(core.connect_get_namespaced_pod_portforward, parts[0], parts[1], ports=str(address[1]))
        return pf.socket(address[1])

    socket.create_connection = through_forward
    try:
        response = urllib.request.urlopen("http://nginx-forward.%s.kubernetes/" % NS)
        html = response.read().decode("utf-8")
    finally:
        socket.create_connection = original
    assert response.code == 200, response.code
    assert "<h1>Welcome to nginx!</h1>" in html, html
    core.delete_namespaced_pod("nginx-forward", NS, body={})
    return "nginx page through port 80"


@check
def portforward_declared_port_echo():
    running_pod("echo-forward", {"name": "web", "image": "example/app:1", "ports": [{"containerPort": 8080}]})
    pf = portforward(core.connect_get_namespaced_pod_portforward, "echo-forward", NS, ports="8080")
    s = pf.socket(8080)
    s.setblocking(True)
    s.sendall(b"GET /echo HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    data = b""
    while True:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    s.close()
    head, _, body = data.partition(b"\r\n\r\n")
    assert head.startswith(b"HTTP/1.1 200"), head
    doc = json.loads(body)
    assert doc["pod"] == "%s/echo-forward" % NS and doc["port"] == 8080 and doc["path"] == "/echo", doc
    assert pf.error(8080) is None
    return "echo of %s" % doc["path"]


run_checks(CHECKS)
