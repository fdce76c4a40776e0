"""Exec and port-forward of the Python `kubernetes` client (WebSocket, v4.channel.k8s.io) against the simulator.

Run by simulator/clients/python-streams.test.ts as `python3 streams.py KUBECONFIG NAMESPACE`. The checks follow
the scenarios of the client's own end-to-end tests test_pod_apis, test_exit_code and test_portforward_http
(a busybox pod whose shell runs loops and command substitution, an interactive shell over stdin, the exit codes
of false / sh -c 'sleep 1; exit 3' / true / ls, and urllib fetching nginx's page through a forwarded port),
written here in our own words. One JSON line per check, as matrix.py prints them.
"""

import json
import socket
import sys
import time
import urllib.request

from kubernetes import client, config
from kubernetes.stream import portforward, stream
from kubernetes.stream.ws_client import ERROR_CHANNEL

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


@check
def exec_pod_apis():
    running_pod("busybox-apis", {"name": "sleep", "image": "busybox", "args": ["/bin/sh", "-c", "while true;do date;sleep 5; done"]})
    out = stream(core.connect_get_namespaced_pod_exec, "busybox-apis", NS, command=["/bin/sh", "-c", "for i in $(seq 1 3); do date; done"],
                 stderr=False, stdin=False, stdout=True, tty=False)
    assert len(out.splitlines()) == 3, repr(out)
    out = stream(core.connect_post_namespaced_pod_exec, "busybox-apis", NS, command="uptime", stderr=False, stdin=False, stdout=True, tty=False)
    assert len(out.splitlines()) == 1, repr(out)
    # An interactive shell fed through stdin, stdout and stderr apart, then its Success status on the error channel.
    resp = stream(core.connect_post_namespaced_pod_exec, "busybox-apis", NS, command="/bin/sh", stderr=True, stdin=True, stdout=True, tty=False,
                  _preload_content=False)
    resp.write_stdin("echo line one\n")
    assert resp.readline_stdout(timeout=5) == "line one"
    assert not resp.peek_stderr()
    resp.write_stdin("echo line two >&2\n")
    assert resp.readline_stderr(timeout=5) == "line two"
    assert not resp.peek_stdout()
    resp.write_stdin("exit\n")
    # The upstream test calls update(timeout=5) once for the status and once for the close; python3-kubernetes
    # 22.6 polls that timeout in milliseconds, so on a loaded machine 5 ms can pass before the answer is there.
    # The same reads, each given its 5 seconds:
    settle(resp, lambda: ERROR_CHANNEL in resp._channels)
    status = json.loads(resp.read_channel(ERROR_CHANNEL))
    assert status["status"] == "Success", status
    settle(resp, lambda: not resp.is_open())
    assert not resp.is_open()
    return "3 dates, uptime, interactive shell"


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
    assert response.status == 200, response.status
    assert "<h1>Welcome to nginx!</h1>" in html, html
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
