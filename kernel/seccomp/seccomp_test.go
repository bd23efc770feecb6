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
	if prof.DefaultAction != base.DefaultAction || *prof.DefaultErrnoRet != *base.DefaultErrnoRet || !cmp.Equal(prof.ArchMap, seccomp.NativeOnly(base.ArchMap)) {
		t.Errorf("default action or architectures differ from podman's native ABIs")
	}
	for _, a := range prof.ArchMap {
		if len(a.SubArchitectures) > 0 {
			t.Errorf("%s: the profile allows the compat ABIs %v", a.Architecture, a.SubArchitectures)
		}
	}
	ours := seccomp.Replaced()
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

// socket and socketpair: each family value from 0 to far past AF_MAX (46
// in Linux 6.x), and values with high bits set, with each protocol tried,
// meets exactly one rule, which allows AF_UNIX, AF_INET, AF_INET6 and
// AF_NETLINK with NETLINK_ROUTE (0) only and refuses the rest with
// EAFNOSUPPORT. The rules are read as the kernel's filter would apply them.
func TestProfileSocketFamilies(t *testing.T) {
	prof, err := seccomp.Parse(seccomp.Profile())
	if err != nil {
		t.Fatal(err)
	}
	allowed := func(family, protocol uint64) bool {
		return family == 1 || family == 2 || family == 10 || (family == 16 && protocol == 0)
	}
	values := []uint64{1 << 32, 1<<32 | 1, 1<<63 | 2, 1<<32 | 16, ^uint64(0)}
	for v := range uint64(256) {
		values = append(values, v)
	}
	protocols := []uint64{0, 4, 9, 12, 15, 16, 1 << 32}
	for _, call := range []string{"socket", "socketpair"} {
		for _, v := range values {
			for _, proto := range protocols {
				var matched []seccomp.Syscall
				for _, s := range prof.Syscalls {
					if slices.Contains(s.Names, call) && matches(s.Args, v, proto) {
						matched = append(matched, s)
					}
				}
				if len(matched) != 1 {
					t.Fatalf("%s(family %#x, protocol %#x): %d rules apply, want exactly 1: %+v", call, v, proto, len(matched), matched)
				}
				r := matched[0]
				switch {
				case allowed(v, proto) && r.Action != "SCMP_ACT_ALLOW":
					t.Errorf("%s(family %d, protocol %d): %s, want allowed", call, v, proto, r.Action)
				case !allowed(v, proto) && (r.Action != "SCMP_ACT_ERRNO" || *r.ErrnoRet != seccomp.EAFNOSUPPORT):
					t.Errorf("%s(family %#x, protocol %#x): %s, want EAFNOSUPPORT", call, v, proto, r.Action)
				}
			}
		}
	}
	for _, s := range prof.Syscalls {
		if slices.Contains(s.Names, "socketcall") && (s.Action != "SCMP_ACT_ERRNO" || len(s.Args) != 0) {
			t.Errorf("socketcall (its family is out of seccomp's reach): %s with %v, want refused whatever its arguments", s.Action, s.Args)
		}
	}
}

// matches reports whether a rule's argument comparisons hold for a first
// argument v and a third argument proto (the rules here compare no other).
func matches(args []seccomp.Arg, v, proto uint64) bool {
	for _, a := range args {
		var x uint64
		switch a.Index {
		case 0:
			x = v
		case 2:
			x = proto
		default:
			return false
		}
		switch a.Op {
		case "SCMP_CMP_EQ":
			if x != a.Value {
				return false
			}
		case "SCMP_CMP_NE":
			if x == a.Value {
				return false
			}
		case "SCMP_CMP_GT":
			if x <= a.Value {
				return false
			}
		default:
			return false
		}
	}
	return true
}
