"""Owners of the kinds `integrations.externalFrameworks` lists: Kueue's walk up a job's controllers
(FindAncestorJobManagedByKueue) knows them, reads them from the cluster and takes one that names a queue (or any,
under manageJobsWithoutQueueName) as the job's top-level ancestor (manifests/jobs/external.py, ancestors.py;
tests/oracle/features/external-framework-owner-*.yaml decide the same inputs on Kueue's own code)."""

from __future__ import annotations

import pytest

from kadmit.manifests.config import parse_kind_arg
from kadmit.manifests.jobs.external import custom, resource
from kadmit.workspace import load

from .helpers import SETUP, write

CONFIG = """\
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
{manage}integrations:
  frameworks: [batch/job, pod]
  externalFrameworks: [{listed}]
"""
WIDGET = """\
apiVersion: example.com/v1
kind: Widget
metadata: {{name: w{labels}}}
"""
JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: j
  labels: {kueue.x-k8s.io/queue-name: user-queue}
  ownerReferences: [{apiVersion: example.com/v1, kind: Widget, name: w, uid: u-1, controller: true}]
spec:
  suspend: true
  template:
    spec:
      restartPolicy: Never
      containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]
"""
QUEUED = ", labels: {kueue.x-k8s.io/queue-name: user-queue}"


def _load(tmp_path, listed="Widget.v1.example.com", widget: str | None = QUEUED, manage=""):
    files = {"setup__yaml": SETUP, "job__yaml": JOB,
             "cfg__yaml": CONFIG.format(listed=listed, manage=manage)}
    if widget is not None:
        files["widget__yaml"] = WIDGET.format(labels=widget)
    return load(write(tmp_path, **files))


@pytest.mark.parametrize("case, kwargs, decided, said", [
    # the owner names a queue: the Job is its owner's, no Workload of its own
    ("queued owner", {}, False, "Kueue finds Widget `default/w`"),
    # the owner names none: the walk passes it (it has no controller), and the Job, naming a queue, is its own
    ("owner without a queue", {"widget": ""}, True, None),
    # ... unless Kueue manages jobs without a queue name: then any owner of the kind is the ancestor
    ("manage without queue name", {"widget": "", "manage": "manageJobsWithoutQueueName: true\n"}, False,
     "under `manageJobsWithoutQueueName`"),
    # not in the cluster: Kueue's Job webhook cannot read it, ErrWorkloadOwnerNotFound
    ("owner missing", {"widget": None}, False, 'widgets.example.com "w" not found'),
    # the kind not listed (another version): the walk stops at an owner it does not know, the Job is its own
    ("kind not listed", {"listed": "Widget.v2.example.com"}, True, None),
])
def test_a_job_under_an_external_frameworks_owner(tmp_path, case, kwargs, decided, said):
    ws = _load(tmp_path, **kwargs)
    assert bool([w for w in ws.model.workloads if w.origin and w.origin.kind == "Job"]) == decided, case
    reasons = {s.object.qualified: s.reason for s in ws.model.skipped}
    if said is not None:
        assert said in reasons["Job/default/j"], case
    listed = kwargs.get("listed") is None
    # the Widget is read (not listed as skipped, and no KAD159 for its kind) exactly where its kind is listed
    assert ("Widget/w" in reasons) != listed or kwargs.get("widget", QUEUED) is None, case
    assert any(d.code == "KAD159" for d in ws.diagnostics.items) != listed or kwargs.get("widget", QUEUED) is None
    assert not any(d.code == "KAD161" for d in ws.diagnostics.items), case


def test_kind_args_resources_and_custom_groups_as_kubernetes_reads_them():
    assert parse_kind_arg("AppWrapper.v1beta2.workload.codeflare.dev") == ("workload.codeflare.dev/v1beta2",
                                                                          "AppWrapper")
    assert parse_kind_arg("Widget.example") is None
    # meta.UnsafeGuessKindToResource: -s takes -es, -y takes -ies, else -s; the group after a dot
    assert resource("example.com/v1", "Widget") == "widgets.example.com"
    assert resource("example.com/v1", "Class") == "classes.example.com"
    assert resource("example.com/v1", "Policy") == "policies.example.com"
    assert resource("v1", "Pod") == "pods"
    assert custom("example.com") and custom("jobset.x-k8s.io")
    assert not custom("apps") and not custom("") and not custom("networking.k8s.io")


GADGET = """\
apiVersion: example.com/v1
kind: Gadget
metadata: {name: g}
"""


@pytest.mark.parametrize("config_first", [True, False])
def test_a_listed_kind_is_never_said_to_be_unread_whatever_the_file_order(tmp_path, config_first):
    """The reader lists a file's unread kinds (`Fragment.unread_kinds`) and says none of them: KAD159 is said once the
    input is merged, of the kinds the Configuration does not list, so the Configuration before the Widget's file or
    after it reads the same, and no KAD159 is said of the Widget at any point of the load."""
    from kadmit.diagnostics import Diagnostics

    said: list[str] = []
    emit = Diagnostics.emit

    def watched(self, code, message, *args, **kwargs):
        said.append(f"{code} {message}")
        return emit(self, code, message, *args, **kwargs)

    names = ("a__yaml", "z__yaml") if config_first else ("z__yaml", "a__yaml")
    files = {"setup__yaml": SETUP, "job__yaml": JOB, names[0]: CONFIG.format(listed="Widget.v1.example.com", manage=""),
             names[1]: WIDGET.format(labels=QUEUED) + "---\n" + GADGET}
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(Diagnostics, "emit", watched)
        ws = load(write(tmp_path, **files))
    assert not [s for s in said if "Widget" in s and s.startswith("KAD159")]
    kad159 = [(d.message, d.span.file.rsplit("/", 1)[-1], d.span.line) for d in ws.diagnostics.items if d.code == "KAD159"]
    widgets = "z.yaml" if config_first else "a.yaml"
    assert kad159 == [("kind `Gadget` (`example.com/v1`) is not read by kadmit; skipped", widgets, 5)]
    assert [w for w in ws.model.workloads if w.origin and w.origin.kind == "Job"] == []  # the Widget's Job
