"""What a compiled admission question is made of: tracked terms, their origins, a workload's variables."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from kadmit.engine.quota import FR, Usage, node_id
from kadmit.engine.solver import terms as T
from kadmit.model import ClusterQueue, PodSet, Workload
from kadmit.source import Span


@dataclass(frozen=True)
class Param:
    """A number a fix may change: which object, which field, its value now, and which way helps."""

    subject: str  # e.g. "cluster_queue team-a", "cohort research", "pod set team-a/x:workers"
    field: str  # e.g. "nominal quota of nvidia.com/gpu in flavor h100"
    value: int | None
    resource: str = ""  # for display of quantities
    direction: Literal["up", "down", "remove", "none"] = "up"


@dataclass(frozen=True)
class Origin:
    """Where a tracked constraint comes from, and what it contributes."""

    id: str  # stable and unique within a problem; also the tracking literal's name
    kind: str
    message: str
    span: Span | None
    param: Param | None = None


@dataclass(frozen=True)
class Tracked:
    """`term` holds while every origin stands: its own and the `also` ones it needs together."""

    origin: Origin
    term: T.Term
    also: tuple[Origin, ...] = ()

    @property
    def origins(self) -> tuple[Origin, ...]:
        return (self.origin,) + self.also


@dataclass
class PodSetVars:
    pod_set: PodSet
    count: T.Term  # IntVar n_p
    skip: T.BoolVar  # assumed while deciding earlier pod sets: this one takes nothing yet
    need: T.Term | None = None  # shared mode: the pinned min_count
    amounts: dict[str, T.IntVar] = field(default_factory=dict)  # shared mode: pinned count x request
    # resource group index -> [(flavor name, Boolean choice)], in the group's flavor order
    flavors: dict[int, list[tuple[str, T.BoolVar]]] = field(default_factory=dict)
    group_of: dict[str, int] = field(default_factory=dict)  # requested resource -> group index


@dataclass
class Problem:
    workload: Workload
    cluster_queue: ClusterQueue | None
    admitted: T.BoolVar
    pod_sets: list[PodSetVars]
    structure: list[T.Term]  # untracked: the shape of the choices
    tracked: list[Tracked]
    requested: dict[FR, T.Term]  # flavor-resource -> scaled amount W takes (0 unless chosen)
    no_borrow: dict[FR, T.Term]  # flavor-resource -> "W's queue stays within its nominal quota"
    scale: dict[str, int]  # resource -> units per solver unit
    soft: list = field(default_factory=list)  # (Origin, weight, term) from `prefer` rules
    # folded mode: flavor-resource -> (queue's usage, Kueue's available) variables, in solver units
    numbers: dict = field(default_factory=dict)

    def number_values(self, compiler, usage: Usage, cq: str) -> dict[str, int]:
        """Values of the folded numbers in cluster queue `cq` (the problem's own, or another of the
        same structure sharing it) for `usage`: what changes between questions."""
        out: dict[str, int] = {}
        nid = node_id(cq, False)
        scale, available = compiler.scale, compiler.tree.available
        row = usage.data.get(cq) or {}  # (`Usage.get`, inlined)
        for fr, (used, cap) in self.numbers.items():
            sc = scale.get(fr[1], 1)
            out[used.name] = row.get(fr, 0) // sc
            # Kueue clamps at 0; and a request above the maximum capacity (available with no usage)
            # never fits, which only binds where a negative request left the usage below 0
            out[cap.name] = max(0, min(available(nid, fr, usage), available(nid, fr, None))) // sc
        return out

    def origins(self) -> dict[str, Origin]:
        """Every origin of the problem, by id."""
        out: dict[str, Origin] = {}
        for t in self.tracked:
            for o in t.origins:
                out.setdefault(o.id, o)  # the first statement of an id locates it
        return out
