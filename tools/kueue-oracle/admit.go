package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	"k8s.io/component-base/featuregate"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/kadmit/kadmit/tools/kueue-oracle/internal/cluster"
	"github.com/kadmit/kadmit/tools/kueue-oracle/internal/input"
	"github.com/kadmit/kadmit/tools/kueue-oracle/internal/objects"
	"github.com/kadmit/kadmit/tools/kueue-oracle/internal/report"
)

func init() {
	register("admit", "decide every pending workload with Kueue's scheduler (JSON in the shape of `kadmit admit --format json`)", runAdmit)
}

// admitOutput is what `admit` prints.
type admitOutput struct {
	Mode      string            `json:"mode"`
	Decisions []report.Decision `json:"decisions"`
	Skipped   []objects.Skipped `json:"skipped"`
	NotRead   []objects.Skipped `json:"not_read"`
	Problems  []input.Problem   `json:"problems"`
	Notes     []string          `json:"notes"`
	Files     []string          `json:"files"`
	Oracle    oracleInfo        `json:"oracle"`
	Variance  *variance         `json:"variance,omitempty"`
	Holding   []report.Held     `json:"holding,omitempty"`
	Path      string            `json:"path,omitempty"` // --each: the path decided
	refusal   string            // why the input is unusable (input.Refusal): admit prints its answer and exits 2
}

type oracleInfo struct {
	Kueue        string          `json:"kueue"`
	Config       string          `json:"configuration"`
	FeatureGates map[string]bool `json:"feature_gates"`
	Cycles       int             `json:"cycles"`
	Stop         string          `json:"stop"`
	// Why each run ended, run i at i (`stop` is run 0's): Kueue's own timing can end one run in a
	// loop and settle another (tie-second-pass-admission-races-a-preemption.yaml)
	Stops []string `json:"stops"`
	Loop  []string `json:"loop"`
	Seed  int64    `json:"seed"`
	Runs  int      `json:"runs"`
	// Process CPU time: reading and setting up the cluster, and the scheduling run (cycles and
	// the controllers between them), summed over the runs.
	LoadSeconds     float64 `json:"load_cpu_seconds"`
	ScheduleSeconds float64 `json:"schedule_cpu_seconds"`
}

// variance lists the workloads whose decisions differ between runs: Kueue's own outcome
// depends on Go's map order (heads, the fair-sharing iterator) or on the order objects are
// added, so each outcome is one Kueue may give.
type variance struct {
	Runs      int               `json:"runs"`
	Outcomes  int               `json:"outcomes"`
	Workloads []variantWorkload `json:"workloads"`
}

type variantWorkload struct {
	Workload string           `json:"workload"`
	Outcomes []variantOutcome `json:"outcomes"`
}

type variantOutcome struct {
	Runs     []int           `json:"runs"`
	Decision report.Decision `json:"decision"`
}

func runAdmit(args []string) int {
	fs := flag.NewFlagSet("admit", flag.ContinueOnError)
	format := fs.String("format", "json", "output format (json)")
	seed := fs.Int64("seed", 0, "permute the order objects are added to Kueue's caches with this seed (0: by name)")
	runs := fs.Int("runs", 1, "decide this many times (run i with seed+i) and report where the runs differ")
	maxCycles := fs.Int("max-cycles", 0, "bound on scheduling cycles (0: 50 + 10 per workload)")
	gates := fs.String("feature-gates", "", "Kueue feature gates, key=value,... (over the Configuration's featureGates)")
	start := fs.String("start", "", "the fake clock's start, RFC 3339 (default: the latest creationTimestamp in the input)")
	keepVictims := fs.Bool("keep-victims", false, "evicted workloads keep their quota (Kueue's behaviour for a Workload no job controller stops)")
	endState := fs.Bool("end-state", false, "also list every workload holding quota at the end (holding)")
	verbosity := fs.Int("v", -1, "Kueue's logs on stderr at this verbosity (default: none)")
	reconcileEvery := fs.Int("reconcile-jobs-every", 0, "run the job reconcilers again after every N-th cycle and before the run would stop, "+
		"as their controllers answer a Workload the run admits (startJob, FailedToStart) (0: only before the first cycle)")
	priorityClasses := fs.Bool("reconcile-priority-classes", false, "run Kueue's WorkloadPriorityClass controller before the first cycle, "+
		"as a Kueue starting over this state does: each Workload naming a class gets its value as spec.priority")
	perPath := fs.Bool("each", false, "decide each PATH as a cluster of its own: one JSON object per line, with its path")
	reportEvery := fs.Int("report-every", 0, "also print the answer so far after every N-th run, as `--runs` of that many runs "+
		"gives it: one JSON object per line, the last the whole answer (a caller may stop the process once it has seen what it waits for)")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: kueue-oracle admit [flags] PATH...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return parseExit(err)
	}
	if *format != "json" {
		fmt.Fprintf(os.Stderr, "kueue-oracle admit: unknown format %q (json)\n", *format)
		return 2
	}
	if fs.NArg() == 0 || *runs < 1 || *reconcileEvery < 0 || *reportEvery < 0 || (*reportEvery > 0 && *perPath) {
		fs.Usage()
		return 2
	}
	log := logr.Discard()
	if *verbosity >= 0 {
		log = funcr.New(func(prefix, args string) { fmt.Fprintln(os.Stderr, prefix, args) }, funcr.Options{Verbosity: *verbosity})
	}
	ctrl.SetLogger(log)
	ctx := ctrl.LoggerInto(context.Background(), log)
	opts := admitOptions{seed: *seed, runs: *runs, maxCycles: *maxCycles, gates: *gates, start: *start,
		keepVictims: *keepVictims, endState: *endState, reconcileEvery: *reconcileEvery, priorityClasses: *priorityClasses, log: log}
	if *perPath {
		return each("admit", fs.Args(), func(path string) (admitOutput, error) { return decide(ctx, []string{path}, opts) },
			func(out *admitOutput, path string) { out.Path = path })
	}
	enc := json.NewEncoder(os.Stdout)
	if *reportEvery > 0 {
		opts.reportEvery = *reportEvery
		opts.report = func(soFar admitOutput) error { return enc.Encode(soFar) }
	} else {
		enc.SetIndent("", "  ")
	}
	out, err := decide(ctx, fs.Args(), opts)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kueue-oracle admit: %v\n", err)
		return 2
	}
	if err := enc.Encode(out); err != nil {
		fmt.Fprintf(os.Stderr, "kueue-oracle admit: %v\n", err)
		return 2
	}
	if out.refusal != "" {
		fmt.Fprintf(os.Stderr, "kueue-oracle admit: %s (kadmit refuses this input: exit 2)\n", out.refusal)
		return 2
	}
	return 0
}

// admitOptions are admit's flags that shape one decision.
type admitOptions struct {
	seed        int64
	runs        int
	maxCycles   int
	gates       string
	start       string
	keepVictims bool
	endState    bool
	// reconcileEvery: the job reconcilers run again after every N-th cycle (0: before the first only)
	reconcileEvery int
	// priorityClasses: Kueue's WorkloadPriorityClass controller runs before the first cycle (Kueue's start)
	priorityClasses bool
	log             logr.Logger
	// report, where reportEvery > 0, is given the answer so far after every reportEvery-th run but the last
	reportEvery int
	report      func(admitOutput) error
}

// gateValues are the process's feature gates as they are now (before any Configuration).
func gateValues() map[string]bool {
	out := map[string]bool{}
	for name := range utilfeature.DefaultMutableFeatureGate.GetAll() {
		out[string(name)] = utilfeature.DefaultMutableFeatureGate.Enabled(name)
	}
	return out
}

// resetGates sets back every feature gate a previous cluster's Configuration (or
// --feature-gates) changed, so that each --each cluster starts from the same gates.
func resetGates(initial map[string]bool) {
	now := gateValues()
	back := map[string]bool{}
	for name, on := range now {
		if was, ok := initial[name]; ok && was != on {
			back[name] = was
		}
	}
	if len(back) > 0 {
		if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(back); err != nil {
			panic("kueue-oracle: resetting feature gates: " + err.Error())
		}
	}
}

// setConfigurationGates sets the Configuration's feature gates, refusing them all where one is
// a gate Kueue v0.17 does not know. It checks the names first: the gate's SetFromMap records every
// name it is given before checking them, so an unknown one left behind fails every later call
// (each --each cluster after it).
func setConfigurationGates(gates map[string]bool) error {
	known := utilfeature.DefaultMutableFeatureGate.GetAll()
	names := make([]string, 0, len(gates))
	for name := range gates {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if _, ok := known[featuregate.Feature(name)]; !ok {
			return fmt.Errorf("the Configuration's featureGates: unrecognized feature gate: %s", name)
		}
	}
	if err := utilfeature.DefaultMutableFeatureGate.SetFromMap(gates); err != nil {
		return fmt.Errorf("the Configuration's featureGates: %w", err)
	}
	return nil
}

// decide reads the paths as one cluster and decides it (opts.runs times).
func decide(ctx context.Context, paths []string, opts admitOptions) (admitOutput, error) {
	var out admitOutput
	loadStart := cpuSeconds()
	files, err := input.Files(paths)
	if err != nil {
		return out, err
	}
	docs, problems := input.Read(files)
	read := len(docs)
	docs, refused, err := checkBuiltins(docs)
	if err != nil {
		return out, err
	}
	scheme := clusterScheme()
	defaulter, err := objects.KueueDefaulter()
	if err != nil {
		return out, err
	}
	reader := &objects.Reader{Scheme: scheme, Defaulter: defaulter, IsJobKind: jobKinds(docs, objects.Frameworks(scheme, docs))}
	in, err := reader.Read(ctx, docs)
	if err != nil {
		return out, err
	}
	in.Skipped = append(refused, in.Skipped...)
	if err := setInputGates(in); err != nil {
		return out, err
	}
	if opts.gates != "" {
		if err := utilfeature.DefaultMutableFeatureGate.Set(opts.gates); err != nil {
			return out, fmt.Errorf("--feature-gates: %w", err)
		}
	}
	startTime, err := startOf(opts.start, in)
	if err != nil {
		return out, fmt.Errorf("--start: %w", err)
	}
	loadSeconds := cpuSeconds() - loadStart

	out = admitOutput{Mode: "kueue", Skipped: in.Skipped, NotRead: in.NotRead, Problems: problems,
		Notes: in.Notes, Files: files, refusal: input.Refusal(paths, files, problems, read-len(in.NotRead))}
	var all [][]report.Decision
	var first *cluster.Result
	var stops []string
	var scheduleSeconds float64
	for i := 0; i < opts.runs; i++ {
		runSeed := opts.seed
		if i > 0 {
			runSeed = opts.seed + int64(i)
		}
		setupStart := cpuSeconds()
		jr := jobConverter(in, runSeed)
		cl, err := cluster.New(ctx, scheme, in.Objects, in.Config, cluster.Options{
			Start: startTime, Seed: runSeed, MaxCycles: opts.maxCycles, StopEvictedJobs: !opts.keepVictims,
			Indexes: jobIndexes, Convert: jr.convert, Log: opts.log,
			ReconcileJobs: jr.reconcile, ReconcileEvery: opts.reconcileEvery, ReconcilePriorityClasses: opts.priorityClasses,
			CRDs: defaulter,
		})
		if err != nil {
			return out, fmt.Errorf("setting the cluster up: %w", err)
		}
		loadSeconds += cpuSeconds() - setupStart
		res, err := cl.Run()
		if err != nil {
			return out, err
		}
		scheduleSeconds += res.SchedulingCPU.Seconds()
		all = append(all, report.Decisions(res, jr.owners))
		stops = append(stops, res.Stop)
		if i == 0 {
			first = res
			if opts.endState {
				out.Holding = report.Holding(res, jr.owners)
			}
			out.Skipped = append(out.Skipped, jr.skipped...)
			out.Notes = append(out.Notes, res.Notes...)
			sortSkipped(out.Skipped)
			sortSkipped(out.NotRead)
		}
		if opts.reportEvery > 0 && (i+1)%opts.reportEvery == 0 && i+1 < opts.runs {
			soFar := answered(out, in, opts.seed, all, stops, first, loadSeconds, scheduleSeconds)
			if err := opts.report(soFar); err != nil {
				return out, err
			}
		}
	}
	return answered(out, in, opts.seed, all, stops, first, loadSeconds, scheduleSeconds), nil
}

// answered is the answer of the runs so far (run i's decisions at all[i]), as `--runs len(all)` gives it.
func answered(out admitOutput, in *objects.Input, seed int64, all [][]report.Decision, stops []string, first *cluster.Result,
	loadSeconds, scheduleSeconds float64) admitOutput {
	out.Decisions = all[0]
	if out.Decisions == nil {
		out.Decisions = []report.Decision{}
	}
	out.Oracle = oracleInfo{
		Kueue: kueueVersion(), Config: in.ConfigFrom, FeatureGates: featureGates(),
		Cycles: first.Cycles, Stop: first.Stop, Stops: stops, Loop: first.Loop, Seed: seed, Runs: len(all),
		LoadSeconds: round3(loadSeconds), ScheduleSeconds: round3(scheduleSeconds),
	}
	if out.Oracle.Loop == nil {
		out.Oracle.Loop = []string{}
	}
	if len(all) > 1 {
		out.Variance = compareRuns(all)
	}
	for _, l := range []*[]string{&out.Notes, &out.Files} {
		if *l == nil {
			*l = []string{}
		}
	}
	for _, l := range []*[]objects.Skipped{&out.Skipped, &out.NotRead} {
		if *l == nil {
			*l = []objects.Skipped{}
		}
	}
	if out.Problems == nil {
		out.Problems = []input.Problem{}
	}
	return out
}

// startOf is the fake clock's start: the flag, else the latest creationTimestamp among the
// input's objects (the instant the input describes), else a fixed instant.
func startOf(flagValue string, in *objects.Input) (time.Time, error) {
	if flagValue != "" {
		return time.Parse(time.RFC3339, flagValue)
	}
	var latest time.Time
	for _, o := range in.Objects {
		if t := o.GetCreationTimestamp().Time; t.After(latest) {
			latest = t
		}
	}
	for _, u := range in.Jobs {
		if t := u.GetCreationTimestamp().Time; t.After(latest) {
			latest = t
		}
	}
	if latest.IsZero() {
		latest = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	return latest.Add(time.Second), nil
}

// compareRuns reports the workloads whose decisions differ between runs.
func compareRuns(all [][]report.Decision) *variance {
	v := &variance{Runs: len(all), Workloads: []variantWorkload{}}
	seenOutcomes := map[string]bool{}
	byWorkload := map[string][][]byte{}
	decisionOf := map[string][]report.Decision{}
	var names []string
	for run, decisions := range all {
		whole, _ := json.Marshal(stripCycles(decisions))
		seenOutcomes[string(whole)] = true
		for _, d := range decisions {
			if _, ok := byWorkload[d.Kueue]; !ok {
				names = append(names, d.Kueue)
				byWorkload[d.Kueue] = make([][]byte, len(all))
				decisionOf[d.Kueue] = make([]report.Decision, len(all))
			}
			c := d
			c.Cycle = 0
			byWorkload[d.Kueue][run], _ = json.Marshal(c)
			decisionOf[d.Kueue][run] = d
		}
	}
	v.Outcomes = len(seenOutcomes)
	sort.Strings(names)
	for _, name := range names {
		texts := byWorkload[name]
		var outcomes []variantOutcome
		index := map[string]int{}
		for run, t := range texts {
			i, ok := index[string(t)]
			if !ok {
				i = len(outcomes)
				index[string(t)] = i
				outcomes = append(outcomes, variantOutcome{Decision: decisionOf[name][run]})
			}
			outcomes[i].Runs = append(outcomes[i].Runs, run)
		}
		if len(outcomes) > 1 {
			// named as a run that decided it names it: a run that left it as the input holds it
			// (an admitted workload no preemptor chose) has the zero decision
			shown := ""
			for _, d := range decisionOf[name] {
				if d.Workload != "" {
					shown = d.Workload
					break
				}
			}
			v.Workloads = append(v.Workloads, variantWorkload{Workload: shown, Outcomes: outcomes})
		}
	}
	return v
}

func stripCycles(ds []report.Decision) []report.Decision {
	out := make([]report.Decision, len(ds))
	for i, d := range ds {
		d.Cycle = 0
		out[i] = d
	}
	return out
}

func sortSkipped(s []objects.Skipped) {
	sort.SliceStable(s, func(i, j int) bool {
		a, b := s[i], s[j]
		return strings.Join([]string{a.Namespace, a.Name, a.Kind}, "/") < strings.Join([]string{b.Namespace, b.Name, b.Kind}, "/")
	})
}

// featureGates are the feature gates the run had away from their defaults (Kueue v0.17's).
func featureGates() map[string]bool {
	out := map[string]bool{}
	for name, spec := range utilfeature.DefaultMutableFeatureGate.GetAll() {
		if on := utilfeature.DefaultMutableFeatureGate.Enabled(name); on != spec.Default {
			out[string(name)] = on
		}
	}
	return out
}

func round3(f float64) float64 {
	return float64(int64(f*1000+0.5)) / 1000
}
