#!/usr/bin/env bash
# Installs the real clients the client matrix (simulator/clients/) drives, idempotently:
# - the Python `kubernetes` client from Debian (python3-kubernetes, for /usr/bin/python3);
# - kubectl 1.20 from Debian's kubernetes-client package, downloaded with `apt-get download` and unpacked with
#   `dpkg -x` into the project's git-ignored .tools/ folder (never installed over the system's kubectl);
# - the machine's current kubectl is expected on PATH (installed from the distribution when it is missing).
# Needs root only for what is missing; run by .ci/run, and by hand with `sudo scripts/install-client-tools.sh`.
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS="$PWD/.tools"
apt_updated=0
apt_update() { [ "$apt_updated" = 1 ] || { apt-get update -qq; apt_updated=1; }; }

if ! /usr/bin/python3 -c 'import kubernetes' 2>/dev/null; then
  apt_update
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-kubernetes
fi

if ! command -v kubectl >/dev/null; then
  apt_update
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq kubectl
fi

K120="$TOOLS/kubectl-1.20/kubectl"
if ! [ -x "$K120" ] || ! "$K120" version --client 2>/dev/null | grep -q 'GitVersion:"v1.20'; then
  tmp="$(mktemp -d)"
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && { apt-get download -qq kubernetes-client 2>/dev/null || { apt_update; apt-get download -qq kubernetes-client; }; })
  dpkg -x "$tmp"/kubernetes-client_*.deb "$tmp/x"
  mkdir -p "$TOOLS/kubectl-1.20"
  cp "$tmp/x/usr/bin/kubectl" "$K120"
  "$K120" version --client | grep -q 'GitVersion:"v1.20' || { echo "kubernetes-client is not kubectl 1.20: $("$K120" version --client)" >&2; exit 1; }
fi
echo "client tools: kubectl $(kubectl version --client 2>/dev/null | head -1 | sed 's/^Client Version: //'), kubectl-1.20 at ${K120#$PWD/}, python3-kubernetes $(/usr/bin/python3 -c 'import kubernetes; print(kubernetes.__version__)')"
