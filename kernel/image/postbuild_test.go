package image

import (
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseDpkgStatus(t *testing.T) {
	const status = `Package: python3-minimal
Status: install ok installed
Priority: optional
Version: 3.11.2-1+b1
Description: minimal subset of the Python language (default python3 version)
 This package contains the interpreter and some essential modules.
 Version: 9.9 (a continuation line, not a field)

Package: removed-but-configs
Status: deinstall ok config-files
Version: 1.0

Package: half
Status: install ok half-configured
Version: 2.0

Package: libc6
Version: 2.36-9+deb12u10
Status: install ok installed
`
	got, err := parseDpkgStatus(strings.NewReader(status))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"python3-minimal": "3.11.2-1+b1", "libc6": "2.36-9+deb12u10"}
	if !maps.Equal(got, want) {
		t.Errorf("parseDpkgStatus = %v, want %v", got, want)
	}
}

func TestDebianVersionsMissingPackage(t *testing.T) {
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "var/lib/dpkg"), 0o755)
	os.WriteFile(filepath.Join(root, "var/lib/dpkg/status"), []byte("Package: a1\nStatus: install ok installed\nVersion: 1\n"), 0o644)
	if v, err := debianVersions(root, []string{"a1"}); err != nil || v["a1"] != "1" {
		t.Errorf("debianVersions(a1) = %v, %v", v, err)
	}
	if _, err := debianVersions(root, []string{"a1", "b2"}); err == nil || !strings.Contains(err.Error(), "not installed: b2") {
		t.Errorf("debianVersions with a missing package = %v, want 'not installed: b2'", err)
	}
}

func TestParseVersions(t *testing.T) {
	tests := []struct {
		out      string
		python   string
		packages map[string]string
		wantErr  bool
	}{
		{"python\t3.11.2\npackage\tpandas\t1.5.3\npackage\tscikit-learn\t1.2.1\n", "3.11.2",
			map[string]string{"pandas": "1.5.3", "scikit-learn": "1.2.1"}, false},
		{"python\t3.11.2\n", "3.11.2", map[string]string{}, false},
		{"some warning\npython\t3.11.2\r\n", "3.11.2", map[string]string{}, false},
		{"", "", nil, true},
	}
	for _, tt := range tests {
		py, pkgs, err := parseVersions(tt.out)
		if (err != nil) != tt.wantErr || py != tt.python || !maps.Equal(pkgs, tt.packages) {
			t.Errorf("parseVersions(%q) = %q, %v, %v", tt.out, py, pkgs, err)
		}
	}
}

// TestReplaceDoesNotFollowSymlinks: a tree's /etc/resolv.conf may be a
// symlink to an absolute path, which as root would be the host's file.
func TestReplaceDoesNotFollowSymlinks(t *testing.T) {
	root := t.TempDir()
	host := filepath.Join(t.TempDir(), "resolv.conf")
	os.WriteFile(host, []byte("nameserver 10.0.0.1\n"), 0o644)
	os.MkdirAll(filepath.Join(root, "etc"), 0o755)
	if err := os.Symlink(host, filepath.Join(root, "etc", "resolv.conf")); err != nil {
		t.Fatal(err)
	}
	err := replace(root, "/etc/resolv.conf", func(p string) error { return os.WriteFile(p, nil, 0o644) })
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(host); string(b) != "nameserver 10.0.0.1\n" {
		t.Errorf("host file changed: %q", b)
	}
	fi, err := os.Lstat(filepath.Join(root, "etc", "resolv.conf"))
	if err != nil || !fi.Mode().IsRegular() || fi.Size() != 0 {
		t.Errorf("resolv.conf in tree: %v, %v; want an empty regular file", fi, err)
	}
}

func TestMkdirIn(t *testing.T) {
	root := t.TempDir()
	if err := mkdirIn(root, "/tmp", os.ModeSticky|0o777); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(filepath.Join(root, "tmp")); fi.Mode()&os.ModeSticky == 0 || fi.Mode().Perm() != 0o777 {
		t.Errorf("/tmp mode = %v, want sticky 0777", fi.Mode())
	}
	if err := mkdirIn(root, "/usr/local/share/analyst/matplotlib", 0o755); err != nil {
		t.Fatal(err)
	}
	// A symlink where a folder should be could lead outside the tree.
	os.Symlink(t.TempDir(), filepath.Join(root, "data"))
	if err := mkdirIn(root, "/data", 0o755); err == nil {
		t.Error("mkdirIn accepted a symlink for /data")
	}
}

func TestAptClean(t *testing.T) {
	root := t.TempDir()
	files := map[string]bool{ // path -> kept
		"var/cache/apt/archives/python3_3.11.2_amd64.deb": false,
		"var/cache/apt/archives/lock":                     true,
		"var/cache/apt/archives/partial/x.deb":            false,
		"var/cache/apt/pkgcache.bin":                      false,
		"var/lib/apt/lists/deb.debian.org_Packages":       false,
		"var/lib/apt/lists/lock":                          true,
		"var/lib/dpkg/status":                             true,
	}
	for p := range files {
		os.MkdirAll(filepath.Join(root, filepath.Dir(p)), 0o755)
		os.WriteFile(filepath.Join(root, p), []byte("x"), 0o644)
	}
	os.MkdirAll(filepath.Join(root, "var/lib/apt/lists/partial"), 0o755)
	if err := aptClean(root); err != nil {
		t.Fatal(err)
	}
	for p, kept := range files {
		_, err := os.Stat(filepath.Join(root, p))
		if (err == nil) != kept {
			t.Errorf("%s: kept = %v, want %v", p, err == nil, kept)
		}
	}
	for _, d := range []string{"var/lib/apt/lists/partial", "var/cache/apt/archives/partial"} {
		if _, err := os.Stat(filepath.Join(root, d)); err != nil {
			t.Errorf("%s removed: apt expects it", d)
		}
	}
}
