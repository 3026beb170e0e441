"""What the input holds that may make Kueue's answer differ from kadmit's, counted from a run's decisions and
the diagnostics of its input: `admit`'s summary says each, and its JSON lists them as `may_differ`."""

from __future__ import annotations

from kadmit.engine.result import AdmitResult


def differ_counts(diagnostics) -> dict:
    """`may_differ`'s `unmodelled`, `refused_pods` and `gated_pods` from an answer's diagnostics: the settings
    kadmit does not model (KAD161), the pod sets whose every pod the API server refuses (KAD199), the
    StatefulSets whose pods Kueue leaves gated for good (KAD188)."""
    return {"unmodelled": sum(1 for d in diagnostics if d.code == "KAD161"),
            "refused_pods": sum(1 for d in diagnostics if d.code == "KAD199"),
            "gated_pods": sum(1 for d in diagnostics if d.code == "KAD188")}


def may_differ(result: AdmitResult, unmodelled: int = 0, refused_pods: int = 0, gated_pods: int = 0) -> list[dict]:
    """What the input holds that may make Kueue's answer differ from kadmit's, each with what causes it, its code
    (if it has one), how many and the summary's words: admitted workloads waiting for admission checks (decided
    by their controllers at run time), settings kadmit does not model (KAD161), pod sets whose every pod the API
    server refuses (KAD199), StatefulSets whose pods Kueue leaves gated for good (KAD188)."""
    out = []
    waiting = sum(1 for d in result.decisions if d.admitted and d.waiting_checks)
    if waiting:
        out.append({"cause": "admission_checks", "code": None, "count": waiting, "message": (
            "the admission checks they wait for are decided by their controllers at run time, which kadmit does "
            "not model: Kueue's answer may differ from there on")})
    if unmodelled:
        what = "a setting" if unmodelled == 1 else f"{unmodelled} settings"
        out.append({"cause": "unmodelled_settings", "code": "KAD161", "count": unmodelled, "message": (
            f"the input sets {what} kadmit does not model (KAD161): Kueue's answer may differ")})
    if refused_pods:
        what = "a pod set" if refused_pods == 1 else f"each of {refused_pods} pod sets"
        out.append({"cause": "refused_pods", "code": "KAD199", "count": refused_pods, "message": (
            f"the API server refuses every pod of {what} (KAD199): if Kueue admits it, it holds its quota without "
            "running, and Kueue's answer may differ from there on")})
    if gated_pods:
        what = "a StatefulSet" if gated_pods == 1 else f"each of {gated_pods} StatefulSets"
        out.append({"cause": "gated_pods", "code": "KAD188", "count": gated_pods, "message": (
            f"Kueue leaves every pod of {what} gated for good (KAD188: its template's own pod group): if Kueue "
            "admits it, it holds its quota without running, and Kueue's answer may differ from there on")})
    return out
