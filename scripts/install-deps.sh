#!/usr/bin/env bash
# Installs the Debian packages analyst needs to build and run its kernel:
# podman and runc to run it, uidmap for rootless use, debootstrap and
# mmdebstrap to build its image, chromium for the HTML report tests,
# pyflakes (pyflakes3) for the tests that lint the kernel's Python, and
# slurm-wlm and munge for the test of examples/eval/slurm (a one-node
# cluster). Does nothing when they are all present. Also downloads the Go
# modules of examples/eval/kubernetes, a module of its own.
set -euo pipefail

packages=(podman runc uidmap debootstrap mmdebstrap fuse-overlayfs chromium python3-pyflakes slurm-wlm munge)
commands=(podman runc newuidmap debootstrap mmdebstrap fuse-overlayfs chromium pyflakes3 slurmctld munged)

missing=()
for i in "${!commands[@]}"; do
  command -v "${commands[$i]}" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin:/sbin" command -v "${commands[$i]}" >/dev/null 2>&1 || missing+=("${packages[$i]}")
done
if ! command -v go >/dev/null 2>&1; then
  echo "install-deps: Go is not on PATH (expected /usr/local/go/bin); install Go 1.26 or later" >&2
  exit 1
fi
(cd "$(dirname "$0")/../examples/eval/kubernetes" && go mod download)
if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps: missing Debian packages: ${missing[*]}" >&2
  echo "install them with: sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q
apt-get install -y -q "${missing[@]}"
