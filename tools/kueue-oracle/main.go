// Command kueue-oracle decides admission with Kueue's own code, in process, for kadmit's
// differential tests: it reads the manifests kadmit reads and prints decisions in the shape
// of `kadmit admit --format json`.
//
// Build and run it through the wrapper beside this file (`tools/kueue-oracle/kueue-oracle`),
// which compiles it against a build-time copy of Kueue's module with the harness files of
// _inject/ added (README.md says why and how).
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"runtime/pprof"
	"sort"
)

// command is one subcommand: `kueue-oracle NAME ARGS...`. Each lives in its own file and
// registers itself from an init function.
type command struct {
	summary string
	run     func(args []string) int // the process exit code
}

var commands = map[string]command{}

// register adds a subcommand; a name registered twice is a programming error.
func register(name, summary string, run func(args []string) int) {
	if _, dup := commands[name]; dup {
		panic("kueue-oracle: command registered twice: " + name)
	}
	commands[name] = command{summary: summary, run: run}
}

// kueueVersion is the version of sigs.k8s.io/kueue this binary was built with.
func kueueVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	for _, dep := range info.Deps {
		if dep.Path == "sigs.k8s.io/kueue" {
			return dep.Version
		}
	}
	return "unknown"
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: kueue-oracle --version | --help | COMMAND ARGS... (COMMAND -h: its flags)")
	names := make([]string, 0, len(commands))
	for name := range commands {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fmt.Fprintf(w, "  %-10s %s\n", name, commands[name].summary)
	}
}

// parseExit is a command's exit code where its flags did not parse: 0 for -h/--help (its usage
// printed), 2 for a flag it does not take.
func parseExit(err error) int {
	if errors.Is(err, flag.ErrHelp) {
		return 0
	}
	return 2
}

func main() {
	// A batch run over many objects: collect garbage less often than Go's default.
	debug.SetGCPercent(400)
	args := os.Args[1:]
	if len(args) == 1 && args[0] == "--version" {
		fmt.Printf("kueue-oracle (sigs.k8s.io/kueue %s)\n", kueueVersion())
		return
	}
	if len(args) == 1 && (args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
		usage(os.Stdout)
		return
	}
	if len(args) == 0 {
		usage(os.Stderr)
		os.Exit(2)
	}
	cmd, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(os.Stderr, "kueue-oracle: unknown command %q\n", args[0])
		usage(os.Stderr)
		os.Exit(2)
	}
	// KUEUE_ORACLE_CPUPROFILE=FILE writes a CPU profile of the command (go tool pprof FILE).
	if path := os.Getenv("KUEUE_ORACLE_CPUPROFILE"); path != "" {
		f, err := os.Create(path)
		if err == nil && pprof.StartCPUProfile(f) == nil {
			code := cmd.run(args[1:])
			pprof.StopCPUProfile()
			f.Close()
			os.Exit(code)
		}
	}
	os.Exit(cmd.run(args[1:]))
}
