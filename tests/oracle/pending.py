"""A pending workload's message, Kueue's against kadmit's: the words of the oracle's `pending.message`
(its Workload's QuotaReserved=False condition) and kadmit's reasons joined as Kueue writes one message.
Shared by tests/oracle/test_pending_messages.py and bench/pending_messages.py."""

from __future__ import annotations

import re

OWN = {"KAD533"}  # kadmit's own words after Kueue's (which preemption policies evict nobody): not compared
PENDING_PREEMPTION = "KAD532"  # appended to the assignment's message with ". "
PREFIX = "couldn't assign flavors to pod set "


GATES = {"KAD515", "KAD516", "KAD517", "KAD518", "KAD521"}  # reasons.gate_reasons': Kueue writes only the first


def kueue_words(reasons: list[dict]) -> str:
    """kadmit's reasons for a pending decision as Kueue writes one message: a pod set's flavors'
    reasons joined by ", " after one "couldn't assign flavors to pod set P: ", pod sets by "; ", a pending
    preemption's words after ". ". Where the first is a gate (a queue missing or inactive, the workload
    deactivated, the namespace, failed checks or validation), Kueue writes that one alone (its workload
    controller's or its scheduler's first, in the order gate_reasons follows): kadmit's others are its
    detail, after it in parentheses."""
    reasons = [r for r in reasons if r["code"] not in OWN]
    if len(reasons) > 1 and reasons[0]["code"] in GATES:
        return f"{reasons[0]['message']} ({kueue_words(reasons[1:])})"
    parts: list[tuple[str | None, list[str]]] = []
    for r in reasons:
        if r["code"] in OWN:
            continue
        m = r["message"]
        if r["code"] == PENDING_PREEMPTION and parts:  # scheduler.go: the assignment's message + ". Pending …"
            head, bodies = parts[-1]
            bodies[-1] += ". " + m
            continue
        head = m[:m.index(": ") + 2] if m.startswith(PREFIX) and ": " in m else None
        if head is not None and parts and parts[-1][0] == head:
            parts[-1][1].append(m[len(head):])
        else:
            parts.append((head, [m[len(head):] if head else m]))
    return "; ".join((head or "") + ", ".join(bodies) for head, bodies in parts)


UNDECIDED = {"KAD535", "KAD536"}  # a preemption loop: kadmit decides nothing, so gives no message of Kueue's


def undecided(decision: dict) -> bool:
    """kadmit leaves the workload undecided in a preemption loop: Kueue's message is that of the cycle
    where the oracle's bound cuts the loop (docs/KUEUE-DIFFERENCES.md §1, "Preemption loops")."""
    return any(r["code"] in UNDECIDED for r in decision.get("reasons", []))


def verdict(kueue: str, mine: str, observed: list[str] | None = None, given: str | None = None) -> str:
    """`equal`; `more`: kadmit's message is Kueue's with kadmit's detail after it (`: …`, ` (…)`);
    `variant`: equal to (or more than) another message Kueue's runs gave the same workload
    (`observed`: Go's map order decides which, e.g. the resource a flavor's check stops at); `uid`: equal
    (or more) once the UIDs kadmit can't know are left out (`unknown_uids`; `given`: the input's text);
    else `differs`."""
    if mine == kueue:
        return "equal"
    if _more(kueue, mine):
        return "more"
    if any(mine == k or _more(k, mine) for k in observed or () if k != kueue):
        return "variant"
    if given is not None and (kept := unknown_uids(kueue, mine, given)) is not None \
            and (mine == kept or _more(kept, mine)):
        return "uid"
    return "differs"


PREEMPTED_BY = re.compile(r"\(UID: ([^,()]*), JobUID: ([^()]*)\)")  # preemption.go preemptionMessage


def unknown_uids(kueue: str, mine: str, given: str) -> str | None:
    """Kueue's Preempted message with each UID kadmit writes UNKNOWN (its preemptor's Workload or job has no
    `metadata.uid` in the input) written UNKNOWN too, where the UID Kueue names is not in the input (`given`,
    its text): the API server gave it, which no input holds (docs/KUEUE-DIFFERENCES.md §1, "UIDs the API
    server gives"). None where no UID is left out."""
    theirs, ours = PREEMPTED_BY.search(kueue), PREEMPTED_BY.search(mine)
    if theirs is None or ours is None:
        return None
    uids = [u if m != "UNKNOWN" or u == "UNKNOWN" or u in given else "UNKNOWN"
            for u, m in zip(theirs.groups(), ours.groups())]
    if uids == list(theirs.groups()):
        return None
    return f"{kueue[:theirs.start()]}(UID: {uids[0]}, JobUID: {uids[1]}){kueue[theirs.end():]}"


def _more(kueue: str, mine: str) -> bool:
    return mine.startswith(kueue) and mine[len(kueue):][:2] in (": ", " (")


def observed_messages(data: dict, workload: str) -> list[str]:
    """Every pending message the oracle's runs (`--runs N`) gave `workload`: its decision's, then those
    of the outcomes its `variance` lists (runs that differed), each once."""
    decisions = [d for d in data["decisions"] if d["workload"] == workload]
    decisions += [o["decision"] for w in (data.get("variance") or {}).get("workloads", [])
                  if w["workload"] == workload for o in w["outcomes"]]
    out: list[str] = []
    for d in decisions:
        m = (d.get("pending") or {}).get("message")
        if m and m not in out:
            out.append(m)
    return out
