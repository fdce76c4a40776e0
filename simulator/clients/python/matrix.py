"""The Python `kubernetes` client (Debian's python3-kubernetes) against the simulator.

Run by simulator/clients/python.test.ts as `python3 matrix.py KUBECONFIG NAMESPACE`, against a simulator whose watch
history is small (so a 410 can be forced). Loads the client config the simulator writes, runs every check, and
prints one JSON line per check: {"check": name, "ok": bool, "detail": text}. A check that raises is reported
with its exception (ApiException bodies included), so the TypeScript test names what failed.
"""

import json
import sys
import traceback

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

KUBECONFIG, NS = sys.argv[1], sys.argv[2]
config.load_kube_config(config_file=KUBECONFIG)
core = client.CoreV1Api()
apps = client.AppsV1Api()

CHECKS = []


def check(fn):
    CHECKS.append(fn)
    return fn


def cm(name, data=None):
    return client.V1ConfigMap(metadata=client.V1ObjectMeta(name=name), data=data or {})


@check
def version_endpoint():
    # VersionApi asks for /version/ (with the slash).
    v = client.VersionApi().get_code()
    assert v.major == "1" and v.minor == "9", v
    return v.git_version


@check
def list_with_limit_and_continue():
    for i in range(7):
        core.create_namespaced_config_map(NS, cm("page-%d" % i, {"i": str(i)}))
    names, token, pages = [], None, 0
    while True:
        page = core.list_namespaced_config_map(NS, limit=3, _continue=token, label_selector=None)
        pages += 1
        names += [i.metadata.name for i in page.items]
        token = page.metadata._continue
        if not token:
            break
    expected = ["page-%d" % i for i in range(7)]
    assert [n for n in names if n.startswith("page-")] == expected, names
    assert pages >= 3, pages
    return "%d pages" % pages


@check
def watch_stream_from_resource_version():
    rv = core.list_namespaced_config_map(NS).metadata.resource_version
    core.create_namespaced_config_map(NS, cm("watched", {"a": "1"}))
    core.patch_namespaced_config_map("watched", NS, {"data": {"a": "2"}})
    core.delete_namespaced_config_map("watched", NS)
    w = watch.Watch()
    seen = []
    for ev in w.stream(core.list_namespaced_config_map, NS, resource_version=rv, timeout_seconds=10):
        assert isinstance(ev["object"], client.V1ConfigMap), type(ev["object"])
        seen.append("%s %s" % (ev["type"], ev["object"].metadata.name))
        if len(seen) == 3:
            w.stop()
    assert seen == ["ADDED watched", "MODIFIED watched", "DELETED watched"], seen
    return ", ".join(seen)


@check
def watch_stream_forced_410():
    rv = core.list_namespaced_config_map(NS).metadata.resource_version
    # More writes than the simulator's history window (20 changes): rv falls out of it.
    for i in range(30):
        core.create_namespaced_config_map(NS, cm("churn-%d" % i))
    w = watch.Watch()
    try:
        for ev in w.stream(core.list_namespaced_config_map, NS, resource_version=rv, timeout_seconds=10):
            return "unexpected event %s" % ev["type"]
    except ApiException as e:
        assert e.status == 410, (e.status, e.reason)
        # What a client does next: list again and watch from the fresh resourceVersion.
        fresh = core.list_namespaced_config_map(NS).metadata.resource_version
        core.create_namespaced_config_map(NS, cm("after-410"))
        for ev in w.stream(core.list_namespaced_config_map, NS, resource_version=fresh, timeout_seconds=10):
            assert ev["object"].metadata.name == "after-410", ev["object"].metadata.name
            w.stop()
        return "410: %s" % e.reason
    raise AssertionError("the watch ended without a 410")


@check
def replace_config_map():
    core.create_namespaced_config_map(NS, cm("replaced", {"v": "1"}))
    obj = core.read_namespaced_config_map("replaced", NS)
    obj.data = {"v": "2"}
    # The client serialises creationTimestamp as "...+00:00".
    out = core.replace_namespaced_config_map("replaced", NS, obj)
    assert out.data == {"v": "2"}, out.data
    assert out.metadata.creation_timestamp == obj.metadata.creation_timestamp
    out.data = {"v": "3"}
    again = core.replace_namespaced_config_map("replaced", NS, out)
    assert again.data == {"v": "3"}
    return again.metadata.resource_version


@check
def replace_deployment():
    body = client.V1Deployment(
        metadata=client.V1ObjectMeta(name="web"),
        spec=client.V1DeploymentSpec(
            replicas=1,
            selector=client.V1LabelSelector(match_labels={"app": "web"}),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels={"app": "web"}),
                spec=client.V1PodSpec(containers=[client.V1Container(name="web", image="nginx:1.13")]),
            ),
        ),
    )
    apps.create_namespaced_deployment(NS, body)
    d = apps.read_namespaced_deployment("web", NS)
    d.spec.replicas = 2
    out = apps.replace_namespaced_deployment("web", NS, d)
    assert out.spec.replicas == 2 and out.metadata.generation == 2, (out.spec.replicas, out.metadata.generation)
    return "generation %d" % out.metadata.generation


@check
def patch_strategic_and_json():
    core.create_namespaced_config_map(NS, cm("patched", {"a": "1"}))
    out = core.patch_namespaced_config_map("patched", NS, {"data": {"b": "2"}})
    assert out.data == {"a": "1", "b": "2"}, out.data
    out = core.patch_namespaced_config_map("patched", NS, [{"op": "remove", "path": "/data/a"}])
    assert out.data == {"b": "2"}, out.data
    return json.dumps(out.data)


@check
def delete_with_orphan_dependents_false():
    core.create_namespaced_config_map(NS, cm("deleted"))
    st = core.delete_namespaced_config_map("deleted", NS, orphan_dependents=False)
    try:
        core.read_namespaced_config_map("deleted", NS)
        raise AssertionError("still there")
    except ApiException as e:
        assert e.status == 404, e.status
    d = apps.delete_namespaced_deployment("web", NS, body=client.V1DeleteOptions(propagation_policy="Foreground"))
    return "%s / %s" % (getattr(st, "status", None), type(d).__name__)


@check
def every_response_deserialises_into_models():
    """Reads of every kind and the discovery documents, through the typed models (which raise on a bad shape)."""
    read = []
    read.append(core.read_namespace(NS))
    read.append(core.list_namespace())
    read.append(core.list_node())
    read.append(core.list_pod_for_all_namespaces())
    read.append(core.list_event_for_all_namespaces())
    read.append(core.list_service_for_all_namespaces())
    read.append(core.list_endpoints_for_all_namespaces())
    read.append(core.list_service_account_for_all_namespaces())
    read.append(core.list_secret_for_all_namespaces())
    read.append(core.list_replication_controller_for_all_namespaces())
    read.append(core.read_namespaced_service("kubernetes", "default"))
    read.append(core.read_namespaced_endpoints("kubernetes", "default"))
    read.append(apps.list_deployment_for_all_namespaces())
    read.append(apps.list_replica_set_for_all_namespaces())
    read.append(apps.list_daemon_set_for_all_namespaces())
    read.append(client.BatchV1Api().list_job_for_all_namespaces())
    read.append(client.BatchV1beta1Api().list_cron_job_for_all_namespaces())
    read.append(core.get_api_resources())
    read.append(apps.get_api_resources())
    read.append(client.CoreApi().get_api_versions())
    read.append(client.ApisApi().get_api_versions())
    review = client.AuthorizationV1Api().create_self_subject_access_review(
        client.V1SelfSubjectAccessReview(spec=client.V1SelfSubjectAccessReviewSpec(
            resource_attributes=client.V1ResourceAttributes(verb="list", resource="pods", namespace=NS))))
    assert review.status.allowed is True, review.status
    read.append(review)
    # The created deployment's pods are written by the daemon and the node: a real, full shape.
    pods = core.list_namespaced_pod(NS).items
    return "%d responses, %d pods" % (len(read), len(pods))


def main():
    for fn in CHECKS:
        result = {"check": fn.__name__}
        try:
            result["detail"] = str(fn())
            result["ok"] = True
        except ApiException as e:
            result["ok"] = False
            result["detail"] = "ApiException %s %s: %s" % (e.status, e.reason, (e.body or "")[:600])
        except Exception as e:  # noqa: BLE001 - every failure is reported, the next check still runs
            result["ok"] = False
            result["detail"] = "%s: %s\n%s" % (type(e).__name__, e, traceback.format_exc()[-1200:])
        print(json.dumps(result), flush=True)


main()
