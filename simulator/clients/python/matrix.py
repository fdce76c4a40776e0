"""The Python `kubernetes` client (Debian's python3-kubernetes) against the simulator.

Run by simulator/clients/python.test.ts as `python3 matrix.py KUBECONFIG NAMESPACE`, against a simulator whose watch
history is small (so a 410 can be forced). Loads the client config the simulator writes, runs every check, and
prints one JSON line per check: {"check": name, "ok": bool, "detail": text}. A check that raises is reported
with its exception (ApiException bodies included), so the TypeScript test names what failed.
"""

import json
import sys
import time

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

from checklib import run_checks

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
    # Read, change, replace; the deployment controller writes the status meanwhile, so a 409 means "read again"
    # (client-go's RetryOnConflict), as for any client beside a controller.
    for attempt in range(5):
        d = apps.read_namespaced_deployment("web", NS)
        d.spec.replicas = 2
        try:
            out = apps.replace_namespaced_deployment("web", NS, d)
            break
        except ApiException as e:
            if e.status != 409 or attempt == 4:
                raise
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


def poll(what, fn, seconds=60):
    """fn() until it returns something true, with a deadline (the machine may be loaded)."""
    deadline = time.time() + seconds
    while True:
        out = fn()
        if out:
            return out
        if time.time() > deadline:
            raise AssertionError("timed out waiting for " + what)
        time.sleep(0.2)


@check
def field_selectors():
    """The 1.9 server's per-kind fields through field_selector=, and a 400 naming an unsupported one."""
    core.create_namespaced_pod(NS, client.V1Pod(
        metadata=client.V1ObjectMeta(name="fs-pod"),
        spec=client.V1PodSpec(restart_policy="Never", containers=[client.V1Container(name="c", image="busybox")])))
    pod = poll("fs-pod running", lambda: (lambda p: p if p.status.phase == "Running" else None)(core.read_namespaced_pod("fs-pod", NS)))
    node = pod.spec.node_name
    sel = "status.phase=Running,spec.nodeName=%s,spec.restartPolicy=Never,metadata.name=fs-pod" % node
    assert [p.metadata.name for p in core.list_namespaced_pod(NS, field_selector=sel).items] == ["fs-pod"], sel
    assert core.list_namespaced_pod(NS, field_selector="metadata.name=fs-pod,status.phase!=Running").items == []
    assert node in [n.metadata.name for n in core.list_node(field_selector="spec.unschedulable=false").items]
    assert core.list_node(field_selector="spec.unschedulable=true").items == []
    events = poll("the Scheduled event of fs-pod", lambda: core.list_namespaced_event(
        NS, field_selector="involvedObject.kind=Pod,involvedObject.name=fs-pod,reason=Scheduled").items)
    assert all(e.involved_object.name == "fs-pod" and e.reason == "Scheduled" for e in events)
    try:
        core.list_namespaced_config_map(NS, field_selector="data.a=1")
        raise AssertionError("an unsupported field was accepted")
    except ApiException as e:
        assert e.status == 400, e.status
        assert "field label not supported: data.a" in e.body, e.body
    core.delete_namespaced_pod("fs-pod", NS, grace_period_seconds=0)
    return "pod on %s, %d Scheduled event(s)" % (node, len(events))


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


@check
def kinds_added_for_1_9():
    """NetworkPolicy, LimitRange (with its defaults), PodTemplate, ComponentStatus, TokenReview through the typed API."""
    net = client.NetworkingV1Api()
    policy = net.create_namespaced_network_policy(NS, client.V1NetworkPolicy(
        metadata=client.V1ObjectMeta(name="deny-all"),
        spec=client.V1NetworkPolicySpec(pod_selector=client.V1LabelSelector(match_labels={"app": "web"}), policy_types=["Ingress"])))
    assert net.read_namespaced_network_policy("deny-all", NS).spec.pod_selector.match_labels == {"app": "web"}, policy
    limits = core.create_namespaced_limit_range(NS, client.V1LimitRange(
        metadata=client.V1ObjectMeta(name="claims"),
        spec=client.V1LimitRangeSpec(limits=[client.V1LimitRangeItem(type="PersistentVolumeClaim", max={"storage": "5Gi"})])))
    assert limits.spec.limits[0].max == {"storage": "5Gi"}, limits
    template = core.create_namespaced_pod_template(NS, client.V1PodTemplate(
        metadata=client.V1ObjectMeta(name="tmpl"),
        template=client.V1PodTemplateSpec(metadata=client.V1ObjectMeta(labels={"a": "b"}),
                                          spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="nginx:1.13")]))))
    assert template.template.spec.containers[0].image == "nginx:1.13", template
    statuses = core.list_component_status().items
    names = sorted(s.metadata.name for s in statuses)
    assert names == ["controller-manager", "etcd-0", "scheduler"], names
    review = client.AuthenticationV1Api().create_token_review(client.V1TokenReview(spec=client.V1TokenReviewSpec(token="not-a-token")))
    assert not review.status.authenticated, review.status
    hpas = client.AutoscalingV2beta1Api().list_horizontal_pod_autoscaler_for_all_namespaces()
    rbac = client.RbacAuthorizationV1Api().list_cluster_role()
    return "netpol, limitrange, podtemplate, %d component statuses, token review, %d v2beta1 hpas, %d cluster roles" % (len(statuses), len(hpas.items), len(rbac.items))


run_checks(CHECKS)
