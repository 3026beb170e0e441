// Command kubeup starts etcd and kube-apiserver on 127.0.0.1 for kadmit's tests, writes a kubeconfig
// whose user is in system:masters, and installs the CRDs listed in crds/crds.txt. The `up` script
// builds it and calls it; `down` stops what it started, by the pid files it writes.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// exitUsage is the exit code for unusable input (a DIR already up, a bad flag); 1 is a failed start.
const exitUsage = 2

type options struct {
	dir         string // the instance's folder: bin/, pki/, logs/, etcd/, run/, kubeconfig
	binDir      string // the built etcd, kube-apiserver and kubectl
	crdsModule  string // the folder of crds/go.mod and crds/crds.txt
	oracleGoMod string // tools/kueue-oracle/go.mod: the Kueue version the project pins
	timeout     time.Duration
	noCRDs      bool
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func main() {
	var o options
	flag.StringVar(&o.dir, "dir", "", "the instance's folder")
	flag.StringVar(&o.binDir, "bin", "", "folder of the built etcd, kube-apiserver and kubectl")
	flag.StringVar(&o.crdsModule, "crds", "", "folder of the CRD modules' go.mod and crds.txt")
	flag.StringVar(&o.oracleGoMod, "kueue-gomod", "", "go.mod that pins sigs.k8s.io/kueue")
	flag.DurationVar(&o.timeout, "timeout", 5*time.Minute, "how long to wait for the server and the CRDs")
	flag.BoolVar(&o.noCRDs, "no-crds", false, "install no CRD")
	flag.Parse()
	if o.dir == "" || o.binDir == "" || o.crdsModule == "" || o.oracleGoMod == "" || flag.NArg() != 0 {
		fmt.Fprintln(os.Stderr, "kubeup: usage: kubeup -dir DIR -bin BIN -crds CRDS -kueue-gomod GOMOD")
		os.Exit(exitUsage)
	}
	if err := run(o); err != nil {
		fmt.Fprintf(os.Stderr, "up: %v\n", err)
		var ue usageError
		if errors.As(err, &ue) {
			os.Exit(exitUsage)
		}
		os.Exit(1)
	}
}

func run(o options) error {
	dir, err := filepath.Abs(o.dir)
	if err != nil {
		return err
	}
	if err := claim(dir); err != nil {
		return err
	}
	// Interrupted (^C, a test's timeout): stop what was started, as a failed start does.
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		sig := <-signals
		stopAll(dir)
		fmt.Fprintf(os.Stderr, "up: %v: stopped what had started\n", sig)
		os.Exit(1)
	}()
	var crds []crdFile
	if !o.noCRDs {
		if crds, err = resolveCRDs(o.crdsModule, o.oracleGoMod); err != nil {
			return err
		}
		fmt.Printf("up: %d CRDs from %d modules\n", len(crds), countModules(crds))
	}
	for _, sub := range []string{"bin", "pki", "logs", "etcd", "run"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o700); err != nil {
			return err
		}
	}
	for _, name := range []string{"etcd", "kube-apiserver", "kubectl"} {
		if err := linkOrCopy(filepath.Join(o.binDir, name), filepath.Join(dir, "bin", name)); err != nil {
			return err
		}
	}
	pki, err := writePKI(filepath.Join(dir, "pki"))
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	started := time.Now()
	srv, err := startServers(ctx, dir, pki)
	if err != nil {
		stopAll(dir)
		return err
	}
	fmt.Printf("up: etcd at %s, kube-apiserver at %s answered in %.1fs\n", srv.etcdURL, srv.apiURL, time.Since(started).Seconds())
	if err := writeKubeconfig(filepath.Join(dir, "kubeconfig"), srv.apiURL, pki); err != nil {
		stopAll(dir)
		return err
	}
	if err := installCRDs(ctx, srv.restConfig, crds); err != nil {
		stopAll(dir)
		return fmt.Errorf("%w (logs in %s)", err, filepath.Join(dir, "logs"))
	}
	fmt.Printf("up: %d CRDs established after %.1fs\n", len(crds), time.Since(started).Seconds())
	return nil
}

// claim refuses a DIR whose servers still run, and clears what a stopped one left behind: an instance
// starts from an empty etcd, so the same DIR given twice never mixes two runs' objects.
func claim(dir string) error {
	live, err := livePids(filepath.Join(dir, "run"))
	if err != nil {
		return err
	}
	if len(live) > 0 {
		return usageError{fmt.Sprintf("%s is already up (%s): run `down %s` first", dir, strings.Join(live, ", "), dir)}
	}
	for _, sub := range []string{"run", "etcd", "pki", "logs", "bin", "kubeconfig"} {
		if err := os.RemoveAll(filepath.Join(dir, sub)); err != nil {
			return err
		}
	}
	return nil
}

func linkOrCopy(src, dst string) error {
	if _, err := os.Stat(src); err != nil {
		return fmt.Errorf("the build has no %s: %w", filepath.Base(src), err)
	}
	if err := os.Link(src, dst); err == nil {
		return nil
	}
	data, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	return os.WriteFile(dst, data, 0o755)
}
