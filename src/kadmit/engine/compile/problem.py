"""Compile one workload's admission question into tracked terms.

For a pending workload W in cluster queue C the problem has: `adm` (W is admitted), a count `n_p`
per pod set, and a flavor choice per (pod set, resource group). Every constraint that comes from a
policy statement or an input object is a `Tracked` term guarded by its `Origin` (statement, span,
what it contributes, and the number a fix may change). Quotas compile two ways:
- `folded` (deciding): admitted usage and the cohort tree fold into one number per flavor-resource,
  Kueue's available(); the formula is as small as W's own choices.
- `symbolic` (explaining): every quota number and every admitted workload's usage is a variable
  pinned by its own tracked equality, so an unsat core names the statements and workloads responsible.
"""

from __future__ import annotations

from collections.abc import Iterable
from math import gcd
from typing import Literal

from kadmit.engine.compile.rules import compile_rules
from kadmit.engine.compile.symbolic import symbolic_quota
from kadmit.engine.compile.tracked import Origin, Param, PodSetVars, Problem, Tracked  # noqa: F401 (re-exported)
from kadmit.engine.solver import terms as T
from kadmit.engine.quota import FR, QuotaTree, Usage, node_id
from kadmit.index import ModelIndex, admitted_usage, resolve_level
from kadmit.model import ClusterQueue, Model, PodSet, ResourceFlavor, ResourceGroup, Workload
from kadmit.modelscheduling import flavor_affinity, go_aggregate, parse_errors
from kadmit.source import Span

Mode = Literal["folded", "shared", "symbolic"]
T_BIG = 10**30  # above any sum of quantities (each at most ~2**63 units), so no bound binds


def untolerated_taints(ps: PodSet, flavor: ResourceFlavor):
    """Taints of the flavor's nodes that the pod set (plus the flavor's own tolerations) doesn't
    tolerate; only NoSchedule and NoExecute filter, as in Kueue and kube-scheduler."""
    tols = list(ps.tolerations) + list(flavor.tolerations)
    return [t for t in flavor.node_taints
            if t.effect in ("NoSchedule", "NoExecute") and not any(x.tolerates(t) for x in tols)]


def tas_only(cq: ClusterQueue, index: ModelIndex) -> bool:
    """Every flavor of the queue names a topology (Kueue's `IsTASOnly`): its pod sets are then placed
    with topology-aware scheduling even without a request of their own."""
    flavors = [index.flavors.get(fq.flavor) for g in cq.resource_groups for fq in g.flavors]
    return bool(flavors) and all(f is not None and f.topology for f in flavors)


def topology_mismatch(ps: PodSet, flavor: ResourceFlavor, index: ModelIndex, implied: bool = False,
                      covered: Iterable[str] | None = None) -> str | None:
    """Kueue's TAS match of a pod set and a flavor (`checkPodSetAndFlavorMatchForTAS`): a pod set
    with a topology request (any mode) needs a flavor with a topology that has its levels, except a
    flavor without a topology in a resource group (`covered`, its resources) none of the pod's own
    requests name (`hasOverlapWithPodRequestedResources`, on the pod spec's requests before
    transformations: e.g. a group covering only `pods`, which Kueue counts but no container
    requests); a pod set without one can't use a flavor that has a topology unless TAS is implied
    (`implied`: its queue's flavors all have one)."""
    if ps.topology is not None:
        topo = index.topologies.get(flavor.topology) if flavor.topology else None
        if not flavor.topology:
            if covered is not None and not any(r in ps.placed_requests for r in covered):
                return None
            return f'Flavor "{flavor.name}" does not support TopologyAwareScheduling'
        if topo is None:
            return f'Flavor "{flavor.name}" information missing in TAS cache'
        # HasLevel: the level, the slice level, and with TASMultiLayerTopology on every slice layer's level
        # (`effective.gated` keeps only the first layer with it off)
        t = ps.topology
        if any(level is not None and resolve_level(topo, level) is None
               for level in (t.level, t.slice_level, *(level for level, _ in t.layers[1:]))):
            return f'Flavor "{flavor.name}" does not contain the requested level'
        return None
    if flavor.topology and not implied:
        return f'Flavor "{flavor.name}" supports only TopologyAwareScheduling'
    return None


def group_label_keys(index: ModelIndex, group: ResourceGroup) -> frozenset[str]:
    """The node-label keys of a resource group's flavors, together (Kueue's `ResourceGroup.LabelKeys`,
    `updateLabelKeys`): a pod set's selector and required affinity are matched against every flavor
    of the group on these keys, so a flavor without a key the pod set selects on doesn't match it."""
    return frozenset(k for fq in group.flavors if (fl := index.flavors.get(fq.flavor)) is not None
                     for k in fl.node_labels)


def selector_conflicts(ps: PodSet, flavor: ResourceFlavor, keys: frozenset[str]) -> list[str]:
    """Why the pod set's node selector or required affinity excludes the flavor's nodes, counting
    only the label keys its resource group's flavors define (`keys`, `group_label_keys`), as Kueue's
    flavorSelector does: a key one flavor of the group has and this one lacks is a key this flavor's
    nodes don't carry."""
    out = []
    labels = flavor.node_labels
    for k, v in sorted(ps.node_selector.items()):
        if k in keys and k in labels and labels[k] != v:
            out.append(f"node selector `{k}={v}` doesn't match the flavor's `{k}={labels[k]}`")
        elif k in keys and k not in labels:
            out.append(f"node selector `{k}={v}` doesn't match the flavor, which has no label `{k}` "
                       "(another flavor of its resource group has)")
    if ps.node_affinity:
        matched, errors = flavor_affinity(ps.node_affinity, labels, keys)
        if errors:
            out.append("no term of the required node affinity matches the flavor's node labels, and one Kueue "
                       "cannot parse fails the pod set there, its later flavors untried")
        elif not matched:
            out.append("required node affinity matches none of the flavor's node labels")
    return out


def affinity_error(ps: PodSet, flavor: ResourceFlavor, keys: frozenset[str]) -> str | None:
    """Kueue's error for a flavor whose node selector matches the pod set but none of whose required
    node-affinity terms, kept on `keys`, does, some of them unparsable (`flavor_affinity`): the aggregate
    LazyErrorNodeSelector.Match returns, which fails the pod set's flavor search there ("failed to assign
    flavors to pod set ..."); None otherwise."""
    labels = flavor.node_labels
    if not ps.node_affinity or any(k in keys and labels.get(k) != v for k, v in ps.node_selector.items()):
        return None
    matched, errors = flavor_affinity(ps.node_affinity, labels, keys)
    return go_aggregate(errors) if not matched and errors else None


def flavor_error(ps_list: list[PodSet], flavor: ResourceFlavor | None, keys: frozenset[str], index: ModelIndex,
                 implied: bool, covered: tuple[str, ...]) -> str | None:
    """Kueue's checkFlavorForPodSets error for a flavor, pod set by pod set in order: the first that fails
    the flavor by topology, taint or selector stops the check (a reason, no error); the first whose
    affinity errs (`affinity_error`) gives it."""
    if flavor is None:
        return None
    for ps in ps_list:
        if topology_mismatch(ps, flavor, index, implied, covered) is not None or untolerated_taints(ps, flavor):
            return None
        err = affinity_error(ps, flavor, keys)
        if err is not None or selector_conflicts(ps, flavor, keys):
            return err
    return None


class Compiler:
    """Compiles workloads of one model; shares the index, quota tree and resource scales."""

    def __init__(self, model: Model, index: ModelIndex | None = None) -> None:
        self.model = model
        self.index = index or ModelIndex(model)
        self.tree = QuotaTree(self.index)
        self.scale = self._scales()
        self._inactive: dict[str, bool] = {}  # cluster queue -> inactive (the model never changes)

    def _scales(self) -> dict[str, int]:
        """Per resource, the gcd of every amount of it in the model, so solver integers stay small."""
        g: dict[str, int] = {}

        def see(res: str, v: int | None) -> None:
            if v:
                g[res] = gcd(g.get(res, 0), abs(v))
        for holder in list(self.model.cluster_queues) + list(self.model.cohorts):
            for rg in holder.resource_groups:
                if "pods" in rg.covered_resources:
                    see("pods", 1000)  # Kueue counts one `pods` per pod where a group covers it
                for fq in rg.flavors:
                    for rq in fq.resources:
                        see(rq.resource, rq.nominal)
                        see(rq.resource, rq.borrowing_limit)
                        see(rq.resource, rq.lending_limit)
        for wl in self.model.workloads:
            for ps in wl.pod_sets:
                for r, q in ps.requests.items():
                    see(r, q)
            for (_, r), q in admitted_usage(wl).items():
                see(r, q)
        return {r: v or 1 for r, v in g.items()}

    @staticmethod
    def requests(ps: PodSet, covered) -> dict[str, int]:
        """Per-pod requests as Kueue counts them: `pods` is one per pod when a group covers it."""
        if "pods" in covered and "pods" not in ps.requests:
            return {**ps.requests, "pods": 1000}
        return ps.requests

    def missing_flavors(self, cq: ClusterQueue) -> list[str]:
        return sorted({fq.flavor for rg in cq.resource_groups for fq in rg.flavors
                       if fq.flavor not in self.index.flavors})

    def missing_topologies(self, cq: ClusterQueue) -> list[tuple[str, str]]:
        """(flavor, topology) of the queue's topology-aware flavors whose Topology is not defined (none
        with a MultiKueue check: Kueue skips the queue's TAS checks, isTASViolated)."""
        if cq.admission_checks and self.index.multikueue(cq):
            return []
        out = set()
        for rg in cq.resource_groups:
            for fq in rg.flavors:
                fl = self.index.flavors.get(fq.flavor)
                if fl is not None and fl.topology and fl.topology not in self.index.topologies:
                    out.add((fq.flavor, fl.topology))
        return sorted(out)

    def inactive(self, cq: ClusterQueue) -> bool:
        """Kueue keeps a queue inactive when stopped or being deleted, when a flavor is missing, when a topology-aware
        flavor's Topology is (TopologyNotFound), in a cohort cycle, or for its admission checks
        (a check missing or not Active, MultiKueue misused: kadmit.modelchecks)."""
        got = self._inactive.get(cq.name)
        if got is None or self.index.cluster_queues.get(cq.name) is not cq:
            got = (cq.stop_policy != "None" or cq.terminating or bool(self.missing_flavors(cq))
                   or bool(self.missing_topologies(cq))
                   or bool(cq.cohort and cq.cohort in self.tree.cycles) or bool(self.index.check_problems(cq)))
            if self.index.cluster_queues.get(cq.name) is cq:
                self._inactive[cq.name] = got
        return got

    def namespace_ok(self, cq: ClusterQueue, namespace: str) -> bool:
        sel = cq.namespace_selector
        return sel is not None and sel.matches(self.index.namespace_labels(namespace))

    def units(self, res: str, milli: int) -> int:
        s = self.scale.get(res, 1)
        return -((-milli) // s)  # round requests up; quotas are exact multiples by construction

    # --- the problem ---------------------------------------------------------------------------------

    def problem(self, wl: Workload, usage: Usage, mode: Mode = "folded",
                holders: list | None = None, rules: bool = True, tag: str | None = None) -> Problem:
        """The admission question for `wl` given admitted `usage` (milli-units); in symbolic mode
        `holders` (engine.compile.symbolic.Holder) say who holds that usage, so it can be blamed."""
        ix = self.index
        key = wl.key
        tag = tag or key  # names the problem's variables; shared by workloads of one shape
        adm = T.BoolVar(f"adm|{tag}")
        cq = ix.cluster_queue_of(wl)
        tracked: list[Tracked] = []
        structure: list[T.Term] = []
        pvars: list[PodSetVars] = []

        def track(oid: str, kind: str, message: str, span: Span | None, term: T.Term,
                  param: Param | None = None) -> None:
            tracked.append(Tracked(Origin(oid, kind, message, span, param), term))

        # Admission gates that don't depend on the choice.
        if not wl.active:
            track("gate|inactive", "inactive", f"workload `{key}` is inactive (spec.active is false)",
                  wl.field_span("active"), T.not_(adm))
        if wl.inadmissible:
            track("gate|dra", "inadmissible", f"workload `{key}`: {wl.inadmissible}",
                  wl.field_span("pod_sets"), T.not_(adm))
        lq = ix.local_queues.get(f"{wl.namespace}/{wl.queue}")
        if lq is None:
            track("gate|local_queue", "local_queue",
                  f"local queue `{wl.namespace}/{wl.queue}` doesn't exist", wl.field_span("queue"), T.not_(adm))
        elif cq is None:
            track("gate|cluster_queue", "cluster_queue",
                  f"local queue `{lq.key}` points at cluster queue `{lq.cluster_queue}`, which doesn't exist",
                  lq.field_span("cluster_queue"), T.not_(adm))
        if lq is not None and lq.stop_policy != "None":
            track("gate|lq_stop_policy", "stop_policy",
                  f"local queue `{lq.key}` is stopped (stopPolicy {lq.stop_policy})",
                  lq.field_span("stop_policy"), T.not_(adm))
        if cq is None:
            return Problem(wl, None, adm, [], [], tracked, {}, {}, self.scale)

        if cq.stop_policy != "None":
            track("gate|stop_policy", "stop_policy",
                  f"cluster queue `{cq.name}` is stopped (stopPolicy {cq.stop_policy})",
                  cq.field_span("stop_policy"), T.not_(adm))
        if cq.terminating:
            track("gate|terminating", "terminating",
                  f"cluster queue `{cq.name}` is being deleted (metadata.deletionTimestamp), so Kueue keeps it "
                  "inactive (\"Can't admit new workloads; clusterQueue is terminating\")",
                  cq.field_span("terminating") or cq.span, T.not_(adm))
        for fname in self.missing_flavors(cq):
            track(f"gate|flavor|{fname}", "flavor_missing",
                  f"cluster queue `{cq.name}` names flavor `{fname}`, which is not defined, so Kueue "
                  "keeps the queue inactive", flavor_ref_span(cq, fname), T.not_(adm))
        for fname, topo in self.missing_topologies(cq):
            fl = ix.flavors[fname]
            track(f"gate|topology|{fname}", "topology_missing",
                  f"flavor `{fname}` of cluster queue `{cq.name}` uses topology `{topo}`, which is not defined, "
                  "so Kueue keeps the queue inactive", fl.field_span("topology"), T.not_(adm))
        if cq.cohort and cq.cohort in self.tree.cycles:
            co = ix.cohorts.get(cq.cohort)
            track("gate|cohort_cycle", "cohort_cycle",
                  f"cohort `{cq.cohort}` is in a cycle of parents, so Kueue keeps the queue inactive",
                  co.field_span("parent") if co else cq.field_span("cohort"), T.not_(adm))
        for problem in ix.check_problems(cq):
            track(f"gate|checks|{problem}", "admission_checks",
                  f"cluster queue `{cq.name}` {problem}, so Kueue keeps the queue inactive",
                  cq.field_span("admission_checks"), T.not_(adm))
        labels = ix.namespace_labels(wl.namespace)
        sel = cq.namespace_selector
        if sel is None or not sel.matches(labels):
            ns = ix.namespaces.get(wl.namespace)
            ns_origin = Origin("gate|namespace_labels", "namespace_labels",
                               f"namespace `{wl.namespace}` has labels "
                               + (", ".join(f"{k}={v}" for k, v in sorted(ns.labels.items()))
                                  if ns and ns.labels else "none"),
                               labels_span(ns, sel) if ns else None)
            # as `check` (KAD272) does, a queue without a selector is shown at its name
            sel_span = cq.spans.get("namespace_selector") or cq.field_span("name")
            field = "`namespaces`" if sel_span is not None and sel_span.file.endswith(".kad") else "`namespaceSelector`"
            why = (f"has no namespace selector, so it admits no namespace" if sel is None
                   else f"selects other namespaces than `{wl.namespace}` ({field})")
            also = (ns_origin,) if sel is not None else ()
            if lq is not None:  # the workload reaches the queue through its local queue
                also += (Origin("gate|local_queue_target", "local_queue_target",
                                f"local queue `{lq.key}` points at cluster queue `{cq.name}`",
                                lq.field_span("cluster_queue") or lq.span),)
            tracked.append(Tracked(Origin("gate|namespace_selector", "namespace_selector",
                                          f"cluster queue `{cq.name}` {why}", sel_span),
                                   T.not_(adm), also=also))

        # Pod sets: counts and flavor choices.
        groups = cq.resource_groups
        covered = {r: gi for gi, g in enumerate(groups) for r in g.covered_resources}
        shared = mode == "shared"
        for pi, ps in enumerate(wl.pod_sets):
            n = T.IntVar(f"n|{tag}|{ps.name}", 0, T_BIG if shared else max(ps.count, 0))
            pv = PodSetVars(ps, n, T.BoolVar(f"skip|{tag}|{ps.name}"))
            on = T.and_(adm, T.not_(pv.skip))
            structure.append(T.implies(T.not_(on), T.eq(n, 0)))
            structure.append(T.implies(on, T.cmp(">=", n, min(1, ps.count))))
            need: T.IntLike = ps.min_count if ps.min_count is not None else ps.count
            if shared:  # the size is a number pinned per question, so workloads can share the problem
                need = pv.need = T.IntVar(f"need|{tag}|{ps.name}", 0, T_BIG)
            gang = (f"pod set `{ps.name}` needs all {ps.count} pods at once" if ps.min_count is None
                    else f"pod set `{ps.name}` needs at least {ps.min_count} of {ps.count} pods")
            track(f"gang|{ps.name}", "min_count", gang,
                  ps.field_span("min_count") if ps.min_count is not None else ps.field_span("count") or ps.span,
                  T.implies(on, T.cmp(">=", n, need)),
                  Param(f"pod set `{ps.name}` of `{key}`", "min_count",
                        ps.min_count if ps.min_count is not None else ps.count, direction="down"))
            # a zero request still takes a flavor when a group covers it, as in Kueue; one no group
            # covers counts only where the pod set's total is not zero (a pod set of 0 pods asks for
            # none of it: assignFlavors skips zero quantities the queue does not define; a negative
            # one, from a transformation's negative factor, still blocks it)
            for res in sorted(r for r, q in self.requests(ps, covered).items() if q * ps.count != 0 or r in covered):
                gi = covered.get(res)
                if gi is None:
                    # the pod set's own: Kueue's flavor assigner meets it at this pod set, after the
                    # pod sets before it took their flavors (their search state is kept)
                    track(f"cover|{ps.name}|{res}", "coverage",
                          f"cluster queue `{cq.name}` has no quota for `{res}`, which pod set `{ps.name}` requests",
                          ps.field_span(f"requests.{res}"), T.not_(on))
                    continue
                pv.group_of[res] = gi
            for gi in sorted(set(pv.group_of.values())):
                choices = []
                for fq in groups[gi].flavors:
                    choices.append((fq.flavor, T.BoolVar(f"f|{tag}|{ps.name}|{gi}|{fq.flavor}")))
                pv.flavors[gi] = choices
                structure.append(T.implies(on, T.exactly_one(v for _, v in choices)))
                structure.extend(T.implies(v, on) for _, v in choices)
                # one statement per taint the pod set doesn't tolerate, whichever flavors carry it:
                # a single toleration is the fix for all of them
                tainted: dict[str, list[str]] = {}
                for fname, _ in choices:
                    if fname in ix.flavors:
                        for taint in untolerated_taints(ps, ix.flavors[fname]):
                            tainted.setdefault(str(taint), []).append(fname)
                keys = group_label_keys(ix, groups[gi])
                stopped = None  # the flavor whose affinity error ends Kueue's search (`flavor_error`)
                for fname, v in choices:
                    if stopped is not None:
                        track(f"stopped|{ps.name}|{fname}", "selector", f"pod set `{ps.name}` can't use flavor "
                              f"`{fname}`: Kueue's flavor search fails at flavor `{stopped}` before it (the pod set's "
                              "node affinity Kueue cannot parse)",
                              ps.field_span("node_affinity") or ps.span, T.not_(v))
                        continue
                    fl = ix.flavors.get(fname)
                    if fl is not None and parse_errors(ps.node_affinity) and flavor_error(
                            [ps], fl, keys, ix, tas_only(cq, ix), groups[gi].covered_resources) is not None:
                        stopped = fname
                    if fl is None:
                        track(f"flavor|{fname}", "flavor_missing",
                              f"flavor `{fname}` is not defined", flavor_ref_span(cq, fname), T.not_(v))
                        continue
                    for taint in untolerated_taints(ps, fl):
                        on_flavors = ", ".join(f"`{f}`" for f in tainted[str(taint)])
                        track(f"taint|{ps.name}|{taint}", "taint",
                              f"pod set `{ps.name}` doesn't tolerate taint `{taint}` of flavor{'s' if ',' in on_flavors else ''} "
                              f"{on_flavors}",
                              fl.field_span("node_taints") or fl.span, T.not_(v),
                              Param(f"pod set `{ps.name}` of `{key}`", "tolerations", None, str(taint), "none"))
                    topo = topology_mismatch(ps, fl, ix, tas_only(cq, ix), groups[gi].covered_resources)
                    if topo is not None:
                        track(f"topology|{ps.name}|{fname}", "topology", f"pod set `{ps.name}` can't use "
                              f"flavor `{fname}`: {topo}", ps.field_span("topology") or ps.span, T.not_(v))
                    for conflict in selector_conflicts(ps, fl, keys):
                        track(f"selector|{ps.name}|{fname}|{conflict}", "selector",
                              f"pod set `{ps.name}` can't use flavor `{fname}`: {conflict}",
                              ps.field_span("node_selector") or ps.field_span("node_affinity") or ps.span,
                              T.not_(v))
            pvars.append(pv)

        # What W takes per flavor-resource, in solver units.
        requested: dict[FR, list[tuple[int, T.Term]]] = {}
        for pv in pvars:
            for res, gi in pv.group_of.items():
                per_pod = self.units(res, self.requests(pv.pod_set, pv.group_of)[res])
                total: T.Term = T.scale(per_pod, pv.count)
                if shared:  # count x request, pinned per question
                    total = pv.amounts[res] = T.IntVar(f"amt|{tag}|{pv.pod_set.name}|{res}", -T_BIG, T_BIG)
                for fname, v in pv.flavors[gi]:
                    requested.setdefault((fname, res), []).append((1, T.ite(v, total, 0)))
        req_terms = {fr: T.lin(*parts) for fr, parts in sorted(requested.items())}

        no_borrow: dict[FR, T.Term] = {}
        numbers: dict[FR, tuple[T.IntVar, T.IntVar]] = {}
        cq_nid = node_id(cq.name, False)
        for fr, amount in req_terms.items():
            entry = self.tree.entry(cq_nid, fr)
            if not entry.declared:
                fname, res = fr
                # "a queue borrows only resources it declares": the flavor lists no quota for res
                track(f"undeclared|{fname}|{res}", "undeclared",
                      f"cluster queue `{cq.name}` declares no `{res}` quota in flavor `{fname}`",
                      flavor_ref_span(cq, fname), T.le(amount, 0))
                continue
            s = self.units(fr[1], self.tree.subtree(cq_nid, fr))
            if mode in ("folded", "shared"):
                # the numbers that change with usage are variables, set per question by the session
                used = T.IntVar(f"used|{tag}|{fr[0]}|{fr[1]}", -T_BIG, T_BIG)
                cap = T.IntVar(f"cap|{tag}|{fr[0]}|{fr[1]}", -T_BIG, T_BIG)
                numbers[fr] = (used, cap)
                no_borrow[fr] = T.le(T.add(used, amount), s)
                track(f"quota|{fr[0]}|{fr[1]}", "quota",
                      f"quota for `{fr[1]}` in flavor `{fr[0]}` available to `{cq.name}`",
                      cq.span, T.le(amount, cap))
            else:
                no_borrow[fr] = T.le(T.add(self.units(fr[1], usage.get(cq.name, fr)), amount), s)
        if mode == "symbolic":
            tracked.extend(symbolic_quota(self, cq, req_terms, holders or [], usage))

        prob = Problem(wl, cq, adm, pvars, structure, tracked, req_terms, no_borrow, self.scale, numbers=numbers)
        if rules and self.model.rules:
            tracked.extend(compile_rules(self, prob))
        return prob


def flavor_ref_span(cq: ClusterQueue, fname: str) -> Span | None:
    """Where `cq` names flavor `fname` (as `check`'s KAD200 points), else the queue."""
    for g, group in enumerate(cq.resource_groups):
        for f, fq in enumerate(group.flavors):
            if fq.flavor == fname:
                return fq.spans.get("flavor") or cq.spans.get(f"resource_groups.{g}.flavors.{f}") or fq.span or cq.span
    return cq.span


def labels_span(ns, sel) -> Span | None:
    """The namespace's label a selector reads (the first whose key it names), else its labels, else itself."""
    keys = sorted(sel.match_labels) + [r.key for r in sel.match_expressions] if sel is not None else []
    for key in keys:
        if key in ns.labels and (sp := ns.spans.get(f"labels.{key}")) is not None:
            return sp
    return ns.field_span("labels")
