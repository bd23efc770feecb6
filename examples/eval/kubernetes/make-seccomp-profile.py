#!/usr/bin/python3
"""Writes podman-seccomp.json, the Localhost seccomp profile of
indexed-job.yaml, from podman's own profile (Debian's
golang-github-containers-common: /usr/share/containers/seccomp.json).

Podman's profile allows some calls only to containers that hold a
capability ("includes": {"caps": [...]}); a Localhost profile in Kubernetes
is taken as it is, with no such conditions. The pod lacks CAP_SYS_ADMIN, yet
podman needs mount, unshare, setns and sethostname in the user namespace it
makes, where it holds every capability: so the calls podman's profile gives
to CAP_SYS_ADMIN or to a capability the baseline level allows are allowed,
and those it gives only to other capabilities (modules, clocks, raw I/O,
accounting) stay refused. No "architectures": the node's own only.

    examples/eval/kubernetes/make-seccomp-profile.py > examples/eval/kubernetes/podman-seccomp.json
"""
import json
import sys

ALLOWED_CAPS = {
    "CAP_SYS_ADMIN",
    # The baseline level's.
    "CAP_AUDIT_WRITE", "CAP_CHOWN", "CAP_DAC_OVERRIDE", "CAP_FOWNER", "CAP_FSETID", "CAP_KILL",
    "CAP_MKNOD", "CAP_NET_BIND_SERVICE", "CAP_SETFCAP", "CAP_SETGID", "CAP_SETPCAP",
    "CAP_SETUID", "CAP_SYS_CHROOT",
}

src = json.load(open(sys.argv[1] if len(sys.argv) > 1 else "/usr/share/containers/seccomp.json"))
rules = []
for r in src["syscalls"]:
    includes, excludes = r.get("includes") or {}, r.get("excludes") or {}
    if not set(includes.get("caps") or []) <= ALLOWED_CAPS:
        continue
    if excludes.get("caps") and set(excludes["caps"]) <= ALLOWED_CAPS:
        continue  # the narrower rule for containers without them: the wider one is kept
    rules.append({k: v for k, v in r.items() if k in ("names", "action", "args", "errnoRet")})
json.dump({"defaultAction": src["defaultAction"], "defaultErrnoRet": src.get("defaultErrnoRet", 1),
           "syscalls": rules}, sys.stdout, indent=1)
sys.stdout.write("\n")
