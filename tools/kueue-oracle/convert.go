package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
	clienttesting "k8s.io/client-go/testing"
	resourcehelpers "k8s.io/component-helpers/resource"
	testingclock "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	"sigs.k8s.io/kueue/pkg/controller/core/indexer"
	"sigs.k8s.io/kueue/pkg/features"
	utiltesting "sigs.k8s.io/kueue/pkg/util/testing"
	"sigs.k8s.io/kueue/pkg/workload"

	"github.com/kadmit/kadmit/tools/kueue-oracle/internal/input"
	"github.com/kadmit/kadmit/tools/kueue-oracle/internal/jobs"
	"github.com/kadmit/kadmit/tools/kueue-oracle/internal/objects"
	"sigs.k8s.io/kueue/pkg/controller/jobframework"
)

func init() {
	register("convert", "the Workloads Kueue's job integrations make of each job object (JSON), or why none", runConvert)
}

// convertOutput is what `convert` prints: per job object of the input, the Workloads Kueue
// creates of it or why it creates none, so that kadmit's own job conversion can be compared.
type convertOutput struct {
	Objects  []convertedObject `json:"objects"`
	NotRead  []objects.Skipped `json:"not_read"`
	Skipped  []objects.Skipped `json:"skipped"` // refused while reading (not a job's refusal)
	Problems []input.Problem   `json:"problems"`
	Notes    []string          `json:"notes"`
	Files    []string          `json:"files"`
	Oracle   convertInfo       `json:"oracle"`
	Path     string            `json:"path,omitempty"` // --each: the path converted
}

type convertInfo struct {
	Kueue        string          `json:"kueue"`
	Config       string          `json:"configuration"`
	FeatureGates map[string]bool `json:"feature_gates"`
}

type convertedObject struct {
	Object    objects.Ref         `json:"object"`
	Workloads []convertedWorkload `json:"workloads"`
	Skipped   string              `json:"skipped,omitempty"` // no Workload: why
}

type convertedWorkload struct {
	Namespace     string            `json:"namespace"`
	Name          string            `json:"name"`
	Queue         string            `json:"queue"`
	Priority      *int32            `json:"priority"`
	PriorityClass *priorityClassRef `json:"priority_class"`
	PodSets       []convertedPodSet `json:"pod_sets"`
}

type priorityClassRef struct {
	Kind string `json:"kind"` // WorkloadPriorityClass or PriorityClass
	Name string `json:"name"`
}

// convertedPodSet is a pod set after workload.AdjustResources (RuntimeClass overhead,
// LimitRange defaults, limits as missing requests), as Kueue's queue manager sees it.
type convertedPodSet struct {
	Name           string               `json:"name"`
	Count          int32                `json:"count"` // as Kueue's scheduler counts it: less its reclaimable pods
	Reclaimable    int32                `json:"reclaimable,omitempty"`
	MinCount       *int32               `json:"min_count"`
	Requests       map[string]string    `json:"requests"` // per pod: resourcehelpers.PodRequests, as Kueue counts quota
	Containers     []convertedContainer `json:"containers"`
	InitContainers []convertedContainer `json:"init_containers"`
	Overhead       map[string]string    `json:"overhead"`
	Topology       *convertedTopology   `json:"topology"`
}

type convertedContainer struct {
	Name          string            `json:"name"`
	RestartPolicy string            `json:"restart_policy,omitempty"` // Always: a sidecar
	Requests      map[string]string `json:"requests"`
	Limits        map[string]string `json:"limits"`
}

type convertedTopology struct {
	Required      string `json:"required,omitempty"`
	Preferred     string `json:"preferred,omitempty"`
	Unconstrained bool   `json:"unconstrained,omitempty"`
	PodIndexLabel string `json:"pod_index_label,omitempty"`
	SliceRequired string `json:"slice_required,omitempty"`
	SliceSize     int32  `json:"slice_size,omitempty"`
	GroupName     string `json:"group_name,omitempty"`
	// podsetSliceRequiredTopologyConstraints: the slice layers (TASMultiLayerTopology's annotation, a Workload's own)
	Layers []kueue.PodsetSliceRequiredTopologyConstraint `json:"layers,omitempty"`
}

func runConvert(args []string) int {
	fs := flag.NewFlagSet("convert", flag.ContinueOnError)
	format := fs.String("format", "json", "output format (json)")
	gates := fs.String("feature-gates", "", "Kueue feature gates, key=value,... (over the Configuration's featureGates)")
	verbosity := fs.Int("v", -1, "Kueue's logs on stderr at this verbosity (default: none)")
	perPath := fs.Bool("each", false, "convert each PATH as a cluster of its own: one JSON object per line, with its path")
	fs.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: kueue-oracle convert [flags] PATH...")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return parseExit(err)
	}
	if *format != "json" {
		fmt.Fprintf(os.Stderr, "kueue-oracle convert: unknown format %q (json)\n", *format)
		return 2
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return 2
	}
	log := logr.Discard()
	if *verbosity >= 0 {
		log = funcr.New(func(prefix, args string) { fmt.Fprintln(os.Stderr, prefix, args) }, funcr.Options{Verbosity: *verbosity})
	}
	ctrl.SetLogger(log)
	ctx := ctrl.LoggerInto(context.Background(), log)
	if *perPath {
		return each("convert", fs.Args(), func(path string) (*convertOutput, error) { return convertPaths(ctx, []string{path}, *gates) },
			func(out **convertOutput, path string) { (*out).Path = path })
	}
	out, err := convertPaths(ctx, fs.Args(), *gates)
	if err != nil {
		fmt.Fprintf(os.Stderr, "kueue-oracle convert: %v\n", err)
		return 2
	}
	enc := json.NewEncoder(os.Stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintf(os.Stderr, "kueue-oracle convert: %v\n", err)
		return 2
	}
	return 0
}

func convertPaths(ctx context.Context, paths []string, gates string) (*convertOutput, error) {
	files, err := input.Files(paths)
	if err != nil {
		return nil, err
	}
	docs, problems := input.Read(files)
	docs, refused, err := checkBuiltins(docs)
	if err != nil {
		return nil, err
	}
	scheme := clusterScheme()
	defaulter, err := objects.KueueDefaulter()
	if err != nil {
		return nil, err
	}
	// Every pod goes to the job integrations here (the admit command keeps bound pods apart:
	// they only use node capacity); convert reports what Kueue makes of each.
	isJob := func(gvk schema.GroupVersionKind, _ *unstructured.Unstructured) bool { return jobs.IsJobKind(gvk) }
	reader := &objects.Reader{Scheme: scheme, Defaulter: defaulter, IsJobKind: isJob}
	in, err := reader.Read(ctx, docs)
	if err != nil {
		return nil, err
	}
	if err := setInputGates(in); err != nil {
		return nil, err
	}
	if gates != "" {
		if err := utilfeature.DefaultMutableFeatureGate.Set(gates); err != nil {
			return nil, fmt.Errorf("--feature-gates: %w", err)
		}
	}
	// status patches are server-side applies in Kueue (a stopped pod's condition, reclaimable
	// pods): the fake client treats them as strategic merges, as the admit command's does. The plain
	// object tracker, as the admit command's: the field-managed one (the fake client's default) builds
	// a REST mapper of the whole scheme on every write, most of this command's time.
	tracker := clienttesting.NewObjectTracker(scheme, serializer.NewCodecFactory(scheme).UniversalDecoder())
	builder := fake.NewClientBuilder().WithScheme(scheme).WithObjectTracker(tracker).WithObjects(in.Objects...).
		WithStatusSubresource(&kueue.Workload{}, &kueue.ClusterQueue{}, &kueue.LocalQueue{}, &kueue.Cohort{}, &kueue.AdmissionCheck{}).
		WithInterceptorFuncs(defaulter.Intercept(scheme, interceptor.Funcs{SubResourcePatch: utiltesting.TreatSSAAsStrategicMerge}, nil))
	ix := utiltesting.AsIndexer(builder)
	if err := indexer.Setup(ctx, ix); err != nil {
		return nil, err
	}
	if err := jobs.SetupIndexes(ctx, ix); err != nil {
		return nil, err
	}
	cl := builder.Build()
	clk := testingclock.NewFakeClock(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	// Kueue keeps the integrations its job controllers enabled in a package variable: forget another
	// cluster's, decided before in this process (--each); a harness hook injected into the build copy
	// (_inject), so that internal/jobs builds, and its Go tests run, with the committed go.mod.
	jobframework.OracleResetEnabledIntegrations()
	conv, err := jobs.Convert(ctx, cl, in.Jobs, in.Config, clk)
	if err != nil {
		return nil, err
	}
	out := &convertOutput{
		NotRead: in.NotRead, Skipped: append(refused, in.Skipped...), Problems: problems, Files: files,
		Notes:  append(append([]string{}, in.Notes...), conv.Notes...),
		Oracle: convertInfo{Kueue: kueueVersion(), Config: in.ConfigFrom, FeatureGates: featureGates()},
	}
	byObject := map[jobs.Owner]*convertedObject{}
	object := func(o jobs.Owner) *convertedObject {
		if c, ok := byObject[o]; ok {
			return c
		}
		c := &convertedObject{Object: objects.Ref{APIVersion: o.APIVersion, Kind: o.Kind, Namespace: o.Namespace, Name: o.Name},
			Workloads: []convertedWorkload{}}
		byObject[o] = c
		return c
	}
	for _, wl := range conv.Workloads {
		cw, err := convertedOf(ctx, cl, wl)
		if err != nil {
			return nil, err
		}
		c := object(conv.Owners[wl.Namespace+"/"+wl.Name])
		c.Workloads = append(c.Workloads, cw)
	}
	for _, s := range conv.Skipped {
		object(s.Object).Skipped = s.Reason
	}
	for _, r := range refused { // a job object the API server refuses (kubevalidate): no Workload, in its words
		if gv, err := schema.ParseGroupVersion(r.APIVersion); err == nil && jobs.IsJobKind(gv.WithKind(r.Kind)) {
			object(jobs.Owner{APIVersion: r.APIVersion, Kind: r.Kind, Namespace: r.Namespace, Name: r.Name}).Skipped = r.Reason
		}
	}
	for _, c := range byObject {
		sort.Slice(c.Workloads, func(a, b int) bool { return c.Workloads[a].Name < c.Workloads[b].Name })
		out.Objects = append(out.Objects, *c)
	}
	sort.Slice(out.Objects, func(a, b int) bool {
		x, y := out.Objects[a].Object, out.Objects[b].Object
		if x.Kind != y.Kind {
			return x.Kind < y.Kind
		}
		if x.Namespace != y.Namespace {
			return x.Namespace < y.Namespace
		}
		return x.Name < y.Name
	})
	for _, l := range []*[]objects.Skipped{&out.NotRead, &out.Skipped} {
		if *l == nil {
			*l = []objects.Skipped{}
		}
	}
	if out.Problems == nil {
		out.Problems = []input.Problem{}
	}
	if out.Objects == nil {
		out.Objects = []convertedObject{}
	}
	return out, nil
}

// convertedOf is a Workload as Kueue's queue manager holds it: AdjustResources applied to a copy.
func convertedOf(ctx context.Context, cl client.Client, wl *kueue.Workload) (convertedWorkload, error) {
	adjusted := wl.DeepCopy()
	workload.AdjustResources(ctx, cl, adjusted)
	out := convertedWorkload{Namespace: wl.Namespace, Name: wl.Name, Queue: string(wl.Spec.QueueName),
		Priority: wl.Spec.Priority, PodSets: []convertedPodSet{}}
	if ref := wl.Spec.PriorityClassRef; ref != nil {
		out.PriorityClass = &priorityClassRef{Kind: string(ref.Kind), Name: ref.Name}
	}
	// status.reclaimablePods, which the job's reconciler writes once the Workload exists: Kueue's
	// scheduler counts a pod set without them (podSetsCountsAfterReclaim, gate ReclaimablePods)
	reclaimable := map[kueue.PodSetReference]int32{}
	if features.Enabled(features.ReclaimablePods) {
		for _, rp := range wl.Status.ReclaimablePods {
			reclaimable[rp.Name] += rp.Count
		}
	}
	for _, ps := range adjusted.Spec.PodSets {
		spec := &ps.Template.Spec
		cps := convertedPodSet{
			Name: string(ps.Name), Count: max(ps.Count-reclaimable[ps.Name], 0), Reclaimable: reclaimable[ps.Name], MinCount: ps.MinCount,
			Requests:       quantities(resourcehelpers.PodRequests(&corev1.Pod{Spec: *spec}, resourcehelpers.PodResourcesOptions{})),
			Containers:     containers(spec.Containers),
			InitContainers: containers(spec.InitContainers),
			Overhead:       quantities(spec.Overhead),
		}
		if tr := ps.TopologyRequest; tr != nil {
			cps.Topology = &convertedTopology{
				Required: ptr.Deref(tr.Required, ""), Preferred: ptr.Deref(tr.Preferred, ""),
				Unconstrained: ptr.Deref(tr.Unconstrained, false), PodIndexLabel: ptr.Deref(tr.PodIndexLabel, ""),
				SliceRequired: ptr.Deref(tr.PodSetSliceRequiredTopology, ""), SliceSize: ptr.Deref(tr.PodSetSliceSize, 0),
				GroupName: ptr.Deref(tr.PodSetGroupName, ""), Layers: tr.PodsetSliceRequiredTopologyConstraints,
			}
		}
		out.PodSets = append(out.PodSets, cps)
	}
	return out, nil
}

func containers(cs []corev1.Container) []convertedContainer {
	out := make([]convertedContainer, 0, len(cs))
	for _, c := range cs {
		cc := convertedContainer{Name: c.Name, Requests: quantities(c.Resources.Requests), Limits: quantities(c.Resources.Limits)}
		if c.RestartPolicy != nil {
			cc.RestartPolicy = string(*c.RestartPolicy)
		}
		out = append(out, cc)
	}
	return out
}

// quantities renders a resource list with Kubernetes' canonical quantity strings.
func quantities(l corev1.ResourceList) map[string]string {
	out := make(map[string]string, len(l))
	for name, q := range l {
		if q.IsZero() {
			continue
		}
		out[string(name)] = canonical(q)
	}
	return out
}

func canonical(q resource.Quantity) string { return q.String() }
