package input

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRefusal: what kadmit refuses with exit 2 the oracle refuses too (admit.go exits 2 on it).
func TestRefusal(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	rf := write("rf.yaml", "apiVersion: kueue.x-k8s.io/v1beta2\nkind: ResourceFlavor\nmetadata: {name: f}\n")
	binary := write("bin.yaml", "\x00\x01\x02\x03 binary")
	broken := write("bad.yaml", "a: [\n")
	seq := write("seq.yaml", "- a\n- b\n")
	policy := write("p/policy.kad", "queue q\n")
	empty := filepath.Join(dir, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		paths []string
		read  int
		want  string // a part of the refusal; "" for none
	}{
		{[]string{rf}, 1, ""},
		{[]string{rf, empty}, 1, ""},
		{[]string{empty}, 0, "no .kad, .yaml, .yml or .json files in " + empty},
		{[]string{binary, rf}, 1, "control characters are not allowed"},
		{[]string{broken}, 0, "bad.yaml (document 0)"},
		{[]string{seq}, 0, "a document must be a Kubernetes object"},
		{[]string{rf, filepath.Dir(policy)}, 1, ""},
		{[]string{filepath.Dir(policy)}, 0, "nothing to decide"},
	} {
		files, err := Files(c.paths)
		if err != nil {
			t.Fatal(err)
		}
		_, problems := Read(files)
		got := Refusal(c.paths, files, problems, c.read)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("Refusal(%v) = %q, want %q", c.paths, got, c.want)
		}
	}
}
