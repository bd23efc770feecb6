package kernel

import (
	"slices"
	"testing"
)

// The command line is the sandbox: check each isolation flag is on it, with
// and without cgroup enforcement.
func TestPodmanArgsCarryIsolation(t *testing.T) {
	for _, cgroups := range []bool{true, false} {
		k := &Kernel{opts: Options{RootFS: "/img", Runtime: "runc", CgroupLimits: cgroups}, limits: DefaultLimits(), name: "analyst-kernel-x", tmpDir: "/t"}
		args, err := k.podmanArgs()
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"--network=none", "--cap-drop=all", "--security-opt=no-new-privileges", "--read-only", "--no-hosts", "--http-proxy=false", "--log-driver=none", "--unsetenv-all"} {
			if !slices.Contains(args, want) {
				t.Errorf("cgroups=%v: %s missing from %v", cgroups, want, args)
			}
		}
		if i := slices.Index(args, "seccomp=/t/seccomp.json"); i < 1 || args[i-1] != "--security-opt" {
			t.Errorf("cgroups=%v: our seccomp profile is not on %v", cgroups, args)
		}
		if got := slices.Contains(args, "--memory"); got != cgroups {
			t.Errorf("cgroups=%v: --memory present = %v", cgroups, got)
		}
		if args[0] != "--runtime" || args[1] != "runc" {
			t.Errorf("runtime not first: %v", args[:2])
		}
	}
}
