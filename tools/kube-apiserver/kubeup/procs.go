package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	"k8s.io/client-go/rest"
)

type servers struct {
	etcdURL    string
	apiURL     string
	restConfig *rest.Config
}

// A port taken by someone else between freePort and the server's bind fails the start: try again.
const startAttempts = 3

func startServers(ctx context.Context, dir string, pki *pki) (*servers, error) {
	var lastErr error
	for attempt := 1; attempt <= startAttempts; attempt++ {
		srv, err := startOnce(ctx, dir, pki)
		if err == nil {
			return srv, nil
		}
		lastErr = err
		stopAll(dir)
		if ctx.Err() != nil || !strings.Contains(err.Error(), "address already in use") {
			break
		}
		fmt.Printf("up: a port was taken (%v), trying again\n", err)
		if err := os.RemoveAll(filepath.Join(dir, "etcd")); err != nil {
			return nil, err
		}
	}
	return nil, lastErr
}

func startOnce(ctx context.Context, dir string, pki *pki) (*servers, error) {
	ports, err := freePorts(3)
	if err != nil {
		return nil, err
	}
	clientURL := fmt.Sprintf("http://127.0.0.1:%d", ports[0])
	peerURL := fmt.Sprintf("http://127.0.0.1:%d", ports[1])
	etcd, err := start(dir, "etcd",
		"--name=default",
		"--data-dir="+filepath.Join(dir, "etcd"),
		"--listen-client-urls="+clientURL,
		"--advertise-client-urls="+clientURL,
		"--listen-peer-urls="+peerURL,
		"--initial-advertise-peer-urls="+peerURL,
		"--initial-cluster=default="+peerURL,
		"--unsafe-no-fsync=true",
	)
	if err != nil {
		return nil, err
	}
	if err := waitHealthy(ctx, etcd, &http.Client{Timeout: 5 * time.Second}, clientURL+"/health", `"health":"true"`); err != nil {
		return nil, err
	}
	apiURL := fmt.Sprintf("https://127.0.0.1:%d", ports[2])
	api, err := start(dir, "kube-apiserver",
		"--etcd-servers="+clientURL,
		"--bind-address=127.0.0.1",
		"--advertise-address=127.0.0.1",
		fmt.Sprintf("--secure-port=%d", ports[2]),
		"--cert-dir="+pki.dir,
		"--tls-cert-file="+pki.servingCert,
		"--tls-private-key-file="+pki.servingKey,
		"--client-ca-file="+pki.clientCACert,
		"--service-account-issuer="+apiURL+"/",
		"--service-account-key-file="+pki.saPublic,
		"--service-account-signing-key-file="+pki.saKey,
		"--service-cluster-ip-range=10.0.0.0/24",
		"--allow-privileged=true",
		// No controller-manager runs: nothing would create the service accounts pods name.
		"--disable-admission-plugins=ServiceAccount",
		"--authorization-mode=RBAC",
		// The `kubernetes` Service's endpoint would be 127.0.0.1, which Endpoints refuse (loopback):
		// keeping it in sync only logs that error every 10 s.
		"--endpoint-reconciler-type=none",
	)
	if err != nil {
		return nil, err
	}
	cfg := &rest.Config{
		Host: apiURL,
		TLSClientConfig: rest.TLSClientConfig{
			CAData:   pki.servingCAPEM,
			CertData: pki.clientCertPEM,
			KeyData:  pki.clientKeyPEM,
		},
		QPS:   100,
		Burst: 200,
	}
	client, err := httpsClient(pki)
	if err != nil {
		return nil, err
	}
	if err := waitHealthy(ctx, api, client, apiURL+"/readyz", "ok"); err != nil {
		return nil, err
	}
	return &servers{etcdURL: clientURL, apiURL: apiURL, restConfig: cfg}, nil
}

func httpsClient(pki *pki) (*http.Client, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pki.servingCAPEM) {
		return nil, fmt.Errorf("the serving CA does not parse")
	}
	cert, err := tls.X509KeyPair(pki.clientCertPEM, pki.clientKeyPEM)
	if err != nil {
		return nil, err
	}
	tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}}}
	return &http.Client{Transport: tr, Timeout: 5 * time.Second}, nil
}

func freePorts(n int) ([]int, error) {
	var ports []int
	var listeners []net.Listener
	defer func() {
		for _, l := range listeners {
			l.Close()
		}
	}()
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// process is a server started by start: its pid file is DIR/run/NAME.pid.
type process struct {
	name string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

// start runs DIR/bin/NAME in a session of its own (so the caller's terminal signals and exit don't
// reach it), its output in DIR/logs/NAME.log, and writes "PID STARTTIME" to DIR/run/NAME.pid: `down`
// signals the pid only while /proc still shows that start time, so a reused pid is never hit.
func start(dir, name string, args ...string) (*process, error) {
	logPath := filepath.Join(dir, "logs", name+".log")
	logFile, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	cmd := exec.Command(filepath.Join(dir, "bin", name), args...)
	cmd.Dir = dir
	cmd.Stdout = logFile
	cmd.Stderr = logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	startTime, err := procStartTime(cmd.Process.Pid)
	if err != nil {
		cmd.Process.Kill()
		return nil, err
	}
	pidFile := filepath.Join(dir, "run", name+".pid")
	if err := os.WriteFile(pidFile, fmt.Appendf(nil, "%d %s\n", cmd.Process.Pid, startTime), 0o600); err != nil {
		cmd.Process.Kill()
		return nil, err
	}
	p := &process{name: name, cmd: cmd, log: logPath, done: make(chan struct{})}
	go func() { cmd.Wait(); close(p.done) }()
	return p, nil
}

// waitHealthy polls url until its body holds want, the process exits, or ctx ends.
func waitHealthy(ctx context.Context, p *process, client *http.Client, url, want string) error {
	tick := time.NewTicker(200 * time.Millisecond)
	defer tick.Stop()
	last := "no answer yet"
	for {
		resp, err := client.Get(url)
		if err == nil {
			body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK && strings.Contains(string(body), want) {
				return nil
			}
			last = fmt.Sprintf("HTTP %d", resp.StatusCode)
		} else {
			last = err.Error()
		}
		select {
		case <-p.done:
			return fmt.Errorf("%s exited (%s) before %s answered:\n%s", p.name, p.cmd.ProcessState, url, tail(p.log, 15))
		case <-ctx.Done():
			return fmt.Errorf("%s did not answer %s in time (last: %s):\n%s", p.name, url, last, tail(p.log, 15))
		case <-tick.C:
		}
	}
}

func tail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return "  " + strings.Join(lines, "\n  ")
}

// procStartTime is field 22 of /proc/PID/stat: the start time in clock ticks since boot. A process
// that has exited but is not reaped yet (state Z or X) has none.
func procStartTime(pid int) (string, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return "", err
	}
	s := string(data)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 20 {
		return "", fmt.Errorf("/proc/%d/stat: unexpected %q", pid, s)
	}
	if fields[0] == "Z" || fields[0] == "X" {
		return "", fmt.Errorf("process %d has exited", pid)
	}
	return fields[19], nil
}

// livePids lists the processes of DIR/run/*.pid that still run with the start time written there.
func livePids(runDir string) ([]string, error) {
	files, err := filepath.Glob(filepath.Join(runDir, "*.pid"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var live []string
	for _, f := range files {
		if pid, ok := livePid(f); ok {
			live = append(live, fmt.Sprintf("%s pid %d", strings.TrimSuffix(filepath.Base(f), ".pid"), pid))
		}
	}
	return live, nil
}

func livePid(pidFile string) (int, bool) {
	data, err := os.ReadFile(pidFile)
	if err != nil {
		return 0, false
	}
	fields := strings.Fields(string(data))
	if len(fields) != 2 {
		return 0, false
	}
	pid, err := strconv.Atoi(fields[0])
	if err != nil {
		return 0, false
	}
	now, err := procStartTime(pid)
	return pid, err == nil && now == fields[1]
}

// stopAll ends what a failed start left running (kube-apiserver first, then etcd), as `down` does.
func stopAll(dir string) {
	for _, name := range []string{"kube-apiserver", "etcd"} {
		pidFile := filepath.Join(dir, "run", name+".pid")
		if pid, ok := livePid(pidFile); ok {
			syscall.Kill(-pid, syscall.SIGKILL)
			for i := 0; i < 100; i++ {
				if _, ok := livePid(pidFile); !ok {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
		}
		os.Remove(pidFile)
	}
}
