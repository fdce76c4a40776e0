"""The Python `kubernetes` client's typed API on every kind the simulator serves that the client has models for.

Run by simulator/clients/python-typed.test.ts as `python3 typed_kinds.py KUBECONFIG NAMESPACE`. For each kind:
create, read, list (in the namespace and across namespaces), watch (the ADDED event of the new object, as a typed
model), replace, strategic merge patch and delete, all through the generated models, which raise on a shape they do
not accept (a required field that is null, e.g. a new ReplicationController's status.replicas). Prints one JSON line
per kind: {"check": kind, "ok": bool, "detail": text}.
"""

import base64
import datetime
import json
import sys

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException

from checklib import run_one

KUBECONFIG, NS = sys.argv[1], sys.argv[2]
config.load_kube_config(config_file=KUBECONFIG)

core = client.CoreV1Api()
apps = client.AppsV1Api()
batch = client.BatchV1Api()
batch_beta = client.BatchV1beta1Api()
autoscaling = client.AutoscalingV1Api()
policy = client.PolicyV1beta1Api()
rbac = client.RbacAuthorizationV1Api()
storage = client.StorageV1Api()
certificates = client.CertificatesV1Api()
networking = client.NetworkingV1Api()
autoscaling_v2beta1 = client.AutoscalingV2beta1Api()
events_beta = client.EventsV1beta1Api()

M = client.V1ObjectMeta
LABELS = {"typed": "yes"}
SELECTOR = client.V1LabelSelector(match_labels={"app": "typed"})


def template():
    return client.V1PodTemplateSpec(
        metadata=M(labels={"app": "typed"}),
        spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="nginx:1.13")]),
    )


def csr_request():
    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    req = x509.CertificateSigningRequestBuilder().subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "typed")]))
    pem = req.sign(key, hashes.SHA256()).public_bytes(serialization.Encoding.PEM)
    return base64.b64encode(pem).decode()


# kind: (api, method suffix, namespaced, body factory(name), has a cross-namespace list)
KINDS = {
    "ConfigMap": (core, "config_map", True, lambda n: client.V1ConfigMap(metadata=M(name=n), data={"a": "1"})),
    "Secret": (core, "secret", True, lambda n: client.V1Secret(metadata=M(name=n), string_data={"a": "1"})),
    "Service": (core, "service", True, lambda n: client.V1Service(metadata=M(name=n), spec=client.V1ServiceSpec(ports=[client.V1ServicePort(port=80)], selector={"app": "typed"}))),
    "Endpoints": (core, "endpoints", True, lambda n: client.V1Endpoints(metadata=M(name=n), subsets=[])),
    "ServiceAccount": (core, "service_account", True, lambda n: client.V1ServiceAccount(metadata=M(name=n))),
    "Event": (core, "event", True, lambda n: client.CoreV1Event(
        metadata=M(name=n), involved_object=client.V1ObjectReference(kind="Pod", name="p", namespace=NS), reason="Typed", message="m", type="Normal")),
    "Pod": (core, "pod", True, lambda n: client.V1Pod(metadata=M(name=n), spec=template().spec)),
    "ReplicationController": (core, "replication_controller", True, lambda n: client.V1ReplicationController(
        metadata=M(name=n), spec=client.V1ReplicationControllerSpec(replicas=0, selector={"app": "typed"}, template=template()))),
    "ResourceQuota": (core, "resource_quota", True, lambda n: client.V1ResourceQuota(metadata=M(name=n), spec=client.V1ResourceQuotaSpec(hard={"configmaps": "100"}))),
    "PersistentVolumeClaim": (core, "persistent_volume_claim", True, lambda n: client.V1PersistentVolumeClaim(
        metadata=M(name=n), spec=client.V1PersistentVolumeClaimSpec(access_modes=["ReadWriteOnce"], resources=client.V1ResourceRequirements(requests={"storage": "1Gi"})))),
    "Namespace": (core, "namespace", False, lambda n: client.V1Namespace(metadata=M(name=n))),
    "Node": (core, "node", False, lambda n: client.V1Node(metadata=M(name=n))),
    "PersistentVolume": (core, "persistent_volume", False, lambda n: client.V1PersistentVolume(
        metadata=M(name=n), spec=client.V1PersistentVolumeSpec(capacity={"storage": "1Gi"}, access_modes=["ReadWriteOnce"], host_path=client.V1HostPathVolumeSource(path="/data")))),
    "Deployment": (apps, "deployment", True, lambda n: client.V1Deployment(metadata=M(name=n), spec=client.V1DeploymentSpec(replicas=0, selector=SELECTOR, template=template()))),
    "ReplicaSet": (apps, "replica_set", True, lambda n: client.V1ReplicaSet(metadata=M(name=n), spec=client.V1ReplicaSetSpec(replicas=0, selector=SELECTOR, template=template()))),
    "DaemonSet": (apps, "daemon_set", True, lambda n: client.V1DaemonSet(metadata=M(name=n), spec=client.V1DaemonSetSpec(selector=SELECTOR, template=template()))),
    "StatefulSet": (apps, "stateful_set", True, lambda n: client.V1StatefulSet(
        metadata=M(name=n), spec=client.V1StatefulSetSpec(replicas=0, service_name=n, selector=SELECTOR, template=template()))),
    "ControllerRevision": (apps, "controller_revision", True, lambda n: client.V1ControllerRevision(metadata=M(name=n), revision=1, data={"a": 1})),
    "Job": (batch, "job", True, lambda n: client.V1Job(metadata=M(name=n), spec=client.V1JobSpec(parallelism=0, template=client.V1PodTemplateSpec(
        spec=client.V1PodSpec(restart_policy="Never", containers=[client.V1Container(name="c", image="busybox")]))))),
    "CronJob": (batch_beta, "cron_job", True, lambda n: client.V1beta1CronJob(metadata=M(name=n), spec=client.V1beta1CronJobSpec(
        schedule="*/5 * * * *", suspend=True, job_template=client.V1beta1JobTemplateSpec(spec=client.V1JobSpec(template=client.V1PodTemplateSpec(
            spec=client.V1PodSpec(restart_policy="Never", containers=[client.V1Container(name="c", image="busybox")]))))))),
    "HorizontalPodAutoscaler": (autoscaling, "horizontal_pod_autoscaler", True, lambda n: client.V1HorizontalPodAutoscaler(
        metadata=M(name=n), spec=client.V1HorizontalPodAutoscalerSpec(max_replicas=3, scale_target_ref=client.V1CrossVersionObjectReference(kind="Deployment", name="absent", api_version="apps/v1")))),
    "PodDisruptionBudget": (policy, "pod_disruption_budget", True, lambda n: client.V1beta1PodDisruptionBudget(
        metadata=M(name=n), spec=client.V1beta1PodDisruptionBudgetSpec(min_available=1, selector=SELECTOR))),
    "Role": (rbac, "role", True, lambda n: client.V1Role(metadata=M(name=n), rules=[client.V1PolicyRule(api_groups=[""], resources=["pods"], verbs=["get"])])),
    "RoleBinding": (rbac, "role_binding", True, lambda n: client.V1RoleBinding(
        metadata=M(name=n), role_ref=client.V1RoleRef(api_group="rbac.authorization.k8s.io", kind="Role", name="r"), subjects=[client.V1Subject(kind="User", name="u")])),
    "ClusterRole": (rbac, "cluster_role", False, lambda n: client.V1ClusterRole(metadata=M(name=n), rules=[client.V1PolicyRule(api_groups=[""], resources=["pods"], verbs=["get"])])),
    "ClusterRoleBinding": (rbac, "cluster_role_binding", False, lambda n: client.V1ClusterRoleBinding(
        metadata=M(name=n), role_ref=client.V1RoleRef(api_group="rbac.authorization.k8s.io", kind="ClusterRole", name="r"), subjects=[client.V1Subject(kind="User", name="u")])),
    "StorageClass": (storage, "storage_class", False, lambda n: client.V1StorageClass(metadata=M(name=n), provisioner="example.com/typed")),
    "CertificateSigningRequest": (certificates, "certificate_signing_request", False, lambda n: client.V1CertificateSigningRequest(
        metadata=M(name=n), spec=client.V1CertificateSigningRequestSpec(request=csr_request(), signer_name="example.com/typed", usages=["digital signature"]))),
    # Kinds and versions added for 1.9 (issue 40).
    "LimitRange": (core, "limit_range", True, lambda n: client.V1LimitRange(metadata=M(name=n), spec=client.V1LimitRangeSpec(
        limits=[client.V1LimitRangeItem(type="Container", max={"cpu": "2"}, default={"cpu": "500m"})]))),
    "PodTemplate": (core, "pod_template", True, lambda n: client.V1PodTemplate(metadata=M(name=n), template=template())),
    "NetworkPolicy": (networking, "network_policy", True, lambda n: client.V1NetworkPolicy(metadata=M(name=n), spec=client.V1NetworkPolicySpec(
        pod_selector=SELECTOR, ingress=[client.V1NetworkPolicyIngressRule(ports=[client.V1NetworkPolicyPort(port=80)], _from=[client.V1NetworkPolicyPeer(
            ip_block=client.V1IPBlock(cidr="10.0.0.0/8", _except=["10.1.0.0/16"]))])]))),
    "HorizontalPodAutoscalerV2beta1": (autoscaling_v2beta1, "horizontal_pod_autoscaler", True, lambda n: client.V2beta1HorizontalPodAutoscaler(
        metadata=M(name=n), spec=client.V2beta1HorizontalPodAutoscalerSpec(max_replicas=3, scale_target_ref=client.V2beta1CrossVersionObjectReference(
            kind="Deployment", name="absent", api_version="apps/v1"), metrics=[client.V2beta1MetricSpec(type="Resource", resource=client.V2beta1ResourceMetricSource(
                name="cpu", target_average_utilization=60))]))),
    "EventV1beta1": (events_beta, "event", True, lambda n: client.V1beta1Event(
        metadata=M(name=n), event_time=datetime.datetime.now(datetime.timezone.utc), reporting_controller="example.com/typed", reporting_instance="typed-1",
        action="Check", reason="Typed", type="Normal", note="typed", regarding=client.V1ObjectReference(kind="Pod", name="p", namespace=NS + "-events"))),
}

# Read-only kinds (computed on read): list, read each listed object.
READ_ONLY = {
    "ComponentStatus": (core, "component_status"),
}


# The typed delete of this client (for servers since 1.10) deserialises the deleted object, which has a required
# field (provisioner); 1.9 answers the delete of a StorageClass with a Status (its OpenAPI document says so too).
DELETE_ANSWERS_OBJECT = {"StorageClass"}


# Kinds exercised in a namespace of their own. events.k8s.io/v1beta1: the core Events the controllers write for the
# other kinds' objects have no eventTime, which this client's model refuses (a null required field) in any list or
# watch that meets one, against a real server too; in a namespace with only its own events the typed API works.
OWN_NAMESPACE = {"EventV1beta1": NS + "-events"}


def call_in(api, verb, suffix, namespaced, *args, ns=NS, **kw):
    """The typed method of that verb: namespaced ones take the namespace after the name (before the body of a create)."""
    if not namespaced:
        return getattr(api, "%s_%s" % (verb, suffix))(*args, **kw)
    method = getattr(api, "%s_namespaced_%s" % (verb, suffix))
    if verb in ("create", "list"):
        return method(ns, *args, **kw)
    return method(args[0], ns, *args[1:], **kw)


def exercise(kind):
    api, suffix, namespaced, body = KINDS[kind]
    name = "typed-" + kind.lower()
    ns = OWN_NAMESPACE.get(kind, NS)
    if ns != NS:
        try:
            core.create_namespace(client.V1Namespace(metadata=M(name=ns)))
        except ApiException as e:
            if e.status != 409:
                raise

    def call(api, verb, suffix, namespaced, *args, **kw):
        return call_in(api, verb, suffix, namespaced, *args, ns=ns, **kw)
    rv = call(api, "list", suffix, namespaced).metadata.resource_version
    created = call(api, "create", suffix, namespaced, body(name))
    model = type(created).__name__
    read = call(api, "read", suffix, namespaced, name)
    assert type(read).__name__ == model and read.metadata.name == name, read.metadata
    listed = call(api, "list", suffix, namespaced, field_selector="metadata.name=" + name)
    assert [i.metadata.name for i in listed.items] == [name], listed.items
    if namespaced and kind not in OWN_NAMESPACE:  # across namespaces it would meet the other namespaces' objects
        getattr(api, "list_%s_for_all_namespaces" % suffix)()
    # A typed watch: the event's object is the model, deserialised from the ADDED event of the create.
    lister = getattr(api, "list_namespaced_%s" % suffix if namespaced else "list_%s" % suffix)
    args = (ns,) if namespaced else ()
    w = watch.Watch()
    added = None
    for ev in w.stream(lister, *args, resource_version=rv, timeout_seconds=10):
        if ev["type"] == "ADDED" and ev["object"].metadata.name == name:
            added = ev["object"]
            w.stop()
    assert added is not None and type(added).__name__ == model, "no typed ADDED event of %s" % name
    # Replace what was just read, as clients do: a controller's status write in between is a 409, read again then.
    for attempt in range(5):
        current = call(api, "read", suffix, namespaced, name)
        current.metadata.labels = dict(current.metadata.labels or {}, **LABELS)
        try:
            replaced = call(api, "replace", suffix, namespaced, name, current)
            break
        except ApiException as e:
            if e.status != 409 or attempt == 4:
                raise
    assert replaced.metadata.labels.get("typed") == "yes", replaced.metadata.labels
    patched = call(api, "patch", suffix, namespaced, name, {"metadata": {"annotations": {"typed": "patched"}}})
    assert patched.metadata.annotations.get("typed") == "patched", patched.metadata.annotations
    if kind in DELETE_ANSWERS_OBJECT:
        # This client expects the deleted object where 1.9 answers a Status: read the answer as the Status it is.
        answer = json.loads(call(api, "delete", suffix, namespaced, name, _preload_content=False).data)
        assert answer["kind"] == "Status" and answer["status"] == "Success", answer
    else:
        call(api, "delete", suffix, namespaced, name)
    return "%s: create, read, list, watch, replace, patch, delete" % model


def exercise_read_only(kind):
    api, suffix = READ_ONLY[kind]
    listed = getattr(api, "list_%s" % suffix)()
    model = type(listed.items[0]).__name__
    for item in listed.items:
        read = getattr(api, "read_%s" % suffix)(item.metadata.name)
        assert type(read).__name__ == model and read.metadata.name == item.metadata.name, read.metadata
    return "%s: list (%s), read each" % (model, ", ".join(sorted(i.metadata.name for i in listed.items)))


def main():
    only = set(sys.argv[3:])
    for kind in KINDS:
        if only and kind not in only:
            continue
        run_one(kind, lambda: exercise(kind), tail=1500)
    for kind in READ_ONLY:
        if only and kind not in only:
            continue
        run_one(kind, lambda: exercise_read_only(kind), tail=1500)


main()
