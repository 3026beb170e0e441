"""Lowering a parsed `.kad` file to a model `Fragment`, one statement at a time."""

from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import dataclass, field

from kadmit.diagnostics import Diagnostics
from kadmit.model import Fragment, ObjectRef
from kadmit.source import Span
from kadmit.syntax import codes, descent, lower_checks, lower_policy, lower_rules, lower_scheduler, lower_state
from kadmit.syntax.compact import share_field_sets
from kadmit.syntax.ast import (Builder, Decl, File, ImportStmt, LocalQueueStmt, PriorityStmt, RuleStmt,
                               SchedulerStmt)

# "fast": the hand-written reader, Lark for what it gives up on; "lark": Lark for every file (the
# reference, which bench/kad_bench.py measures beside the fast reader).
READER = "fast"

_DECLS = {
    "topology": ("topologies", lower_policy.topology),
    "flavor": ("flavors", lower_policy.flavor),
    "cohort": ("cohorts", lower_policy.cohort),
    "cluster_queue": ("cluster_queues", lower_policy.cluster_queue),
    "namespace": ("namespaces", lower_policy.namespace),
    "node": ("nodes", lower_state.node),
    "workload": ("workloads", lower_state.workload),
    "admission_check": ("admission_checks", lower_checks.admission_check),
    "provisioning_config": ("check_configs", lower_checks.provisioning_config),
    "multikueue_config": ("check_configs", lower_checks.multikueue_config),
    "multikueue_cluster": ("check_configs", lower_checks.multikueue_cluster),
}


@dataclass
class Import:
    path: str
    span: Span


@dataclass
class Lowered:
    fragment: Fragment
    imports: list[Import] = field(default_factory=list)


@contextmanager
def _no_gc():
    """Parse trees are many small acyclic objects; collecting while building them only costs
    time (2-3x on large files), so the collector pauses and resumes as it was."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def parse_file(text: str, filename: str, diags: Diagnostics,
               comments: bool = True) -> tuple[File | None, list]:
    """Text -> syntax tree (None if nothing could be parsed) and the comment tokens: the fast
    reader's for the files it is sure of, else Lark's with error recovery and every diagnostic
    (in windows around the statements the fast reader gives up on: `windows`). Lark is imported
    only when it reads: with `comments` False (none are wanted) a clean file costs no import of it
    (the fast reader's comments are Lark tokens, made when asked for)."""
    if READER == "fast":
        with _no_gc():
            try:
                read = descent.read(text, filename)
                if read.stop is None:
                    return File(filename, read.stmts), read.comments if comments else []
                from kadmit.syntax import windows  # Lark reads what the fast reader gave up on
                got = windows.parse(text, filename, diags, read)
                if got is not None:
                    return got
            except Exception:  # noqa: BLE001 -- a bug in the fast reader: Lark's reading is the reference
                pass
    return parse_file_lark(text, filename, diags)


def parse_file_lark(text: str, filename: str, diags: Diagnostics) -> tuple[File | None, list]:
    """`parse_file` by the reference parser: Lark's LALR parse of grammar/kadmit.lark, recovery, `Builder`."""
    from kadmit.syntax.recover import parse_with_recovery
    with _no_gc():
        parsed = parse_with_recovery(text, filename, diags)
        if parsed.tree is None:
            return None, []
        try:
            built = Builder(filename, diags).build(parsed.tree)
            built.broken = parsed.broken
            return built, parsed.comments
        except Exception as err:  # a bug must not cost the user their other diagnostics
            diags.emit(codes.INTERNAL, f"kadmit failed reading this file ({type(err).__name__})",
                       Span(file=filename, line=1, column=1))
            return None, []


def lower_file(tree: File, diags: Diagnostics, *, consume: bool = False) -> Lowered:
    """The file's objects and imports. `consume`: each statement is let go (taken out of `tree`)
    once lowered, so the syntax tree of a file and its model are not both whole at once."""
    lists: dict[str, list] = {name: [] for name in Fragment.model_fields}
    imports: list[Import] = []
    stmts = tree.stmts
    for i, st in enumerate(stmts):
        if consume:
            stmts[i] = None
        try:
            if isinstance(st, ImportStmt):
                imports.append(Import(st.path.value, st.span))
                continue
            if isinstance(st, Decl):
                target, lower = _DECLS[st.kind]
                obj = lower(st, diags)
            elif isinstance(st, SchedulerStmt):
                target, obj = "scheduler_configs", lower_scheduler.scheduler(st, diags)
            elif isinstance(st, LocalQueueStmt):
                target, obj = "local_queues", lower_policy.local_queue(st, diags)
            elif isinstance(st, PriorityStmt):
                target, obj = "priority_classes", lower_policy.priority(st, diags)
            else:
                assert isinstance(st, RuleStmt)
                target, obj = "rules", lower_rules.rule(st, diags)
        except RecursionError:
            diags.emit(codes.TOO_DEEP, "nested too deeply", st.span)
            continue
        except Exception as err:  # a bug in one statement must not hide the rest of the file
            diags.emit(codes.INTERNAL, f"kadmit failed reading this statement ({type(err).__name__}: "
                       f"{str(err)[:120]})", st.span)
            continue
        if obj is not None:
            share_field_sets(obj)
            lists[target].append(obj)
    lists["broken"].extend(broken_refs(tree.broken))
    return Lowered(Fragment(**lists), imports)


# What each statement defines, as the objects other statements refer to (Kubernetes kinds, as
# manifests' broken objects are kept: `Model.broken`).
_KINDS = {"topology": ("kueue.x-k8s.io/v1beta2", "Topology"), "flavor": ("kueue.x-k8s.io/v1beta2", "ResourceFlavor"),
          "cohort": ("kueue.x-k8s.io/v1beta2", "Cohort"), "cluster_queue": ("kueue.x-k8s.io/v1beta2", "ClusterQueue"),
          "local_queue": ("kueue.x-k8s.io/v1beta2", "LocalQueue"),
          "priority": ("kueue.x-k8s.io/v1beta2", "WorkloadPriorityClass"),
          "namespace": ("v1", "Namespace"), "node": ("v1", "Node"), "workload": ("kueue.x-k8s.io/v1beta2", "Workload"),
          "admission_check": ("kueue.x-k8s.io/v1beta2", "AdmissionCheck"),
          "provisioning_config": ("kueue.x-k8s.io/v1beta2", "ProvisioningRequestConfig"),
          "multikueue_config": ("kueue.x-k8s.io/v1beta2", "MultiKueueConfig"),
          "multikueue_cluster": ("kueue.x-k8s.io/v1beta2", "MultiKueueCluster")}
_NAMESPACED = {"local_queue", "workload"}


def broken_refs(broken: list) -> list[ObjectRef]:
    """The objects statements left out for syntax errors would have defined, so that references to
    them are not reported as to undefined objects (a follow-on of the one error). A statement whose
    keyword is misspelt beyond recognition may have been any of them. They carry no span: the
    syntax error is the file's, not the object's."""
    out = []
    for b in broken:
        if not b.name:
            continue
        for keyword in [b.kind] if b.kind is not None else list(_KINDS):
            if keyword not in _KINDS or (keyword in _NAMESPACED) != ("/" in b.name):
                continue
            api_version, kind = _KINDS[keyword]
            namespace, _, name = b.name.rpartition("/")
            out.append(ObjectRef(api_version=api_version, kind=kind, namespace=namespace or None, name=name))
    return out


def lower_text(text: str, filename: str, diags: Diagnostics) -> Lowered:
    tree, _ = parse_file(text, filename, diags, comments=False)
    if tree is None:
        return Lowered(Fragment())
    return lower_file(tree, diags, consume=True)
