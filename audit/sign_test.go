package audit_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/analyst-cli/analyst/audit"
)

// keygen makes an ed25519 key without a passphrase and an allowed-signers
// file naming it for principal.
func keygen(t *testing.T, dir, name, principal string) (key, allowed string) {
	t.Helper()
	key = filepath.Join(dir, name)
	if out, err := exec.Command("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", principal, "-f", key).CombinedOutput(); err != nil {
		t.Fatalf("ssh-keygen: %v\n%s", err, out)
	}
	pub, err := os.ReadFile(key + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	allowed = filepath.Join(dir, name+".allowed")
	if err := os.WriteFile(allowed, []byte(principal+" "+string(pub)), 0o644); err != nil {
		t.Fatal(err)
	}
	return key, allowed
}

// Signatures are ssh-keygen's: a good one passes, and a changed run.json, a
// signer not allowed, a signature of another namespace and a missing
// signature each fail with what is wrong.
func TestSignAndCheck(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	key, allowed := keygen(t, dir, "auditor", "auditor@example.com")
	_, otherAllowed := keygen(t, dir, "other", "other@example.com")
	manifest := filepath.Join(dir, "sales.run.json")
	body := `{"files": {"sales.ipynb": "ab"}, "data": {"sha256": "cd"}}` + "\n"
	os.WriteFile(manifest, []byte(body), 0o644)
	run := &audit.Run{Manifest: manifest, Dir: dir}

	if c := audit.CheckSignature(ctx, run, allowed); c.OK || !strings.Contains(c.Message, "no signature: "+manifest+".sig is missing") {
		t.Errorf("unsigned: %+v", c)
	}
	if err := audit.Sign(ctx, manifest, key); err != nil {
		t.Fatal(err)
	}
	if c := audit.CheckSignature(ctx, run, allowed); !c.OK || c.Principal != "auditor@example.com" {
		t.Errorf("good signature: %+v", c)
	}
	if c := audit.CheckSignature(ctx, run, otherAllowed); c.OK || !strings.Contains(c.Message, "the signer is not in "+otherAllowed) {
		t.Errorf("signer not allowed: %+v", c)
	}
	os.WriteFile(manifest, []byte(strings.Replace(body, `"cd"`, `"ce"`, 1)), 0o644)
	if c := audit.CheckSignature(ctx, run, allowed); c.OK || !strings.Contains(c.Message, "BAD signature") || !strings.Contains(c.Message, "ssh-keygen -Y verify") {
		t.Errorf("changed run.json: %+v", c)
	}
	// A signature made for git is not one for a run.
	os.WriteFile(manifest, []byte(body), 0o644)
	os.Remove(manifest + ".sig")
	if out, err := exec.Command("ssh-keygen", "-q", "-Y", "sign", "-f", key, "-n", "git", manifest).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if c := audit.CheckSignature(ctx, run, allowed); c.OK || !strings.Contains(c.Message, "BAD signature") {
		t.Errorf("git namespace: %+v", c)
	}
	// A bad key is an error naming the command.
	if err := audit.Sign(ctx, manifest, filepath.Join(dir, "nosuch")); err == nil || !strings.Contains(err.Error(), "ssh-keygen -q -Y sign -f "+filepath.Join(dir, "nosuch")) {
		t.Errorf("missing key: %v", err)
	}
}
