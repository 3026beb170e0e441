package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestGenerated fails while ../zz_crd_defaults.go is not what the CRDs of the required modules
// give (after a version bump: go run ./internal/jobs/crdgen).
func TestGenerated(t *testing.T) {
	want, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join("..", "zz_crd_defaults.go"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("internal/jobs/zz_crd_defaults.go is stale: run `go run ./internal/jobs/crdgen` in tools/kueue-oracle")
	}
}
