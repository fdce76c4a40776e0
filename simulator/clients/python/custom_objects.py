"""The Python client's CustomObjectsApi against a simulator that serves a CRD (crd.test.ts creates it).

Usage: custom_objects.py KUBECONFIG NAMESPACE. Prints one JSON line per check: {"check", "ok", "detail"}.
"""
import json
import sys
import traceback

from kubernetes import client, config

GROUP, VERSION, PLURAL = "stable.example.com", "v1", "crontabs"


def report(check, ok, detail=""):
    print(json.dumps({"check": check, "ok": ok, "detail": detail}), flush=True)


def main():
    config.load_kube_config(config_file=sys.argv[1])
    ns = sys.argv[2]
    api = client.CustomObjectsApi()
    body = {"apiVersion": f"{GROUP}/{VERSION}", "kind": "CronTab", "metadata": {"name": "py-ct"}, "spec": {"cronSpec": "* * * * *", "replicas": 1}}
    checks = []

    def create_get_list():
        api.create_namespaced_custom_object(GROUP, VERSION, ns, PLURAL, body)
        got = api.get_namespaced_custom_object(GROUP, VERSION, ns, PLURAL, "py-ct")
        assert got["spec"]["replicas"] == 1, got
        items = api.list_namespaced_custom_object(GROUP, VERSION, ns, PLURAL)["items"]
        assert [i["metadata"]["name"] for i in items] == ["py-ct"], items

    def replace_and_patch():
        got = api.get_namespaced_custom_object(GROUP, VERSION, ns, PLURAL, "py-ct")
        got["spec"]["replicas"] = 2
        out = api.replace_namespaced_custom_object(GROUP, VERSION, ns, PLURAL, "py-ct", got)
        assert out["spec"]["replicas"] == 2, out
        out = api.patch_namespaced_custom_object(GROUP, VERSION, ns, PLURAL, "py-ct", {"spec": {"replicas": 3}})
        assert out["spec"]["replicas"] == 3, out

    def invalid_is_422():
        bad = dict(body, metadata={"name": "py-bad"}, spec={"replicas": "many"})
        try:
            api.create_namespaced_custom_object(GROUP, VERSION, ns, PLURAL, bad)
        except client.rest.ApiException as e:
            assert e.status == 422, e.status
            return
        raise AssertionError("an object breaking the schema was accepted")

    def delete():
        api.delete_namespaced_custom_object(GROUP, VERSION, ns, PLURAL, "py-ct")
        try:
            api.get_namespaced_custom_object(GROUP, VERSION, ns, PLURAL, "py-ct")
        except client.rest.ApiException as e:
            assert e.status == 404, e.status
            return
        raise AssertionError("still there after delete")

    for name, fn in [("create_get_list", create_get_list), ("replace_and_patch", replace_and_patch), ("invalid_is_422", invalid_is_422), ("delete", delete)]:
        try:
            fn()
            report(name, True)
        except Exception:  # noqa: BLE001 - every failure is reported, the next check still runs
            report(name, False, traceback.format_exc())


main()
