"""Runs a script's checks and prints one JSON line per check: {"check": name, "ok": bool, "detail": text}.

A check that raises is reported with its exception (ApiException bodies included), and the next one still runs.
"""

import json
import traceback

from kubernetes.client.rest import ApiException


def run_one(name, fn, tail=1200):
    """Runs one check and prints its JSON line; every failure is reported, so the next check still runs."""
    result = {"check": name}
    try:
        result["detail"] = str(fn())
        result["ok"] = True
    except ApiException as e:
        result["ok"] = False
        result["detail"] = "ApiException %s %s: %s" % (e.status, e.reason, (e.body or "")[:600])
    except Exception as e:  # noqa: BLE001 - every failure is reported, the next check still runs
        result["ok"] = False
        result["detail"] = "%s: %s\n%s" % (type(e).__name__, e, traceback.format_exc()[-tail:])
    print(json.dumps(result), flush=True)


def run_checks(checks):
    for fn in checks:
        run_one(fn.__name__, fn)
