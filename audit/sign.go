package audit

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/analyst-cli/analyst/internal/atomicfile"
	"github.com/analyst-cli/analyst/internal/command"
)

// SignatureNamespace is the ssh-keygen -Y namespace of run signatures, so a
// signature made for git or anything else never passes for a run.
const SignatureNamespace = "analyst"

const signTimeout = time.Minute

// SignatureCheck is run.json's signature checked against allowed signers.
type SignatureCheck struct {
	OK        bool   `json:"ok"`
	Principal string `json:"principal,omitempty"`
	Message   string `json:"message"`
}

// SignaturePath is where a run's signature is: NAME.run.json.sig.
func SignaturePath(manifest string) string { return manifest + ".sig" }

// Sign signs run.json with an SSH private key (ssh-keygen -Y sign, the way
// git signs commits with SSH keys) into NAME.run.json.sig. run.json holds
// the sha256 of every file of the run and of its data, so the signature
// covers them all.
func Sign(ctx context.Context, manifest, key string) error {
	f, err := os.Open(manifest)
	if err != nil {
		return fmt.Errorf("signing the run: %w", err)
	}
	defer f.Close()
	sig, err := command.Exec{Stdin: f, Timeout: signTimeout}.Run(ctx, "ssh-keygen", "-q", "-Y", "sign", "-f", key, "-n", SignatureNamespace)
	if err != nil {
		return fmt.Errorf("signing %s: %w", manifest, err)
	}
	return atomicfile.WriteFile(SignaturePath(manifest), sig)
}

// CheckSignature checks NAME.run.json.sig against an allowed-signers file
// (ssh-keygen's format: "principal key-type key" per line): the signer must
// be listed there, and run.json unchanged since it was signed.
func CheckSignature(ctx context.Context, run *Run, allowedSigners string) *SignatureCheck {
	sigPath := SignaturePath(run.Manifest)
	if _, err := os.Stat(sigPath); errors.Is(err, fs.ErrNotExist) {
		return &SignatureCheck{Message: "no signature: " + sigPath + " is missing (sign runs with analyst run --sign KEY)"}
	}
	out, err := command.Exec{Timeout: signTimeout}.Run(ctx, "ssh-keygen", "-Y", "find-principals", "-s", sigPath, "-f", allowedSigners)
	if err != nil {
		return &SignatureCheck{Message: "the signer is not in " + allowedSigners + ": " + err.Error()}
	}
	principal, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	f, err := os.Open(run.Manifest)
	if err != nil {
		return &SignatureCheck{Message: err.Error()}
	}
	defer f.Close()
	if _, err := (command.Exec{Stdin: f, Timeout: signTimeout}).Run(ctx, "ssh-keygen", "-Y", "verify",
		"-f", allowedSigners, "-I", principal, "-n", SignatureNamespace, "-s", sigPath); err != nil {
		return &SignatureCheck{Principal: principal, Message: "BAD signature: run.json was changed after it was signed, or the signature is not for it: " + err.Error()}
	}
	return &SignatureCheck{OK: true, Principal: principal, Message: fmt.Sprintf("good signature by %s (namespace %s)", principal, SignatureNamespace)}
}
