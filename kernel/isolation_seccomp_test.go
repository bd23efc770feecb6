package kernel_test

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"unsafe"

	"golang.org/x/net/bpf"

	"github.com/analyst-cli/analyst/internal/hostpython"
	"github.com/analyst-cli/analyst/kernel"
	"github.com/analyst-cli/analyst/kernel/seccomp"
)

// syscallAttack runs in a fresh, single-threaded interpreter started by the
// cell (unshare(CLONE_NEWUSER) fails with EINVAL in a process with threads,
// whatever the sandbox does, so the driver itself proves nothing), each
// call in a child of its own. Each attempt is reported as "succeeded" or the
// errno's name. x86-64 syscall numbers.
const syscallAttack = `
import ctypes, errno, json, os, subprocess
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
NR = {"unshare": 272, "setns": 308, "clone": 56, "clone3": 435, "mount": 165, "umount2": 166,
      "pivot_root": 155, "keyctl": 250, "add_key": 248, "request_key": 249, "bpf": 321,
      "userfaultfd": 323, "perf_event_open": 298, "ptrace": 101, "process_vm_readv": 310,
      "fsopen": 430, "open_tree": 428, "io_uring_setup": 425}
FLAGS = {"CLONE_NEWNS": 0x00020000, "CLONE_NEWCGROUP": 0x02000000, "CLONE_NEWUTS": 0x04000000,
         "CLONE_NEWIPC": 0x08000000, "CLONE_NEWUSER": 0x10000000, "CLONE_NEWPID": 0x20000000,
         "CLONE_NEWNET": 0x40000000}
SIGCHLD = 17
res = {"calls": {}, "tools": {}}

spawned = []

def spawn():
    spawned.append(subprocess.Popen(["sleep", "30"]))
    return spawned[-1].pid

def call(label, name, *args):
    """Makes the syscall in a forked, single-threaded child, so what one
    attempt achieves (a new namespace) does not change the next."""
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(rfd)
        args = [a() if callable(a) else a for a in args]
        args = [ctypes.c_long(a) if isinstance(a, int) else a for a in args]
        ctypes.set_errno(0)
        r = libc.syscall(ctypes.c_long(NR[name]), *args)
        e = ctypes.get_errno()
        if name in ("clone", "clone3") and r == 0:
            os._exit(0)  # the grandchild, had the clone worked
        if name in ("clone", "clone3") and r > 0:
            os.waitpid(r, 0)
        for p in spawned:
            p.kill()
            p.wait()
        os.write(wfd, ("succeeded" if r != -1 else errno.errorcode.get(e, str(e))).encode())
        os._exit(0)
    os.close(wfd)
    out = os.read(rfd, 100).decode()
    os.close(rfd)
    os.waitpid(pid, 0)
    res["calls"][label] = out or "the child died"

for name, flag in FLAGS.items():
    call("unshare(%s)" % name, "unshare", flag)
    call("clone(%s)" % name, "clone", flag | SIGCHLD, 0, 0, 0, 0)
call("clone(CLONE_NEWUSER|CLONE_NEWNS)", "clone", FLAGS["CLONE_NEWUSER"] | FLAGS["CLONE_NEWNS"] | SIGCHLD, 0, 0, 0, 0)
# struct clone_args: flags, pidfd, child_tid, parent_tid, exit_signal, stack, stack_size, tls,
# set_tid, set_tid_size, cgroup
args = (ctypes.c_uint64 * 11)(FLAGS["CLONE_NEWUSER"], 0, 0, 0, SIGCHLD, 0, 0, 0, 0, 0, 0)
call("clone3(CLONE_NEWUSER)", "clone3", ctypes.byref(args), ctypes.sizeof(args))
call("setns(user)", "setns", lambda: os.open("/proc/self/ns/user", os.O_RDONLY), 0)
os.makedirs("/tmp/m", exist_ok=True)
call("mount(tmpfs)", "mount", ctypes.c_char_p(b"x"), ctypes.c_char_p(b"/tmp/m"), ctypes.c_char_p(b"tmpfs"), 0, None)
call("umount2(/tmp)", "umount2", ctypes.c_char_p(b"/tmp"), 0)
call("pivot_root", "pivot_root", ctypes.c_char_p(b"/tmp"), ctypes.c_char_p(b"/tmp/m"))
call("fsopen(tmpfs)", "fsopen", ctypes.c_char_p(b"tmpfs"), 0)
call("open_tree(/)", "open_tree", -100, ctypes.c_char_p(b"/"), 1)  # OPEN_TREE_CLONE
call("keyctl(get session keyring)", "keyctl", 0, -3, 0)
call("add_key", "add_key", ctypes.c_char_p(b"user"), ctypes.c_char_p(b"k"), ctypes.c_char_p(b"v"), 1, -2)
call("request_key", "request_key", ctypes.c_char_p(b"user"), ctypes.c_char_p(b"k"), None, 0)
call("bpf", "bpf", 0, None, 0)
call("userfaultfd", "userfaultfd", 0)
attr = (ctypes.c_uint8 * 128)()
call("perf_event_open", "perf_event_open", ctypes.byref(attr), 0, -1, -1, 0)
call("process_vm_readv(self)", "process_vm_readv", os.getpid(), None, 0, None, 0, 0)
call("ptrace(attach child)", "ptrace", 16, spawn, 0, 0)  # PTRACE_ATTACH
params = (ctypes.c_uint8 * 120)()
call("io_uring_setup", "io_uring_setup", 1, ctypes.byref(params))

# The attack of the issue, and its parts, with the image's own tools.
for cmd in ["unshare -rm sh -c 'mount -t tmpfs x /mnt && grep CapEff /proc/self/status'",
            "unshare -r true", "unshare -m true", "unshare -U true"]:
    p = subprocess.run(cmd, shell=True, capture_output=True, text=True)
    res["tools"][cmd] = [p.returncode, (p.stdout + p.stderr).strip()]
print(json.dumps(res))
`

// What still works under the profile: fork, subprocesses, threads, process
// pools, threaded BLAS. clone3 returns ENOSYS, so glibc must fall back to
// clone for threads and posix_spawn.
const syscallControl = `
import concurrent.futures, json, os, subprocess, threading
import numpy as np
res = {}
pid = os.fork()
if pid == 0:
    os._exit(7)
res["fork"] = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
res["subprocess"] = subprocess.run(["sh", "-c", "echo hi"], capture_output=True, text=True).stdout.strip()
done = []
threads = [threading.Thread(target=lambda i=i: done.append(sum(range(i * 1000)))) for i in range(8)]
for t in threads: t.start()
for t in threads: t.join()
res["threads"] = len(done)
with concurrent.futures.ProcessPoolExecutor(2) as ex:
    res["process pool"] = sorted(ex.map(abs, [-1, -2, -3]))
a = np.random.default_rng(0).random((400, 400))
res["numpy matmul"] = bool(np.allclose(a @ np.eye(400), a))
print(json.dumps(res))
`

func TestIsolationNoNestedNamespaces(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the attack uses x86-64 syscall numbers")
	}
	k := startKernel(t, nil)
	var res struct {
		Calls map[string]string
		Tools map[string][2]any
	}
	jsonCell(t, k, childPython(syscallAttack), &res)
	if len(res.Calls) < 25 {
		t.Fatalf("only %d attempts reported: %v", len(res.Calls), res.Calls)
	}
	for label, got := range res.Calls {
		want := "EPERM"
		switch label {
		case "clone3(CLONE_NEWUSER)":
			want = "ENOSYS" // so the C library falls back to clone, which is filtered
		case "io_uring_setup":
			want = "ENOSYS" // not in podman's default: the profile's defaultErrnoRet
		}
		if got != want {
			t.Errorf("%s from a child process: %s, want %s", label, got, want)
		}
	}
	for _, cmd := range []string{"unshare -rm sh -c 'mount -t tmpfs x /mnt && grep CapEff /proc/self/status'", "unshare -r true", "unshare -m true", "unshare -U true"} {
		got := res.Tools[cmd]
		if got[0] != float64(1) || got[1] != "unshare: unshare failed: Operation not permitted" {
			t.Errorf("%s: exit %v, output %q; want exit 1 and \"unshare: unshare failed: Operation not permitted\"", cmd, got[0], got[1])
		}
	}

	var ok map[string]any
	jsonCell(t, k, childPython(syscallControl), &ok)
	want := map[string]any{"fork": 7.0, "subprocess": "hi", "threads": 8.0, "process pool": []any{1.0, 2.0, 3.0}, "numpy matmul": true}
	if !reflect.DeepEqual(ok, want) {
		t.Errorf("under the profile: %v, want %v", ok, want)
	}
}

// childPython is a cell that runs script in a fresh python3 and prints its
// stdout.
func childPython(script string) string {
	quoted, _ := json.Marshal(script)
	return "import subprocess\nr = subprocess.run(['python3', '-c', " + string(quoted) + "], capture_output=True, text=True)\nassert r.returncode == 0, r.stderr\nprint(r.stdout)"
}

// socketAttack creates a socket of every address family from 0 to past
// AF_MAX (46 in Linux 6.x), of each type, with libc's socket() so Python
// checks nothing first; then socketpair. Sockets are created, never
// connected. Each outcome is "succeeded" or the errno's name. The 32-bit
// calls are int80Attack's.
const socketAttack = `
import ctypes, errno, json, os
libc = ctypes.CDLL(None, use_errno=True)
TYPES = {"stream": 1, "dgram": 2, "raw": 3, "seqpacket": 5}
res = {"socket": {}, "socketpair": {}, "netlink": {}, "needed": {}}

def outcome(r):
    e = ctypes.get_errno()
    return "succeeded" if r >= 0 else errno.errorcode.get(e, str(e))

for family in list(range(64)) + [255, 1000, 2**31 - 1]:
    for tname, t in TYPES.items():
        ctypes.set_errno(0)
        fd = libc.socket(family, t, 0)
        res["socket"]["%d/%s" % (family, tname)] = outcome(fd)
        if fd >= 0:
            libc.close(fd)
    pair = (ctypes.c_int * 2)()
    ctypes.set_errno(0)
    r = libc.socketpair(family, 1, 0, pair)
    res["socketpair"][str(family)] = outcome(r)
    if r == 0:
        libc.close(pair[0]); libc.close(pair[1])

# AF_NETLINK: NETLINK_ROUTE (0) only; audit, sock_diag, netfilter,
# uevents, generic are refused.
for proto in (4, 9, 12, 15, 16):
    ctypes.set_errno(0)
    fd = libc.socket(16, 3, proto)
    res["netlink"][str(proto)] = outcome(fd)
    if fd >= 0:
        libc.close(fd)
# What needs NETLINK_ROUTE: getifaddrs, and ZeroMQ naming an interface
# (ipykernel and nbconvert abort without it).
try:
    import socket, zmq
    res["needed"]["if_nameindex"] = str(socket.if_nameindex())
    z = zmq.Context().socket(zmq.REP)
    z.bind_to_random_port("tcp://lo")
    z.close(0)
    res["needed"]["zmq bind tcp://lo"] = "ok"
except Exception as e:
    res["needed"]["error"] = "%s: %s" % (type(e).__name__, e)

print(json.dumps(res))
`

// Only local and IP sockets, and netlink's NETLINK_ROUTE, can be made in
// the sandbox: vsock (the hypervisor's transport on a virtual machine host),
// packet, other netlink protocols, bluetooth, alg and every other family
// fail with EAFNOSUPPORT, from a fresh single-threaded process;
// getifaddrs and ZeroMQ still work. The 32-bit ABI, which would reach
// socketcall and socket by other numbers, is TestIsolation32BitCalls's.
func TestIsolationSocketFamilies(t *testing.T) {
	k := startKernel(t, nil)
	var res struct {
		Socket, Socketpair, Netlink, Needed map[string]string
	}
	jsonCell(t, k, childPython(socketAttack), &res)
	if len(res.Socket) < 64*4 || len(res.Socketpair) < 64 {
		t.Fatalf("only %d socket and %d socketpair attempts reported", len(res.Socket), len(res.Socketpair))
	}
	allowed := map[string]bool{"1": true, "2": true, "10": true, "16": true} // 16: NETLINK_ROUTE only
	for label, got := range res.Socket {
		family, typ, _ := strings.Cut(label, "/")
		switch {
		case !allowed[family] && got != "EAFNOSUPPORT":
			t.Errorf("socket(family %s, %s) from a child process: %s, want EAFNOSUPPORT", family, typ, got)
		case allowed[family] && (typ == "dgram" || (typ == "stream" && family != "16")) && got != "succeeded":
			t.Errorf("socket(family %s, %s): %s, want it to work", family, typ, got)
		}
	}
	for proto, got := range res.Netlink {
		if got != "EAFNOSUPPORT" {
			t.Errorf("socket(AF_NETLINK, SOCK_RAW, protocol %s): %s, want EAFNOSUPPORT (NETLINK_ROUTE only)", proto, got)
		}
	}
	if len(res.Netlink) != 5 || res.Needed["if_nameindex"] != "[(1, 'lo')]" || res.Needed["zmq bind tcp://lo"] != "ok" {
		t.Errorf("netlink: %v; what needs NETLINK_ROUTE: %v", res.Netlink, res.Needed)
	}
	for family, got := range res.Socketpair {
		want := "EAFNOSUPPORT"
		switch family {
		case "1":
			want = "succeeded"
		case "2", "10":
			want = "ENOTSUP" // EOPNOTSUPP, the kernel's answer: IP has no socket pairs
		case "16":
			want = "ESOCKTNOSUPPORT" // the kernel's answer: netlink has no stream sockets
		}
		if got != want {
			t.Errorf("socketpair(family %s): %s, want %s", family, got, want)
		}
	}
}

// int80Attack makes 32-bit system calls from a 64-bit process with
// int 0x80, each in a forked child: getpid (harmless, the probe of whether
// the ABI is there at all), socket(AF_NETLINK, ...), socket(AF_VSOCK, ...)
// and socketcall(SYS_SOCKET, ...) with its arguments in the low 4 GiB.
// Each outcome is "succeeded", an errno's name, or the signal that killed
// the child ("SIGSEGV" where the running kernel has no 32-bit ABI).
const int80Attack = `
import ctypes, errno, json, mmap, os, signal

def int80(nr, a, b, c):
    # mov eax, NR; mov ebx, A; mov ecx, B; mov edx, C; int 0x80; ret
    code = b"\xb8" + nr.to_bytes(4, "little") + b"\xbb" + a.to_bytes(4, "little") + \
           b"\xb9" + b.to_bytes(4, "little") + b"\xba" + c.to_bytes(4, "little") + b"\xcd\x80\xc3"
    m = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    m.write(code)
    fn = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(m)))
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:
        r = fn()
        os.write(wfd, ("succeeded" if r >= 0 else errno.errorcode.get(-r, str(-r))).encode())
        os._exit(0)
    os.close(wfd)
    out = os.read(rfd, 100).decode()
    os.close(rfd)
    _, status = os.waitpid(pid, 0)
    if os.WIFSIGNALED(status):
        return signal.Signals(os.WTERMSIG(status)).name
    return out or "the child wrote nothing"

res = {"getpid": int80(20, 0, 0, 0)}
buf = mmap.mmap(-1, 4096, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS | 0x40)  # MAP_32BIT
args = (ctypes.c_uint32 * 3).from_buffer(buf)
for family in (16, 40):
    args[0], args[1], args[2] = family, 2 if family == 16 else 1, 0
    res["socket(%d)" % family] = int80(359, family, args[1], 0)
    res["socketcall(SYS_SOCKET, %d)" % family] = int80(102, 1, ctypes.addressof(args), 0)
print(json.dumps(res))
`

// The sandbox refuses the 32-bit and x32 ABIs whole (seccomp.NativeOnly).
// Two checks, because hosts differ: the kernel process's own seccomp
// filter, read from the host (as root) and run on a system call of each
// ABI, refuses every foreign-ABI call, even getpid, whatever the running
// kernel supports; and each 32-bit call made with int 0x80 from a child
// process of a cell is refused where the same getpid succeeds on the host.
// A host without 32-bit calls (int 0x80 faults there too) can check only
// the first, and the test says which ran.
func TestIsolation32BitCalls(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the attack is x86-64 machine code; this host is " + runtime.GOARCH)
	}
	k := startKernel(t, nil)
	filterRead := checkFilterRefusesCompatABIs(t, k)

	var host map[string]string
	if err := json.Unmarshal(hostpython.Run(t, nil, "-c", int80Attack), &host); err != nil {
		t.Fatalf("the probe on the host: %v", err)
	}
	var sandbox map[string]string
	jsonCell(t, k, childPython(int80Attack), &sandbox)
	if len(sandbox) != 5 {
		t.Fatalf("32-bit calls in the sandbox: %v", sandbox)
	}
	hostHas32 := host["getpid"] == "succeeded"
	t.Logf("this host's kernel %s 32-bit system calls (int 0x80 getpid on the host: %s)",
		map[bool]string{true: "has", false: "has no"}[hostHas32], host["getpid"])
	for call, got := range sandbox {
		switch {
		case !hostHas32 && got == host["getpid"]:
			t.Logf("%s through int 0x80 in the sandbox: %s, as on the host", call, got)
		case hostHas32 && refused32[got]:
			t.Logf("%s through int 0x80 in the sandbox: %s", call, got)
		default:
			t.Errorf("%s through int 0x80 in the sandbox: %s, want it refused (SIGSYS or ENOSYS) on a host where getpid gives %s",
				call, got, host["getpid"])
		}
	}
	if !hostHas32 && !filterRead {
		t.Skip("neither check could run here: this host has no 32-bit system calls, and reading the filter needs root (the rootful run reads it)")
	}
}

// refused32 are the outcomes of a call from a foreign ABI under the
// profile: the runtime's action for an architecture the filter does not
// list (runc's kills the thread: SIGSYS; ENOSYS is the other usual one).
var refused32 = map[string]bool{"ENOSYS": true, "SIGSYS": true}

// checkFilterRefusesCompatABIs reads the seccomp filters of k's process
// from the host and runs them, as the kernel would, on one system call of
// each ABI: native calls keep the profile's verdicts (getpid allowed,
// AF_VSOCK refused with EAFNOSUPPORT), every i386 and x32 call is refused.
// Reading another process's filter needs CAP_SYS_ADMIN: rootless, the
// test says it could not, and false is returned.
func checkFilterRefusesCompatABIs(t *testing.T, k *kernel.Kernel) bool {
	out, err := exec.Command("podman", "inspect", "--format", "{{.State.Pid}}", k.Name()).Output()
	if err != nil {
		t.Fatalf("podman inspect: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil {
		t.Fatalf("the kernel's pid %q: %v", out, err)
	}
	filters, err := seccompFilters(pid)
	if errors.Is(err, syscall.EPERM) || errors.Is(err, syscall.EACCES) {
		t.Logf("the kernel's seccomp filter could not be read (%v): reading it needs root", err)
		return false
	}
	if err != nil || len(filters) == 0 {
		t.Fatalf("reading the kernel's seccomp filters: %d filters, %v", len(filters), err)
	}
	const (
		archX8664, archI386 = 0xc000003e, 0x40000003
		x32Bit              = 0x40000000
		allow               = 0x7fff0000
		errnoAction         = 0x00050000
	)
	for _, c := range []struct {
		name     string
		arch, nr uint32
		args     []uint64
		want     func(action uint32) bool
	}{
		{"x86-64 getpid", archX8664, 39, nil, func(a uint32) bool { return a == allow }},
		{"x86-64 socket(AF_VSOCK)", archX8664, 41, []uint64{40, 1}, func(a uint32) bool { return a == errnoAction|seccomp.EAFNOSUPPORT }},
		{"i386 getpid", archI386, 20, nil, refusedAction},
		{"i386 socket(AF_NETLINK)", archI386, 359, []uint64{16, 2}, refusedAction},
		{"i386 socketcall(SYS_SOCKET)", archI386, 102, []uint64{1, 0x1000}, refusedAction},
		{"x32 getpid", archX8664, 39 | x32Bit, nil, refusedAction},
	} {
		action, err := runSeccomp(filters, c.arch, c.nr, c.args)
		if err != nil {
			t.Fatalf("%s: running the filter: %v", c.name, err)
		}
		if !c.want(action) {
			t.Errorf("%s: the kernel's seccomp filter returns %#08x", c.name, action)
		} else {
			t.Logf("%s: the kernel's seccomp filter returns %#08x", c.name, action)
		}
	}
	return true
}

// refusedAction: kill the process or thread, trap, or an errno; never
// allow, log, trace or notify.
func refusedAction(a uint32) bool {
	switch a & 0xffff0000 {
	case 0x80000000, 0, 0x00030000, 0x00050000:
		return true
	}
	return false
}

// seccompFilters reads the classic BPF seccomp filters of process pid,
// newest first: attached and stopped with ptrace, which
// PTRACE_SECCOMP_GET_FILTER requires, then let go.
func seccompFilters(pid int) ([][]bpf.RawInstruction, error) {
	const ptraceSeccompGetFilter = 0x420c
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := syscall.PtraceAttach(pid); err != nil {
		return nil, fmt.Errorf("PTRACE_ATTACH: %w", err)
	}
	defer syscall.PtraceDetach(pid)
	var ws syscall.WaitStatus
	if _, err := syscall.Wait4(pid, &ws, syscall.WALL, nil); err != nil {
		return nil, fmt.Errorf("waiting for the stop: %w", err)
	}
	var filters [][]bpf.RawInstruction
	for i := 0; ; i++ {
		n, _, errno := syscall.Syscall6(syscall.SYS_PTRACE, ptraceSeccompGetFilter, uintptr(pid), uintptr(i), 0, 0, 0)
		if errno == syscall.ENOENT {
			return filters, nil
		}
		if errno != 0 {
			return nil, fmt.Errorf("PTRACE_SECCOMP_GET_FILTER %d: %w", i, errno)
		}
		prog := make([]bpf.RawInstruction, n) // the layout of struct sock_filter
		if _, _, errno := syscall.Syscall6(syscall.SYS_PTRACE, ptraceSeccompGetFilter, uintptr(pid), uintptr(i),
			uintptr(unsafe.Pointer(&prog[0])), 0, 0); errno != 0 {
			return nil, fmt.Errorf("PTRACE_SECCOMP_GET_FILTER %d: %w", i, errno)
		}
		filters = append(filters, prog)
	}
}

// runSeccomp runs every filter on one system call, as the kernel does, and
// returns the action that takes precedence (the lowest as a signed number).
// The VM loads big-endian words, so each 32-bit field of seccomp_data is
// written big-endian where the kernel's little-endian layout puts it.
func runSeccomp(filters [][]bpf.RawInstruction, arch, nr uint32, args []uint64) (uint32, error) {
	data := make([]byte, 64) // nr, arch, instruction_pointer, args[6]
	binary.BigEndian.PutUint32(data[0:], nr)
	binary.BigEndian.PutUint32(data[4:], arch)
	for i, a := range args {
		binary.BigEndian.PutUint32(data[16+8*i:], uint32(a))
		binary.BigEndian.PutUint32(data[20+8*i:], uint32(a>>32))
	}
	result := uint32(0x7fff0000)
	for _, raw := range filters {
		prog, ok := bpf.Disassemble(raw)
		if !ok {
			return 0, errors.New("a filter holds an instruction the VM cannot run")
		}
		vm, err := bpf.NewVM(prog)
		if err != nil {
			return 0, err
		}
		r, err := vm.Run(data)
		if err != nil {
			return 0, err
		}
		if int32(uint32(r)&0xffff0000) < int32(result&0xffff0000) {
			result = uint32(r)
		}
	}
	return result, nil
}

// /proc/cmdline would show the host's boot line (root device, kernel
// options): it is masked, and reads as empty.
func TestIsolationProcCmdlineMasked(t *testing.T) {
	host, err := os.ReadFile("/proc/cmdline")
	if err != nil || len(strings.TrimSpace(string(host))) == 0 {
		t.Fatalf("the host's /proc/cmdline: %q, %v", host, err)
	}
	k := startKernel(t, nil)
	code := childPython(`
try:
    print(repr(open("/proc/cmdline").read()))
except OSError as e:
    print(type(e).__name__)
`)
	got := strings.TrimSpace(mustOK(t, k, code).Stdout())
	if got != "''" && got != "PermissionError" {
		t.Errorf("/proc/cmdline in the sandbox reads %s; want it empty (masked); the host's is %q", got, strings.TrimSpace(string(host)))
	}
}
