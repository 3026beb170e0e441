// Package report turns a run's end state into decisions in the shape of
// `kadmit admit --format json`: one per workload that was pending when the run started or was
// evicted during it, named as kadmit names it (src/kadmit/identity.py).
package report

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"

	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	utiltas "sigs.k8s.io/kueue/pkg/util/tas"
	"sigs.k8s.io/kueue/pkg/workload"

	"github.com/kadmit/kadmit/tools/kueue-oracle/internal/cluster"
	"github.com/kadmit/kadmit/tools/kueue-oracle/internal/objects"
)

// workloadAPI is how kadmit names a Workload object (identity.WORKLOAD_API).
const workloadAPI = "kueue.x-k8s.io/v1beta2"

// Decision is one workload's outcome.
type Decision struct {
	Workload         string            `json:"workload"`
	Object           objects.Ref       `json:"object"`
	Kueue            string            `json:"kueue_workload"` // Kueue's namespace/name of the Workload
	Admitted         bool              `json:"admitted"`       // Kueue's Admitted: quota reserved and every check Ready
	QuotaReserved    bool              `json:"quota_reserved"` // QuotaReserved: it holds quota (unless Finished)
	AdmissionChecks  []CheckState      `json:"admission_checks"`
	ClusterQueue     *string           `json:"cluster_queue"`
	PodSets          []PodSet          `json:"pod_sets"`
	Preempted        []Victim          `json:"preempted"`
	PreemptedBy      *string           `json:"preempted_by"`
	PreemptionReason *string           `json:"preemption_reason"`
	Pending          *Condition        `json:"pending"` // Kueue's QuotaReserved=False condition, when not admitted
	Usage            map[string]string `json:"usage"`
	Cycle            int               `json:"cycle"`
	// Kueue's Finished=True condition at the end, where the run finished it: a job reconciler whose start failed
	// for good (FailedToStart, --reconcile-jobs-every). Its Admitted and QuotaReserved conditions stay True and its
	// admission stays in its status, but Kueue's workload controller drops it from the cache: it holds no quota.
	Finished *Condition `json:"finished"`
}

// PodSet is one pod set's assignment.
type PodSet struct {
	Name      string            `json:"name"`
	Count     int32             `json:"count"`
	Flavors   map[string]string `json:"flavors"`
	Placement map[string]int32  `json:"placement"`
	Topology  *Topology         `json:"topology,omitempty"`
}

// Topology is a pod set's topology assignment: its levels and the domains, each as its values
// from the top level down joined by "/".
type Topology struct {
	Levels  []string `json:"levels"`
	Domains []string `json:"domains"`
}

// CheckState is one of a reserved workload's admission check states (status.admissionChecks).
type CheckState struct {
	Name  string `json:"name"`
	State string `json:"state"`
}

// Victim is a workload a decision's preemptions evicted: shown as kadmit shows it, and by Kueue's
// namespace/name of its Workload (what `kubectl get workload` takes).
type Victim struct {
	Workload     string `json:"workload"`
	Kueue        string `json:"kueue_workload"`
	ClusterQueue string `json:"cluster_queue"`
	Reason       string `json:"reason"`
}

// Condition is a status condition's reason and message.
type Condition struct {
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// Owners maps "namespace/workload-name" to the object the Workload stands for (the job the
// job integrations made it from).
type Owners map[string]objects.Ref

var uidInMessage = regexp.MustCompile(`\(UID: ([^,]+),`)

// Decisions builds the decisions of a run.
func Decisions(r *cluster.Result, owners Owners) []Decision {
	names := displayNames(r.Final, owners)
	byUID := map[types.UID]types.NamespacedName{}
	for k, wl := range r.Final {
		byUID[wl.UID] = k
	}
	// Every eviction a preemptor made, in the order of the run: a victim admitted again and
	// evicted by another is a victim of both (listed once per preemptor), and preempted by the last.
	victims := map[types.NamespacedName][]Victim{}
	listed := map[[2]types.NamespacedName]int{}
	preemptedBy := map[types.NamespacedName]types.NamespacedName{}
	reasonOf := map[types.NamespacedName]string{}
	for _, e := range r.Evictions {
		if e.Preempted == nil {
			continue
		}
		m := uidInMessage.FindStringSubmatch(e.Preempted.Message)
		if m == nil {
			continue
		}
		by, ok := byUID[types.UID(m[1])]
		if !ok {
			continue
		}
		k := e.Workload
		preemptedBy[k] = by
		reasonOf[k] = e.Preempted.Reason
		v := Victim{Workload: names[k], Kueue: k.String(), ClusterQueue: string(e.From), Reason: e.Preempted.Reason}
		if i, seen := listed[[2]types.NamespacedName{by, k}]; seen {
			victims[by][i] = v // evicted by it again: as last evicted
			continue
		}
		listed[[2]types.NamespacedName{by, k}] = len(victims[by])
		victims[by] = append(victims[by], v)
	}

	var out []Decision
	for k, wl := range r.Final {
		initial := r.Initial[k]
		_, evicted := r.EvictedAt[k]
		if initial != nil && workload.HasQuotaReservation(initial) && !evicted {
			continue // running all along: not a decision
		}
		d := Decision{Workload: names[k], Object: objectOf(wl, owners), Kueue: k.String(),
			PodSets: []PodSet{}, Preempted: victims[k], Usage: map[string]string{}, AdmissionChecks: []CheckState{}}
		if d.Preempted == nil {
			d.Preempted = []Victim{}
		}
		sort.Slice(d.Preempted, func(i, j int) bool { return d.Preempted[i].Workload < d.Preempted[j].Workload })
		if by, ok := preemptedBy[k]; ok {
			name := names[by]
			d.PreemptedBy = &name
			reason := reasonOf[k]
			d.PreemptionReason = &reason
		}
		if apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadFinished) {
			c := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadFinished)
			d.Finished = &Condition{Reason: c.Reason, Message: c.Message}
		}
		if workload.HasQuotaReservation(wl) && wl.Status.Admission != nil {
			d.QuotaReserved = true
			d.Admitted = workload.IsAdmitted(wl)
			for _, st := range wl.Status.AdmissionChecks {
				d.AdmissionChecks = append(d.AdmissionChecks, CheckState{Name: string(st.Name), State: string(st.State)})
			}
			sort.Slice(d.AdmissionChecks, func(i, j int) bool { return d.AdmissionChecks[i].Name < d.AdmissionChecks[j].Name })
			cq := string(wl.Status.Admission.ClusterQueue)
			d.ClusterQueue = &cq
			d.PodSets, d.Usage = assignment(wl.Status.Admission)
			d.Cycle = r.AdmittedAt[k]
		} else {
			if cond := apimeta.FindStatusCondition(wl.Status.Conditions, kueue.WorkloadQuotaReserved); cond != nil {
				d.Pending = &Condition{Reason: cond.Reason, Message: cond.Message}
			}
			d.Cycle = r.TriedAt[k]
		}
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Workload != out[j].Workload {
			return out[i].Workload < out[j].Workload
		}
		return out[i].Kueue < out[j].Kueue
	})
	return out
}

// assignment reads an admission: pod sets in order, and usage per flavor and resource.
func assignment(a *kueue.Admission) ([]PodSet, map[string]string) {
	pods := []PodSet{}
	usage := map[string]milli{}
	for _, psa := range a.PodSetAssignments {
		ps := PodSet{Name: string(psa.Name), Flavors: map[string]string{}, Placement: map[string]int32{}}
		if psa.Count != nil {
			ps.Count = *psa.Count
		}
		for res, fl := range psa.Flavors {
			ps.Flavors[string(res)] = string(fl)
		}
		for res, q := range psa.ResourceUsage {
			fl, ok := psa.Flavors[res]
			if !ok {
				continue
			}
			key := string(fl) + "/" + string(res)
			usage[key] = usage[key].add(q.MilliValue(), string(res))
		}
		if ta := psa.TopologyAssignment; ta != nil {
			t := &Topology{Levels: append([]string{}, ta.Levels...), Domains: []string{}}
			for d := range utiltas.InternalSeqFrom(ta) {
				t.Domains = append(t.Domains, strings.Join(d.Values, "/"))
				if len(d.Values) > 0 {
					ps.Placement[d.Values[len(d.Values)-1]] += d.Count
				}
			}
			sort.Strings(t.Domains)
			ps.Topology = t
		}
		pods = append(pods, ps)
	}
	text := make(map[string]string, len(usage))
	for k, v := range usage {
		text[k] = formatQuantity(v.value, v.resource)
	}
	return pods, text
}

type milli struct {
	value    int64
	resource string
}

func (m milli) add(v int64, resource string) milli {
	return milli{value: m.value + v, resource: resource}
}

// objectOf is the object a Workload stands for: the job it was made from (by the job
// integrations, or its controller owner when read as a Workload), else the Workload itself.
func objectOf(wl *kueue.Workload, owners Owners) objects.Ref {
	key := wl.Namespace + "/" + wl.Name
	if o, ok := owners[key]; ok {
		return o
	}
	for _, ref := range wl.OwnerReferences {
		if ref.Controller != nil && *ref.Controller {
			return objects.Ref{APIVersion: ref.APIVersion, Kind: ref.Kind, Namespace: wl.Namespace, Name: ref.Name}
		}
	}
	return objects.Ref{APIVersion: workloadAPI, Kind: "Workload", Namespace: wl.Namespace, Name: wl.Name}
}

func group(apiVersion string) string {
	if i := strings.LastIndex(apiVersion, "/"); i >= 0 {
		return apiVersion[:i]
	}
	return ""
}

// displayNames is kadmit's identity.display_names: a workload is shown as its object's
// `namespace/name`; `Kind/namespace/name` where objects of two kinds share that name; with
// ` (workload name)` where one object made several workloads.
func displayNames(wls map[types.NamespacedName]*kueue.Workload, owners Owners) map[types.NamespacedName]string {
	kinds := map[string]map[string]bool{}
	perObject := map[string]int{}
	refs := map[types.NamespacedName]objects.Ref{}
	for k, wl := range wls {
		o := objectOf(wl, owners)
		refs[k] = o
		key := o.Namespace + "/" + o.Name
		if kinds[key] == nil {
			kinds[key] = map[string]bool{}
		}
		kinds[key][group(o.APIVersion)+"|"+o.Kind] = true
		perObject[group(o.APIVersion)+"|"+o.Kind+"|"+key]++
	}
	out := map[types.NamespacedName]string{}
	for k, o := range refs {
		key := o.Namespace + "/" + o.Name
		shown := key
		if len(kinds[key]) > 1 {
			shown = o.Kind + "/" + key
		}
		if perObject[group(o.APIVersion)+"|"+o.Kind+"|"+key] > 1 {
			shown += fmt.Sprintf(" (%s)", k.Name)
		}
		out[k] = shown
	}
	return out
}

// Held is a workload holding quota when the run ended.
type Held struct {
	Workload     string            `json:"workload"`
	Kueue        string            `json:"kueue_workload"`
	ClusterQueue string            `json:"cluster_queue"`
	PodSets      []PodSet          `json:"pod_sets"`
	Usage        map[string]string `json:"usage"`
	Evicted      bool              `json:"evicted"`
}

// Holding lists every workload holding quota at the end of the run (Kueue's cache, as
// TestSchedule's wantAssignments reads it), sorted.
func Holding(r *cluster.Result, owners Owners) []Held {
	names := displayNames(r.Final, owners)
	out := []Held{}
	for k, wl := range r.Final {
		if !workload.HasQuotaReservation(wl) || wl.Status.Admission == nil {
			continue
		}
		if apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadFinished) {
			continue // its QuotaReserved stays, but the workload controller drops it from the cache (Update: StatusFinished)
		}
		h := Held{Workload: names[k], Kueue: k.String(), ClusterQueue: string(wl.Status.Admission.ClusterQueue)}
		h.PodSets, h.Usage = assignment(wl.Status.Admission)
		h.Evicted = apimeta.IsStatusConditionTrue(wl.Status.Conditions, kueue.WorkloadEvicted)
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Kueue < out[j].Kueue })
	return out
}
