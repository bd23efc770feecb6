# Sourced by the benchmark scripts. watch_kernel PID polls the kernel
# containers of the analyst process PID every half second until it ends,
# and sets PEAK to the kernel's peak memory (its cgroup's high-water mark,
# bytes) and CPU to its CPU time (cgroup cpuacct, ns), which other work on a
# shared machine disturbs less than wall time.
watch_kernel() {
	local pid=$1 id f v
	PEAK=0 CPU=0
	while kill -0 "$pid" 2>/dev/null; do
		for id in $(podman ps -q --no-trunc --filter "label=io.analyst.owner-pid=$pid" 2>/dev/null); do
			# cgroup v1 (rootful podman: libpod_parent, or machine.slice with systemd), then v2.
			for f in /sys/fs/cgroup/memory/libpod_parent/libpod-$id/memory.max_usage_in_bytes \
				/sys/fs/cgroup/memory/machine.slice/libpod-$id.scope/memory.max_usage_in_bytes \
				/sys/fs/cgroup/machine.slice/libpod-$id.scope/memory.peak; do
				if [ -r "$f" ]; then
					v=$(cat "$f")
					[ "$v" -gt "$PEAK" ] && PEAK=$v
				fi
			done
			for f in /sys/fs/cgroup/cpuacct/libpod_parent/libpod-$id/cpuacct.usage \
				/sys/fs/cgroup/cpuacct/machine.slice/libpod-$id.scope/cpuacct.usage; do
				[ -r "$f" ] && CPU=$(cat "$f")
			done
		done
		sleep 0.5
	done
}
