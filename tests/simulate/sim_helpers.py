"""Shared inputs for the simulate tests: a small policy written as `.kad`, and traces."""

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
