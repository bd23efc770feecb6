// Package seccomp holds the kernel's seccomp profile: podman's default
// profile for the host's native system-call ABI only (no 32-bit or x32
// calls), plus denials that keep sandbox code out of namespaces, mounts, the
// kernel keyring, BPF, perf and ptrace, and socket families other than
// local and IP sockets.
//
// The profile is derived, not written by hand: podman-default.json is
// /usr/share/containers/seccomp.json as Debian 12 ships it (package
// golang-github-containers-common 0.50.1+ds1-4, Apache-2.0), and profile.json
// is Derive(podman-default.json). Regenerate it after changing the base or
// the denials with
//
//	go test ./kernel/seccomp -run TestProfileIsDerived -update
//
// and the tests check that the embedded profile is exactly the default plus
// these denials, so neither can drift silently.
package seccomp

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
)

//go:embed profile.json
var profile []byte

// Profile is the seccomp profile the kernel's container runs under, in the
// format of podman's --security-opt seccomp=FILE.
func Profile() []byte { return profile }

// Hash identifies the profile, for run manifests.
func Hash() string {
	s := sha256.Sum256(profile)
	return hex.EncodeToString(s[:])[:16]
}

// Errno values the profile returns (as numbered on x86, arm, s390 and
// riscv; podman's own profile numbers them so for every architecture).
const (
	EPERM        = 1
	ENOSYS       = 38
	EAFNOSUPPORT = 97
)

// Denied are the syscalls the profile refuses with EPERM whatever their
// arguments. None is needed by Python, numpy, matplotlib or subprocess; the
// podman default allows most of them because its containers may run
// containers themselves.
var Denied = []string{
	// Namespaces: a new user namespace gives root and every capability
	// inside it, and with them mounts that escape the memory accounting.
	"unshare", "setns",
	// Mounts, old and new API.
	"mount", "umount", "umount2", "pivot_root",
	"fsopen", "fsconfig", "fsmount", "fspick", "move_mount", "open_tree", "mount_setattr",
	// The kernel keyring is not namespaced.
	"keyctl", "add_key", "request_key",
	// Kernel attack surface that analysis code never needs.
	"bpf", "userfaultfd", "perf_event_open",
	// Reading or writing another process's memory.
	"ptrace", "process_vm_readv", "process_vm_writev",
	// The 32-bit socket multiplexer (reachable from a 64-bit process with
	// int 0x80): its arguments sit in memory, where seccomp cannot read
	// the address family, so it would get round SocketFamilies.
	"socketcall",
}

// SocketFamilies are the address families socket and socketpair may use:
// local sockets and IP (whose namespace has only a loopback interface),
// and AF_NETLINK with NetlinkProtocol only. Every other family fails with
// EAFNOSUPPORT: AF_VSOCK, which reaches the hypervisor on a virtual machine
// host, AF_PACKET, AF_BLUETOOTH, AF_ALG and the rest up to AF_MAX and beyond.
// Docker's default profile, the strictest of the usual anchors, refuses
// AF_VSOCK alone; podman's refuses none.
var SocketFamilies = map[string]uint64{"AF_UNIX": 1, "AF_INET": 2, "AF_INET6": 10, "AF_NETLINK": AFNetlink}

// AF_NETLINK is allowed with one protocol, NETLINK_ROUTE: glibc's
// getifaddrs uses it, and ZeroMQ, so ipykernel and nbconvert in the image,
// abort without it ("Address family not supported by protocol
// (src/ip_resolver.cpp:542)"). In the sandbox's network namespace it sees
// the loopback interface only, and changes nothing without CAP_NET_ADMIN.
// Every other netlink protocol (audit, uevents, sock_diag, netfilter,
// generic, ...) fails with EAFNOSUPPORT.
const (
	AFNetlink       = 16
	NetlinkProtocol = 0 // NETLINK_ROUTE
)

// socketCalls are the calls whose first argument is an address family.
var socketCalls = []string{"socket", "socketpair"}

// NamespaceFlags are the clone flags that create namespaces; clone with any
// of them is refused with EPERM, clone without them (fork, threads) allowed.
var NamespaceFlags = map[string]uint64{
	"CLONE_NEWNS":     0x00020000,
	"CLONE_NEWCGROUP": 0x02000000,
	"CLONE_NEWUTS":    0x04000000,
	"CLONE_NEWIPC":    0x08000000,
	"CLONE_NEWUSER":   0x10000000,
	"CLONE_NEWPID":    0x20000000,
	"CLONE_NEWNET":    0x40000000,
}

// Profile file format, as containers/common (podman) reads it. The field
// order is the file's, so a profile encodes back to the same bytes.
type (
	File struct {
		DefaultAction   string    `json:"defaultAction"`
		DefaultErrnoRet *uint     `json:"defaultErrnoRet,omitempty"`
		DefaultErrno    string    `json:"defaultErrno,omitempty"`
		ArchMap         []Arch    `json:"archMap"`
		Syscalls        []Syscall `json:"syscalls"`
	}
	Arch struct {
		Architecture     string   `json:"architecture"`
		SubArchitectures []string `json:"subArchitectures"`
	}
	Syscall struct {
		Names    []string `json:"names"`
		Action   string   `json:"action"`
		Args     []Arg    `json:"args"`
		Comment  string   `json:"comment"`
		Includes Filter   `json:"includes"`
		Excludes Filter   `json:"excludes"`
		ErrnoRet *uint    `json:"errnoRet,omitempty"`
		Errno    string   `json:"errno,omitempty"`
	}
	Arg struct {
		Index    uint   `json:"index"`
		Value    uint64 `json:"value"`
		ValueTwo uint64 `json:"valueTwo"`
		Op       string `json:"op"`
	}
	Filter struct {
		Caps   []string `json:"caps,omitempty"`
		Arches []string `json:"arches,omitempty"`
	}
)

// Parse reads a profile, refusing fields it does not know (a newer base
// must be looked at, not half copied).
func Parse(b []byte) (*File, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	var f File
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("reading seccomp profile: %w", err)
	}
	return &f, nil
}

// Encode writes a profile the way containers/common writes its default.
func Encode(f *File) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "\t")
	if err := enc.Encode(f); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// Replaced are the syscalls whose rules in the base Derive drops: ours
// decide them alone.
func Replaced() []string {
	return append(append(slices.Clone(Denied), "clone", "clone3"), socketCalls...)
}

// Derive is base with its compatibility ABIs dropped (NativeOnly), every
// rule about the Replaced syscalls removed, and ours appended: Denied and clone with namespace flags return EPERM; clone3,
// whose flags sit in a struct seccomp cannot read, returns ENOSYS, so the C
// library falls back to clone, which is filtered by flags (Docker's and
// podman's answer for containers without CAP_SYS_ADMIN); socket and
// socketpair are allowed for SocketFamilies only.
func Derive(base []byte) ([]byte, error) {
	f, err := Parse(base)
	if err != nil {
		return nil, err
	}
	f.ArchMap = NativeOnly(f.ArchMap)
	ours := Replaced()
	var kept []Syscall
	for _, s := range f.Syscalls {
		s.Names = slices.DeleteFunc(s.Names, func(n string) bool { return slices.Contains(ours, n) })
		if len(s.Names) > 0 {
			kept = append(kept, s)
		}
	}
	f.Syscalls = append(kept, Rules()...)
	return Encode(f)
}

// NativeOnly is archMap with every architecture's sub-architectures removed,
// so the filter matches the native ABI alone and a system call made through
// another (x86-64's int 0x80 into the i386 ABI, the x32 ABI, arm64's 32-bit
// compat mode) meets the runtime's action for a foreign architecture: it is
// refused, whatever its number or arguments. Nothing in the image is
// 32-bit, and the compat ABIs carry calls a rule of the native ABI never
// sees (socketcall, whose arguments sit in memory); gVisor refuses them
// too. Which refusal a process sees (ENOSYS or SIGSYS) is the runtime's.
func NativeOnly(archMap []Arch) []Arch {
	out := make([]Arch, len(archMap))
	for i, a := range archMap {
		out[i] = Arch{Architecture: a.Architecture, SubArchitectures: []string{}}
	}
	return out
}

// Rules are the rules Derive appends.
func Rules() []Syscall {
	eperm, enosys := uint(EPERM), uint(ENOSYS)
	var mask uint64
	for _, v := range NamespaceFlags {
		mask |= v
	}
	none := Filter{}
	// clone's flags are its first argument, except on s390, where they are
	// the second.
	s390 := []string{"s390", "s390x"}
	rules := []Syscall{{
		Names: slices.Clone(Denied), Action: "SCMP_ACT_ERRNO", Args: []Arg{},
		Comment: "analyst: no namespaces, mounts, keyring, bpf, userfaultfd, perf, ptrace or socketcall", Excludes: none,
		ErrnoRet: &eperm, Errno: "EPERM",
	}}
	for _, arg := range []struct {
		index  uint
		filter func(*Syscall)
	}{
		{0, func(s *Syscall) { s.Excludes.Arches = s390 }},
		{1, func(s *Syscall) { s.Includes.Arches = s390 }},
	} {
		allow := Syscall{
			Names: []string{"clone"}, Action: "SCMP_ACT_ALLOW",
			Args:    []Arg{{Index: arg.index, Value: mask, Op: "SCMP_CMP_MASKED_EQ"}},
			Comment: "analyst: clone without namespace flags (fork, threads)",
		}
		arg.filter(&allow)
		rules = append(rules, allow)
		for _, name := range sortedFlags() {
			flag := NamespaceFlags[name]
			deny := Syscall{
				Names: []string{"clone"}, Action: "SCMP_ACT_ERRNO",
				Args:     []Arg{{Index: arg.index, Value: flag, ValueTwo: flag, Op: "SCMP_CMP_MASKED_EQ"}},
				Comment:  "analyst: clone with " + name,
				ErrnoRet: &eperm, Errno: "EPERM",
			}
			arg.filter(&deny)
			rules = append(rules, deny)
		}
	}
	rules = append(rules, Syscall{
		Names: []string{"clone3"}, Action: "SCMP_ACT_ERRNO", Args: []Arg{},
		Comment:  "analyst: clone3 hides its flags from seccomp; ENOSYS makes the C library use clone",
		ErrnoRet: &enosys, Errno: "ENOSYS",
	})
	return append(rules, socketRules()...)
}

// socketRules allow SocketFamilies and refuse every other value of the
// family argument with EAFNOSUPPORT. The rules are disjoint (one per value
// up to the largest allowed family, two for AF_NETLINK split on the
// protocol, then one for all above), so no precedence between them
// matters; a value with high bits set is above.
func socketRules() []Syscall {
	refuse := uint(EAFNOSUPPORT)
	var top uint64
	allowed := map[uint64]string{}
	for name, v := range SocketFamilies {
		allowed[v] = name
		top = max(top, v)
	}
	rule := func(action string, op string, v uint64, comment string) Syscall {
		s := Syscall{Names: slices.Clone(socketCalls), Action: action,
			Args: []Arg{{Index: 0, Value: v, Op: op}}, Comment: "analyst: " + comment}
		if action == "SCMP_ACT_ERRNO" {
			s.ErrnoRet, s.Errno = &refuse, "EAFNOSUPPORT"
		}
		return s
	}
	var rules []Syscall
	for v := uint64(0); v <= top; v++ {
		name, ok := allowed[v]
		switch {
		case v == AFNetlink:
			// Split on the protocol (the third argument).
			allow := rule("SCMP_ACT_ALLOW", "SCMP_CMP_EQ", v, name+" with NETLINK_ROUTE")
			allow.Args = append(allow.Args, Arg{Index: 2, Value: NetlinkProtocol, Op: "SCMP_CMP_EQ"})
			refuse := rule("SCMP_ACT_ERRNO", "SCMP_CMP_EQ", v, name+" with another protocol")
			refuse.Args = append(refuse.Args, Arg{Index: 2, Value: NetlinkProtocol, Op: "SCMP_CMP_NE"})
			rules = append(rules, allow, refuse)
		case ok:
			rules = append(rules, rule("SCMP_ACT_ALLOW", "SCMP_CMP_EQ", v, name))
		default:
			rules = append(rules, rule("SCMP_ACT_ERRNO", "SCMP_CMP_EQ", v, fmt.Sprintf("no address family %d", v)))
		}
	}
	return append(rules, rule("SCMP_ACT_ERRNO", "SCMP_CMP_GT", top, fmt.Sprintf("no address family above %d", top)))
}

func sortedFlags() []string {
	names := make([]string, 0, len(NamespaceFlags))
	for n := range NamespaceFlags {
		names = append(names, n)
	}
	slices.SortFunc(names, func(a, b string) int { return int(NamespaceFlags[a]) - int(NamespaceFlags[b]) })
	return names
}
