package kernel

import (
	"slices"
	"testing"
)

func TestParseBytes(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		ok   bool
	}{
		{"512MiB", 512 << 20, true},
		{"2g", 2 << 30, true},
		{"1.5GB", 3 << 29, true},
		{"1048576", 1 << 20, true},
		{" 64 mb ", 64 << 20, true},
		{"", 0, false},
		{"-1g", 0, false},
		{"lots", 0, false},
	}
	for _, tt := range tests {
		got, err := ParseBytes(tt.in)
		if (err == nil) != tt.ok || got != tt.want {
			t.Errorf("ParseBytes(%q) = %d, %v; want %d ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestHumanBytes(t *testing.T) {
	for in, want := range map[int64]string{100: "100 B", 2048: "2 KiB", 512 << 20: "512 MiB", 3 << 29: "1.5 GiB"} {
		if got := HumanBytes(in); got != want {
			t.Errorf("HumanBytes(%d) = %q, want %q", in, got, want)
		}
	}
}

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
		if got := slices.Contains(args, "--memory"); got != cgroups {
			t.Errorf("cgroups=%v: --memory present = %v", cgroups, got)
		}
		if args[0] != "--runtime" || args[1] != "runc" {
			t.Errorf("runtime not first: %v", args[:2])
		}
	}
}
