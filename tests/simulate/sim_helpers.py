"""Shared inputs for the simulate tests: a small policy written as `.kad`, nodes, and traces."""

from datetime import datetime, timezone

from kadmit import workspace as ws

POLICY = """
flavor default {}
priority low = 10
priority high = 100
namespace a {}
cluster_queue q {
  namespaces = {}
  preemption {
    within_cluster_queue = lower_priority
  }
  resources cpu {
    flavor default { cpu = 4 }
  }
}
local_queue a/lq -> q
"""



def write_trace(tmp_path, rows: list[str], name: str = "trace.csv") -> str:
    p = tmp_path / name
    p.write_text("time,namespace,name,queue,priority,pods,duration,cpu\n" + "\n".join(rows) + "\n")
    return str(p)


# Four GPU nodes in two racks and three CPU nodes, for the generated-trace properties.
NODES = "".join(f"""
node g{i} {{
  labels = {{ kind = "gpu", rack = "r{i // 2}", "kubernetes.io/hostname" = "g{i}" }}
  allocatable = {{ cpu = 8, nvidia.com/gpu = 4, pods = 110 }}
}}""" for i in range(4)) + "".join(f"""
node c{i} {{
  labels = {{ kind = "cpu", "kubernetes.io/hostname" = "c{i}" }}
  allocatable = {{ cpu = 4, pods = 110 }}
}}""" for i in range(3))

START = datetime(2026, 1, 1, tzinfo=timezone.utc)


def load_cluster(tmp_path_factory, text: str):
    """The model of `text` written as one `.kad` file, which must read without an error."""
    d = tmp_path_factory.mktemp("cluster")
    (d / "c.kad").write_text(text)
    got = ws.load([str(d)])
    assert not [x for x in got.diagnostics if x.severity.value == "error"], got.diagnostics.sorted()
    return got.model
