"""The trace's `tolerations` column: Kueue's admission checks it against flavor taints, the
kube-scheduler model against node taints; bad cells are refused with their file and line."""

from kadmit import api
from kadmit.model import Toleration
from kadmit.simulate.trace import parse_tolerations

POLICY = """
flavor spot { node_labels = { pool = "spot" }  node_taints = ["spot=true:NoSchedule"] }
flavor ondemand { node_labels = { pool = "od" } }
namespace a {}
cluster_queue q {
  namespaces = {}
  resources cpu {
    flavor spot { cpu = 4 }
    flavor ondemand { cpu = 2 }
  }
}
local_queue a/lq -> q
node s0 {
  labels = { pool = "spot", "kubernetes.io/hostname" = "s0" }
  taints = ["spot=true:NoSchedule"]
  allocatable = { cpu = 4, pods = 110 }
}
node o0 {
  labels = { pool = "od", "kubernetes.io/hostname" = "o0" }
  allocatable = { cpu = 2, pods = 110 }
}
node t0 {
  labels = { pool = "other", "kubernetes.io/hostname" = "t0" }
  taints = ["dedicated=ml:NoExecute"]
  allocatable = { cpu = 2, pods = 110 }
}
"""

HEADER = "time,namespace,name,queue,priority,pods,duration,cpu,tolerations\n"


def _run(tmp_path, rows: list[str]):
    (tmp_path / "p.kad").write_text(POLICY)
    (tmp_path / "t.csv").write_text(HEADER + "\n".join(rows) + "\n")
    return api.simulate([str(tmp_path / "p.kad")], trace=str(tmp_path / "t.csv"))


def test_tolerations_reach_admission_and_kube_scheduler(tmp_path):
    out = _run(tmp_path, [
        '0,a,tol,lq,,1,60,2,"spot=true:NoSchedule"',  # may use the tainted spot flavor, its first
        "0,a,plain,lq,,1,60,2,",  # may not: ondemand
        "1,a,ded,,,1,60,2,dedicated:NoExecute",  # no queue: o0 is full, t0's taint is tolerated
        "1,a,none,,,1,60,2,",  # tolerates nothing: s0 and t0 are tainted, o0 is full until 60
        '2,a,all,,,1,60,1,"*"',  # every taint: s0 has room
    ])
    assert out.exit_code == 0, out.diagnostics
    got = {w["workload"]: (w["admitted_at"], w["pod_sets"][0]["flavors"], w["pod_sets"][0]["placement"])
           for w in out.result["workloads"]}
    assert got == {"a/tol": (0.0, ["spot"], {"s0": 1}), "a/plain": (0.0, ["ondemand"], {"o0": 1}),
                   "a/ded": (1.0, [], {"t0": 1}), "a/none": (60.0, [], {"o0": 1}), "a/all": (2.0, [], {"s0": 1})}


def test_bad_tolerations_are_refused_with_their_line(tmp_path):
    out = _run(tmp_path, ["0,a,x,lq,,1,60,1,spot=true:Sometimes", "0,a,y,lq,,1,60,1,=x",
                          '0,a,z,lq,,1,60,1,"ok:NoSchedule,bad key"', "0,a,w,lq,,1,60,1,spot:NoSchedule"])
    assert out.exit_code == 2
    found = sorted((d.code, d.span.file.endswith("t.csv"), d.span.line) for d in out.diagnostics
                   if d.code.startswith("KAD7"))
    assert found == [("KAD701", True, 2), ("KAD701", True, 3), ("KAD701", True, 4)]
    assert "Sometimes" in next(d.message for d in out.diagnostics if d.span.line == 2)


def test_toleration_syntax():
    assert parse_tolerations("a=b:NoSchedule, c:NoExecute,d=e,f,*") == ((
        Toleration(key="a", value="b", effect="NoSchedule"), Toleration(key="c", operator="Exists", effect="NoExecute"),
        Toleration(key="d", value="e"), Toleration(key="f", operator="Exists"), Toleration(operator="Exists")), None)
    assert parse_tolerations("nvidia.com/gpu:NoSchedule")[0] == (
        Toleration(key="nvidia.com/gpu", operator="Exists", effect="NoSchedule"),)
    assert parse_tolerations("")[0] == ()
    for bad in ("a:Never", "=b", "a b", "a=b c", ":NoSchedule"):
        assert parse_tolerations(bad)[1] is not None, bad


def test_jsonl_tolerations_as_a_list(tmp_path):
    (tmp_path / "p.kad").write_text(POLICY)
    (tmp_path / "t.jsonl").write_text('{"time": 0, "namespace": "a", "name": "tol", "queue": "lq", "pods": 1, '
                                      '"duration": 60, "cpu": 2, "tolerations": ["spot=true:NoSchedule"]}\n')
    out = api.simulate([str(tmp_path / "p.kad")], trace=str(tmp_path / "t.jsonl"))
    assert out.exit_code == 0, out.diagnostics
    assert out.result["workloads"][0]["pod_sets"][0]["flavors"] == ["spot"]
