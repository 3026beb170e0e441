package main

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// TestGenerated fails while ../zz_crd_schemas.go does not hold what the CRDs of the required modules
// give (after a version bump: go run ./internal/jobs/crdgen). It compares the JSON, not the file's bytes:
// gzip's output may differ between Go releases.
func TestGenerated(t *testing.T) {
	want, err := Entries()
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join("..", File))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^const crdSchemas = (".*")$`).FindSubmatch(text)
	if m == nil {
		t.Fatalf("internal/jobs/%s holds no crdSchemas constant", File)
	}
	quoted, err := strconv.Unquote(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	z, err := base64.StdEncoding.DecodeString(quoted)
	if err != nil {
		t.Fatal(err)
	}
	r, err := gzip.NewReader(bytes.NewReader(z))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("internal/jobs/%s is stale: run `go run ./internal/jobs/crdgen` in tools/kueue-oracle", File)
	}
}
