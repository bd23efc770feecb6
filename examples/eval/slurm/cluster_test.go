package slurm_test

import (
	"crypto/rand"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// startCluster starts a Slurm cluster of one node in dir: munged with a key
// of its own, slurmctld and slurmd in the foreground on free ports, state
// under dir, no cgroups (ProctrackType=proctrack/linuxproc,
// TaskPlugin=task/none). It sets SLURM_CONF for the test, so sbatch and
// scontrol talk to it, and stops it all when the test ends: other tests,
// and other clusters like it, can run beside it.
func startCluster(t *testing.T, dir string) {
	t.Helper()
	for _, sub := range []string{"munge", "state", "spool", "log"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	key := filepath.Join(dir, "munge", "key")
	if err := os.WriteFile(key, []byte(rand.Text()+rand.Text()), 0o400); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "munge", "sock")
	daemon(t, dir, "munged", "--foreground", "--force", "--key-file="+key, "--socket="+sock,
		"--pid-file="+filepath.Join(dir, "munge", "pid"), "--seed-file="+filepath.Join(dir, "munge", "seed"),
		"--log-file="+filepath.Join(dir, "log", "munged.log"))
	waitFor(t, dir, "munged's socket", func() bool { _, err := os.Stat(sock); return err == nil })

	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	ports := freePorts(t, 2)
	conf := filepath.Join(dir, "slurm.conf")
	err = os.WriteFile(conf, fmt.Appendf(nil, `ClusterName=analysttest
SlurmctldHost=%[1]s(127.0.0.1)
SlurmctldPort=%[2]d
SlurmdPort=%[3]d
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=%[4]s
CredType=cred/munge
StateSaveLocation=%[5]s/state
SlurmdSpoolDir=%[5]s/spool
SlurmctldPidFile=%[5]s/slurmctld.pid
SlurmdPidFile=%[5]s/slurmd.pid
SlurmctldLogFile=%[5]s/log/slurmctld.log
SlurmdLogFile=%[5]s/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
ReturnToService=2
MinJobAge=600
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
NodeName=n1 NodeAddr=127.0.0.1 NodeHostname=%[1]s CPUs=2 RealMemory=8000 State=UNKNOWN
PartitionName=test Nodes=n1 Default=YES MaxTime=INFINITE State=UP
`, host, ports[0], ports[1], sock, dir), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("SLURM_CONF", conf)
	daemon(t, dir, "slurmctld", "-D", "-i", "-f", conf)
	daemon(t, dir, "slurmd", "-D", "-f", conf, "-N", "n1")
	// Jobs still running when the test ends (it failed) are cancelled
	// before the daemons stop (cleanups run last first).
	t.Cleanup(func() { _ = exec.Command("scancel", "--full", "--partition=test").Run() })
	waitFor(t, dir, "the node to be idle", func() bool {
		out, err := exec.Command("sinfo", "-h", "-o", "%t").Output()
		return err == nil && strings.TrimSpace(string(out)) == "idle"
	})
}

// daemon starts a daemon in the foreground and stops it when the test ends.
func daemon(t *testing.T, dir, name string, args ...string) {
	t.Helper()
	c := exec.Command(name, args...)
	log, err := os.Create(filepath.Join(dir, "log", name+".out"))
	if err != nil {
		t.Fatal(err)
	}
	c.Stdout, c.Stderr = log, log
	if err := c.Start(); err != nil {
		t.Fatalf("starting %s: %v", name, err)
	}
	t.Cleanup(func() {
		_ = c.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = c.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = c.Process.Kill()
			<-done
		}
		log.Close()
	})
}

// waitFor polls ok for up to a minute; it fails the test with the daemons'
// logs when ok stays false.
func waitFor(t *testing.T, dir, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(200 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("waited a minute for %s\n%s", what, logs(filepath.Join(dir, "log", "*")))
}
