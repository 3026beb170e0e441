"""What a replay keeps: per-workload records, pods waiting for kube-scheduler, added capacity, options."""

from __future__ import annotations

from dataclasses import dataclass, field

from kadmit.engine.solver.z3backend import Limits
from kadmit.model import Node
from kadmit.placement.filters import PodTemplate
from kadmit.placement.tas import Profile
from kadmit.simulate.kube import Scoring


@dataclass
class PodSetRun:
    name: str
    count: int
    flavors: list[str]
    placement: dict[str, int] = field(default_factory=dict)  # node -> pods
    flavor_map: dict[str, str] = field(default_factory=dict)  # resource -> flavor
    tas: bool = False  # placed by admission (topology-aware), not by kube-scheduler


@dataclass
class Record:
    """What happened to one workload (or one trace row of pods without a queue)."""

    key: str
    kind: str  # "kueue" or "pod"
    arrived: int | None  # ms; None: not yet
    priority: int
    duration: int | None
    cluster_queue: str | None = None
    admitted_at: int | None = None  # the last admission (pods: the last pod bound)
    started_at: int | None = None  # all pods bound
    finished_at: int | None = None
    pod_sets: list[PodSetRun] = field(default_factory=list)
    evictions: list[tuple[int, int]] = field(default_factory=list)  # (at, admitted_at)
    waiting_ms: int = 0  # time spent pending, over every wait
    reason: str | None = None  # never admitted: why, in the engine's words
    reasons: list[tuple[str, str]] = field(default_factory=list)  # the same as (code, message)
    run_ms: int = 0  # time its pods ran, over every run (evicted runs too)
    requests: dict[str, int] = field(default_factory=dict)  # per run, total over its pods
    waiting_since: int = 0
    # holding quota, the admission checks it waits for (each "name (state)"): their controllers decide
    # at run time, which kadmit does not model, so its pods never start here
    checks: list[str] = field(default_factory=list)


@dataclass
class PodBatch:
    owner: str
    node_use: dict[str, dict[str, int]]
    bound_at: int


@dataclass
class PodEntry:
    """Pods waiting for kube-scheduler: of one admitted pod set, or of one queue-less trace row."""

    owner: str
    pod_set: str
    priority: int
    arrived: int
    template: PodTemplate
    remaining: int


@dataclass
class Capacity:
    """Nodes added at an instant (`--add-nodes`, or an autoscaler's decision)."""

    at_ms: int
    nodes: list[Node]
    source: str = "added"
    tag: int = 0  # an autoscaler's launch


WORK_BUDGET = 20_000_000  # each pending workload of a part decided again at every event of it: quadratic in a backlog


@dataclass
class Options:
    mode: str = "ordered"
    tas_profile: Profile = "Mixed"
    scoring: Scoring = "LeastAllocated"
    until_ms: int | None = None
    cycle_ms: int = 0  # decide only every this many ms (Kueue's scheduling-cycle latency); 0: at every instant
    limits: Limits | None = None
    split: bool = True  # one engine session per independent part (`simulate.parts`); False: one for all
    work_budget: int = WORK_BUDGET  # pending workloads decided (again), summed over the replay's decisions
