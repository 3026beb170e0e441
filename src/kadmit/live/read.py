"""Reading a live cluster through kubectl: every kind kadmit reads, as one snapshot text.

`read` asks kubectl, all at once, for the context (`config view --minify`: no network), what the server serves
(`api-resources`) and its `version`, and starts `kubectl proxy`; then lists every kind kadmit reads that the server
serves, in every namespace at once: each kind one request through `kubectl proxy` on a private unix socket
(`live.proxy`: kubectl passes the server's JSON through, so the listing costs kubectl next to nothing), all at once.
Where the proxy won't start, in BATCHES `kubectl get KIND,KIND,… -o json` run in parallel (Pods alone, Kueue's
ConfigMap alone in its namespace; each kubectl costs about 0.1 s of CPU to start, which one `get` per kind pays 35
times over: bench/live_read.py); where a batch fails only for kinds the user may not list cluster-wide, the others are
as it listed them and those are refused in its words, and each kind is held to `--max-file-size` as its own `get`
prints it (measured in the batch's text); a batch that fails otherwise is listed again one `get` per kind, so that
each kind's own outcome is known, and one that prints more than its kinds' limits together in halves, and so on. A
kind the user may not list in every namespace at once is listed namespace by namespace. The objects are written as
YAML, laid out as `kubectl get -o yaml` lays them out, with their trees (`snapshot.composed`, `live.emit`): the text
is what `kadmit snapshot` writes and what `--cluster` reads as a source, so diagnostics point into it, and `--cluster`
takes the trees instead of parsing the text again. What could not be read at all is an error without a place
(KAD030-KAD033, KAD035, KAD038); what could not be listed is a line of the header, reported wherever the text is read
(KAD034, `snapshot.replay`). Every read is bounded: a kind's listing at most `--max-file-size` bytes (pages and
namespaces together, as the server or kubectl sends them), each request within its timeout; a listing stopped for
either, or cut short by the server, is an error naming the kind and where (KAD039), and nothing is decided on half of
it.
"""

from __future__ import annotations

import json
import os
import re
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone

from kadmit.collector import paused_gc
from kadmit.diagnostics import Diagnostic, Diagnostics
from kadmit.live import kubectl as k
from kadmit.live.codes import KAD030, KAD031, KAD032, KAD033, KAD034, KAD035, KAD038, KAD039
from kadmit.live.discover import CONFIG_KEY, KUEUE_NAMESPACE, Target, failed_groups, parse_api_resources, plan
from kadmit.live.proxy import Proxy
from kadmit.live.snapshot import NO_CONFIG, NO_KUEUE, NOT_LISTED, Listed, Origin, composed

__all__ = ["Snapshot", "read"]


class _NoProxy:
    @staticmethod
    def result() -> None:
        return None


_NO_PROXY = _NoProxy()

WORKERS = 8  # kubectl processes (or requests through its proxy) at once: each mostly waits on the server
PROXY = True  # list through `kubectl proxy` (`live.proxy`); False, or a proxy that won't start: `kubectl get`
BATCHES = 4  # `kubectl get`s the kinds are listed by (each kubectl costs ~0.1 s of CPU to start)
MAX_BY_NAMESPACE = 256  # `kubectl get` runs for kinds forbidden cluster-wide, namespace by namespace


@dataclass
class Snapshot:
    """A cluster read: its text (None when nothing usable was read), and why not."""

    name: str  # how diagnostics name the text: `<cluster CONTEXT>`
    text: str | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    origin: Origin | None = None
    objects: int = 0
    trees: list | None = None  # the text's documents as `parse_documents` reads them (`manifests.yamltree.Val`)

    @property
    def failed(self) -> bool:
        return self.text is None


def read(context: str | None = None, kubeconfig: str | None = None, *, program: str | None = None,
         max_bytes: int = k.MAX_OUT) -> Snapshot:
    """Read every kind kadmit reads from the kubeconfig's context (its current one by default); each kind's
    listing at most `max_bytes` (as the server or kubectl sends it: `--max-file-size`). The cyclic garbage
    collector pauses meanwhile: decoding and writing the listings builds a few hundred thousand acyclic objects
    (documents and their trees), which it would walk for nothing (60 % of writing gpu_state(2000)'s 2,317)."""
    with paused_gc():
        return _read(context, kubeconfig, program, max_bytes)


def _read(context: str | None, kubeconfig: str | None, program: str | None, max_bytes: int) -> Snapshot:
    started = time.monotonic()
    diags = Diagnostics()
    name = f"<cluster {context}>" if context else "<cluster>"
    try:
        kube = k.Kubectl.find(context, kubeconfig, program)
        if kube.kubeconfig and not os.path.exists(kube.kubeconfig):
            diags.emit(KAD031, f"no kubeconfig file `{kube.kubeconfig}`")
            return Snapshot(name, None, diags.sorted())
        with ThreadPoolExecutor(WORKERS) as pool:
            # the kubectls the read starts with, all at once (none needs another's answer); the kinds kadmit
            # reads are imported meanwhile (the plan needs them once discovery answers)
            config = pool.submit(kube.run, "config", "view", "--minify", "-o", "json")
            discovery = pool.submit(kube.run, "api-resources", "-o", "wide", "--no-headers",
                                    f"--request-timeout={k.REQUEST_TIMEOUT}")
            versions = pool.submit(kube.run, "version", "-o", "json", f"--request-timeout={k.REQUEST_TIMEOUT}")
            starting = pool.submit(Proxy.start, kube) if PROXY else _NO_PROXY
            import kadmit.manifests  # noqa: F401
            origin = _origin(config.result(), context, diags, kube.program)
            served = None if origin is None else _served(discovery.result(), origin, diags)
            if served is None:
                if starting.result() is not None:
                    starting.result().close()
                return Snapshot(name if origin is None else f"<cluster {origin.context}>", None, diags.sorted(), origin)
            name = f"<cluster {origin.context}>"
            found = plan(served, failed_groups(discovery.result().err))
            budgets = {t: k.Budget(max_bytes) for t in found.targets}
            proxy = starting.result()
            try:
                if proxy is not None:  # every kind one request through it, at once
                    listed = list(pool.map(lambda t: _listed(t, *proxy.get(t, None, budgets[t])), found.targets))
                    _by_namespace(lambda t, ns: proxy.get(t, ns, budgets[t]), pool, listed)
                else:
                    listed = _list_all(kube, pool, list(found.targets), budgets)
                    _by_namespace(lambda t, ns: _kubectl_get(kube, t, ns, budgets[t]), pool, listed)
            finally:
                if proxy is not None:
                    proxy.close()
            origin.through = "kubectl proxy" if proxy is not None else "kubectl get"
            _versions(versions.result(), origin)
    except k.Missing as e:
        diags.emit(KAD030, f"can't read the cluster: {e}",
                   help="install kubectl (kadmit reads the cluster through it, with your kubeconfig's "
                        "credentials), or put it on PATH")
        return Snapshot(name, None, diags.sorted())
    cut = [t for t in listed if t.cut is not None]
    if cut:  # half a listing is no state to answer on, and a stalled server is worth a retry
        for t in cut:
            diags.emit(KAD039, f"stopped reading {t.target.shown} {t.cut}",
                       help="pass --max-file-size BYTES to read a larger cluster" if "--max-file-size" in t.cut
                       else "read it again; if it stalls again, check the API server's health (`kubectl get --raw "
                            "/readyz`)")
        return Snapshot(name, None, diags.sorted(), origin)
    notes = [(NOT_LISTED, line) for line in found.undiscovered]
    if not found.kueue_served:
        notes.append((NO_KUEUE, "the server serves no kind of `kueue.x-k8s.io`: Kueue is not installed in "
                                "this cluster"))
    config = next((t for t in listed if t.target.kind == "ConfigMap"), None)
    if config is not None and config.failed is None and not config.docs and found.kueue_served:
        notes.append((NO_CONFIG, f"no ConfigMap in namespace `{KUEUE_NAMESPACE}` holds Kueue's Configuration "
                                 f"(`{CONFIG_KEY}`): the one Kueue v0.17.0 installs is assumed"))
    if all(t.failed is not None for t in listed):
        for t in listed:
            diags.emit(KAD034, f"not listed: {t.target.shown} {t.target.where()}: {t.failed}")
        diags.emit(KAD035, f"nothing could be listed from context `{origin.context}`"
                   + ("" if listed else ": the server serves none of the kinds kadmit reads"),
                   help="check the context's permissions: `kubectl auth can-i --list`")
        return Snapshot(name, None, diags.sorted(), origin)
    origin.seconds = time.monotonic() - started
    origin.read_at = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    text, trees = composed(origin, listed, found.not_served, notes)
    return Snapshot(name, text, diags.sorted(), origin, sum(t.count for t in listed), trees)


def _origin(run: k.Run, context: str | None, diags: Diagnostics, program: str) -> Origin | None:
    """The context read, from `kubectl config view --minify -o json` (no network), or None with an error."""
    if not run.ok:
        what = k.message(run)
        if k.failure(run) != k.CONTEXT:
            diags.emit(KAD038, f"`kubectl config view --minify` failed: {what}",
                       help=f"kadmit runs `{program}`; check that it is kubectl and that it runs")
        elif context:
            diags.emit(KAD031, f"can't use context `{context}` of the kubeconfig: {what}",
                       help="`kubectl config get-contexts` lists the contexts")
        else:
            diags.emit(KAD031, f"can't use the kubeconfig: {what}",
                       help="set KUBECONFIG or pass --kubeconfig, and choose a context with --context "
                            "or `kubectl config use-context`")
        return None
    try:
        config = json.loads(run.out)
        ctx = (config.get("contexts") or [{}])[0]
        cluster = (config.get("clusters") or [{}])[0]
        return Origin(context=ctx.get("name") or config.get("current-context") or context or "",
                      cluster=(ctx.get("context") or {}).get("cluster", ""),
                      user=(ctx.get("context") or {}).get("user", ""),
                      server=(cluster.get("cluster") or {}).get("server", ""))
    except (ValueError, AttributeError, IndexError, TypeError):
        diags.emit(KAD038, "`kubectl config view --minify -o json` printed something kadmit can't read")
        return None


def _served(run: k.Run, origin: Origin, diags: Diagnostics):
    """What the server serves, or None with the error that stopped the read."""
    served = parse_api_resources(run.out) if run.out.strip() else None
    if run.ok and served is not None:
        return served
    if served:  # some API group failed discovery (an aggregated API down): the rest was listed
        return served
    what = k.message(run)
    failure = k.failure(run)
    at = f"context `{origin.context}`" + (f" (server {origin.server})" if origin.server else "")
    if failure == k.UNREACHABLE:
        diags.emit(KAD032, f"can't reach the API server of {at}: {what}",
                   help="check the server address and your network (`kubectl cluster-info`)")
    elif failure == k.UNAUTHORIZED:
        diags.emit(KAD033, f"the API server of {at} refused the kubeconfig's credentials: {what}",
                   help="log in again (renew the token or certificate your kubeconfig uses)")
    elif failure == k.CONTEXT:
        diags.emit(KAD031, f"can't use {at}: {what}")
    elif failure == k.FORBIDDEN:
        diags.emit(KAD035, f"nothing could be listed from {at}: discovery is forbidden: {what}")
    else:
        diags.emit(KAD038, f"`kubectl api-resources` failed for {at}: {what}")
    return None


def _batches(targets: list[Target]) -> list[list[Target]]:
    """The kinds in BATCHES `kubectl get`s run at once: Pods alone (usually the largest listing) and a
    kind listed in one namespace (Kueue's ConfigMap) on its own, the others dealt round-robin."""
    alone = [t for t in targets if t.namespace or (t.group, t.kind) == ("", "Pod")]
    rest = [t for t in targets if t not in alone]
    n = max(1, BATCHES - len(alone))
    return [[t] for t in alone] + [b for b in (rest[i::n] for i in range(n)) if b]


def _list_all(kube: k.Kubectl, pool: ThreadPoolExecutor, targets: list[Target],
              budgets: dict[Target, k.Budget]) -> list[Listed]:
    """Every kind, by batches (`_list_batch`); the kinds of a batch that failed otherwise than it can tell each
    kind's outcome by are listed again one `kubectl get` each, so that each kind's own outcome is known, and a
    batch that printed more than its kinds' limits together is listed again in halves, and so on (some kind is
    over its limit: one such among many costs a few runs, not one per kind)."""
    got: dict[Target, Listed] = {}
    batches = _batches(targets)
    while batches:
        again: list[list[Target]] = []
        for batch, result in zip(batches, pool.map(lambda b: _list_batch(kube, b, budgets), batches)):
            if isinstance(result, dict):
                got.update(result)
            elif result == _TOO_LARGE:
                again += [batch[:(len(batch) + 1) // 2], batch[(len(batch) + 1) // 2:]]
            else:
                again += [[t] for t in batch]
        batches = again
    return [got[t] for t in targets]


_TOO_LARGE = "too large"  # what `_list_batch` says of a batch that printed more than its kinds' limits together


def _list_batch(kube: k.Kubectl, batch: list[Target],
                budgets: dict[Target, k.Budget]) -> dict[Target, Listed] | str | None:
    """One `kubectl get KIND,KIND,… --all-namespaces -o json`, its objects sorted to their kinds by their own
    `apiVersion` and `kind`; None when it failed otherwise than below or can't be sorted, _TOO_LARGE when it
    printed more than the kinds' limits together (some kind's own listing is over its limit). Each kind
    is held to its limit as its own `get` would print it (`_printed`, `_alone`): one over it is cut as that run
    is. Kinds that may not be listed cluster-wide (`_refused`) fail as their own `get` does: kubectl goes on
    past a kind's error and lists the others."""
    if len(batch) == 1:
        return {batch[0]: _list(kube, batch[0], budgets[batch[0]])}
    limit = min(budgets[t].limit for t in batch)
    run = kube.run("get", ",".join(t.qualified for t in batch), "--all-namespaces", "-o", "json",
                   f"--request-timeout={k.REQUEST_TIMEOUT}",
                   budget=k.Budget(min(sum(budgets[t].limit for t in batch), max(limit, k.MAX_OUT))))
    if _cut(run):  # stalled: the kinds are not asked again, one by one
        return _TOO_LARGE if "--max-file-size" in run.cut else {t: _listed(t, None, run) for t in batch}
    refused = {} if run.ok else _refused(run, batch)
    docs = items(run.out) if refused is not None else None
    over = len(run.out) > limit  # else no kind's own listing can be (each prints at most what the batch did)
    sizes = _printed(run.out) if over and docs is not None else [0] * len(docs or ())
    if docs is None or sizes is None or len(sizes) != len(docs):
        return None
    by_type = {(t.group, t.kind): Listed(t) for t in batch if t not in refused}
    printed: dict[tuple, list[int]] = {key: [] for key in by_type}
    for doc, size in zip(docs, sizes):
        key = (str(doc.get("apiVersion") or "").rpartition("/")[0], doc.get("kind"))
        if key not in by_type:
            return None
        by_type[key].docs.append(doc)
        printed[key].append(size)
    for key, one in printed.items():
        t = by_type[key].target
        if over and _alone(one) > budgets[t].limit:  # as its own run, stopped at its limit
            by_type[key] = _listed(t, None, k.Run(("get", t.qualified, *_scope(t), "-o", "json"), -1, "", "",
                                                  k.too_large("kubectl printed", budgets[t].limit)))
    for t, said in refused.items():  # as its own run: exit 1, the one line; its empty List counted
        budgets[t].take(len(EMPTY_LIST))
        by_type[t.group, t.kind] = _listed(t, None, k.Run(("get", t.qualified, *_scope(t), "-o", "json"), 1, "",
                                                          said + "\n"))
    return {t: by_type[t.group, t.kind] for t in batch}


# kubectl's words for a list it may not make (the API server's forbiddenMessage through kubectl's checkErr), one
# line per kind of a batch; `RESOURCE[.GROUP] is forbidden` names the kind twice over
_FORBIDDEN = re.compile(r'Error from server \(Forbidden\): (\S+) is forbidden: User ".*" cannot list resource '
                        r'"([^"]+)" in API group "([^"]*)" at the cluster scope')
# what `kubectl get -o json` prints for a kind it could not list (Go's json.MarshalIndent of an empty v1 List)
EMPTY_LIST = '{\n    "apiVersion": "v1",\n    "items": [],\n    "kind": "List",\n    "metadata": {\n' \
             '        "resourceVersion": ""\n    }\n}\n'


_LIST_HEAD, _LIST_TAIL = EMPTY_LIST.split("[]")[0] + "[\n", "\n    ]" + EMPTY_LIST.split("[]")[1]
_ITEM = " " * 8  # an item's indentation in it


def _printed(out: str) -> list[int] | None:
    """The length of each object of a `kubectl get -o json` List as printed in it (from its indentation to its
    closing brace), or None when the text is not laid out so."""
    if out == EMPTY_LIST:
        return []
    if not (out.startswith(_LIST_HEAD) and out.endswith(_LIST_TAIL)):
        return None
    decoder, at, end, sizes = json.JSONDecoder(), len(_LIST_HEAD), len(out) - len(_LIST_TAIL), []
    while out.startswith(_ITEM + "{", at):
        try:
            _, stop = decoder.raw_decode(out, at + len(_ITEM))
        except ValueError:
            return None
        sizes.append(stop - at)
        if stop == end:
            return sizes
        if not out.startswith(",\n", stop):
            return None
        at = stop + 2
    return None


def _alone(sizes: list[int]) -> int:
    """The bytes `kubectl get -o json` prints for a List of objects printed `sizes` long (`_printed`)."""
    return len(_LIST_HEAD) + sum(sizes) + 2 * (len(sizes) - 1) + len(_LIST_TAIL) if sizes else len(EMPTY_LIST)


def _refused(run: k.Run, batch: list[Target]) -> dict[Target, str] | None:
    """The kinds of a failed batch that may not be listed cluster-wide, each with kubectl's line about it, when
    those lines are all kubectl said (and it said each once); else None (the batch is listed kind by kind)."""
    by_resource = {(t.group, t.resource): t for t in batch}
    out: dict[Target, str] = {}
    for line in run.err.splitlines():
        m = _FORBIDDEN.fullmatch(line)
        t = by_resource.get((m.group(3), m.group(2))) if m else None
        if t is None or t in out or m.group(1) != ".".join(filter(None, (t.resource, t.group))):
            return None
        out[t] = line
    return out or None


def items(out: str) -> list[dict] | None:
    """The objects of kubectl's JSON listing (a `List`'s `items`, or one object), or None when it is not one."""
    try:
        got = json.loads(out)
    except ValueError:
        return None
    if not isinstance(got, dict):
        return None
    listed = got.get("items") if "items" in got else [got] if "kind" in got else None
    if not isinstance(listed, list) or not all(isinstance(o, dict) for o in listed):
        return None
    return listed


def _kubectl_get(kube: k.Kubectl, target: Target, namespace: str | None = None,
                 budget: k.Budget | None = None) -> tuple[list[dict] | None, k.Run | None]:
    """One `kubectl get -o json` of a kind, in every namespace (or in `namespace`, or its one namespace):
    its objects, or None and the run that failed (`cut`: it printed more than `budget` allows)."""
    run = kube.run("get", target.qualified, *_scope(target, namespace), "-o", "json",
                   f"--request-timeout={k.REQUEST_TIMEOUT}", budget=budget)
    if not run.ok:
        return None, run
    docs = items(run.out)
    if docs is None:
        return None, k.Run(run.args, 1, "", f"`kubectl get {target.qualified} -o json` printed something kadmit "
                                            f"can't read: {run.out[:200]!r}")
    return docs, None


def _scope(target: Target, namespace: str | None = None) -> list[str]:
    """`kubectl get`'s flags listing a kind in `namespace`, else in its one namespace or every namespace."""
    ns = namespace or target.namespace
    return ["--namespace", ns] if ns else ["--all-namespaces"] if target.namespaced else []


def _list(kube: k.Kubectl, target: Target, budget: k.Budget) -> Listed:
    """One `kubectl get` of a kind, in every namespace (or its one namespace)."""
    return _listed(target, *_kubectl_get(kube, target, None, budget))


def _listed(target: Target, docs: list[dict] | None, run: k.Run | None) -> Listed:
    """A kind's listing: its objects (Kueue's ConfigMap alone of the ConfigMaps), or why not."""
    listed = Listed(target)
    if docs is None:
        assert run is not None
        if _cut(run):
            listed.cut = f"{target.where()}: {_cut(run)}"
            return listed
        listed.failed = _why(run, target)
        listed.forbidden = k.failure(run) == k.FORBIDDEN
        return listed
    listed.docs = docs
    if target.kind == "ConfigMap":  # only Kueue's own: the others are not read
        kept = [d for d in listed.docs if CONFIG_KEY in (d.get("data") or {})]
        listed.left_out = len(listed.docs) - len(kept)
        listed.docs = kept
    return listed


def _cut(run: k.Run) -> str:
    """Why a listing that failed stopped the read, or "": kadmit cut it (too large, no complete answer in
    time, closed mid-answer), or the server stopped answering after discovery did (a timeout, a refused or
    reset connection: kubectl's own message). A refusal (403), a kind not served or the server's own error
    (a CRD's conversion webhook down) leaves that kind out, with a warning, instead."""
    if run.cut:
        return run.cut
    answered = "Error from server" in run.err  # the server's own error, even one quoting a refused connection
    return f"the server stopped answering: {k.message(run)}" if k.failure(run) == k.UNREACHABLE and not answered else ""


def _why(run: k.Run, target: Target) -> str:
    failure = k.failure(run)
    what = k.message(run)
    if failure == k.NOT_SERVED and target.preferred:
        return (f"the server serves it in `{target.preferred}`, which kadmit doesn't read, and not in "
                f"`{target.version}`: {what}")
    return what


def _by_namespace(fetch, pool: ThreadPoolExecutor, listed: list[Listed]) -> None:
    """Kinds forbidden in every namespace at once, listed namespace by namespace (a user whose
    rights are granted per namespace), when the namespaces are known and there are not too many.
    `fetch(target, namespace)`: the objects, or None and the failed run."""
    forbidden = [t for t in listed if t.failed is not None and t.forbidden and t.target.namespaced
                 and not t.target.namespace]
    namespaces = next((t for t in listed if t.target.kind == "Namespace" and t.failed is None), None)
    if not forbidden or namespaces is None:
        return
    names = sorted(n for n in ((d.get("metadata") or {}).get("name") for d in namespaces.docs) if isinstance(n, str) and n)
    if not names or len(names) * len(forbidden) > MAX_BY_NAMESPACE:
        for t in forbidden:
            t.failed += f" (not tried namespace by namespace: {len(names)} namespaces)" if names else ""
        return
    jobs = [(t, ns) for t in forbidden for ns in names]
    runs = pool.map(lambda job: fetch(job[0].target, job[1]), jobs)
    results: dict[int, list[tuple[str, list[dict] | None, k.Run | None]]] = {}
    for (t, ns), (docs, run) in zip(jobs, runs):
        results.setdefault(id(t), []).append((ns, docs, run))
    for t in forbidden:
        got = results[id(t)]
        cut = next(((ns, _cut(run)) for ns, docs, run in got if docs is None and run is not None and _cut(run)), None)
        if cut is not None:
            t.cut = f"in namespace {cut[0]}: {cut[1]}"
            continue
        missed = [(ns, run) for ns, docs, run in got if docs is None]
        if len(missed) == len(got):
            continue  # forbidden everywhere: stays not listed, with the cluster-wide message
        t.failed = None
        t.namespaces = len(got)
        t.missed = tuple(ns for ns, _ in missed)
        t.missed_why = _why(missed[0][1], t.target) if missed else ""
        for _, docs, _ in got:
            t.docs.extend(docs or ())


def _versions(run: k.Run, origin: Origin) -> None:
    """kubectl's and the server's versions, from `kubectl version -o json` (missing parts stay empty)."""
    from importlib import metadata

    try:
        got = json.loads(run.out) if run.out.strip() else {}
    except ValueError:
        got = {}
    origin.kubectl_version = (got.get("clientVersion") or {}).get("gitVersion", "")
    origin.server_version = (got.get("serverVersion") or {}).get("gitVersion", "")
    try:
        origin.kadmit_version = metadata.version("kadmit")
    except metadata.PackageNotFoundError:
        origin.kadmit_version = ""
