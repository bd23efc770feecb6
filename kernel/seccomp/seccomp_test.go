package seccomp_test

import (
	"bytes"
	"flag"
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/analyst-cli/analyst/kernel/seccomp"
)

var update = flag.Bool("update", false, "rewrite profile.json from podman-default.json")

func readBase(t *testing.T) []byte {
	t.Helper()
	b, err := os.ReadFile("podman-default.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The format types lose nothing: the base encodes back to its own bytes.
func TestParseEncodeRoundTrip(t *testing.T) {
	base := readBase(t)
	f, err := seccomp.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	got, err := seccomp.Encode(f)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, base) {
		t.Fatalf("podman-default.json does not encode back to itself:\n%s", cmp.Diff(string(base), string(got)))
	}
}

// The embedded profile is what Derive makes of the base, byte for byte.
func TestProfileIsDerived(t *testing.T) {
	derived, err := seccomp.Derive(readBase(t))
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("profile.json", derived, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(derived, seccomp.Profile()) {
		t.Fatalf("profile.json is not Derive(podman-default.json); run: go test ./kernel/seccomp -run TestProfileIsDerived -update\n%s",
			cmp.Diff(string(derived), string(seccomp.Profile())))
	}
}

// Read independently of Derive: the profile is the default's rules, minus
// only the names we deny, in the same order, followed by our rules, and it
// allows none of the denied calls anywhere.
func TestProfileIsDefaultPlusDenials(t *testing.T) {
	base, err := seccomp.Parse(readBase(t))
	if err != nil {
		t.Fatal(err)
	}
	prof, err := seccomp.Parse(seccomp.Profile())
	if err != nil {
		t.Fatal(err)
	}
	if prof.DefaultAction != base.DefaultAction || *prof.DefaultErrnoRet != *base.DefaultErrnoRet || !cmp.Equal(prof.ArchMap, base.ArchMap) {
		t.Errorf("default action or architectures differ from podman's")
	}
	ours := append(slices.Clone(seccomp.Denied), "clone", "clone3")
	i := 0
	for _, b := range base.Syscalls {
		want := b
		want.Names = slices.DeleteFunc(slices.Clone(b.Names), func(n string) bool { return slices.Contains(ours, n) })
		if len(want.Names) == 0 {
			continue
		}
		if i >= len(prof.Syscalls) {
			t.Fatalf("profile ends before podman's rule %v", b.Names)
		}
		if d := cmp.Diff(want, prof.Syscalls[i]); d != "" {
			t.Fatalf("rule %d differs from podman's (minus our denials):\n%s", i, d)
		}
		i++
	}
	if d := cmp.Diff(seccomp.Rules(), prof.Syscalls[i:]); d != "" {
		t.Fatalf("the rules after podman's are not ours:\n%s", d)
	}

	// Every denied call: no rule allows it, one refuses it with EPERM.
	for _, name := range seccomp.Denied {
		var eperm bool
		for _, s := range prof.Syscalls {
			if !slices.Contains(s.Names, name) {
				continue
			}
			if s.Action != "SCMP_ACT_ERRNO" {
				t.Errorf("%s: rule with action %s", name, s.Action)
			}
			eperm = eperm || (s.ErrnoRet != nil && *s.ErrnoRet == seccomp.EPERM && len(s.Args) == 0)
		}
		if !eperm {
			t.Errorf("%s: no rule refuses it with EPERM", name)
		}
	}
	// clone is allowed only when no namespace flag is set; clone3 is ENOSYS.
	var mask uint64
	for _, f := range seccomp.NamespaceFlags {
		mask |= f
	}
	if mask != 0x7E020000 {
		t.Errorf("namespace flag mask %#x, want 0x7E020000 (Docker's)", mask)
	}
	for _, s := range prof.Syscalls {
		switch {
		case slices.Contains(s.Names, "clone") && s.Action == "SCMP_ACT_ALLOW":
			if len(s.Args) != 1 || s.Args[0].Op != "SCMP_CMP_MASKED_EQ" || s.Args[0].Value != mask || s.Args[0].ValueTwo != 0 {
				t.Errorf("clone allowed with %+v, want only (flags & %#x) == 0", s.Args, mask)
			}
		case slices.Contains(s.Names, "clone3"):
			if s.Action != "SCMP_ACT_ERRNO" || s.ErrnoRet == nil || *s.ErrnoRet != seccomp.ENOSYS {
				t.Errorf("clone3: %s errno %v, want ENOSYS", s.Action, s.ErrnoRet)
			}
		}
	}
}
