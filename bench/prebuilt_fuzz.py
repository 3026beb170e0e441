"""Prebuilt Workloads against the oracle, drawn at random (issue 18 J11): a batch Job naming a prebuilt Workload,
the two alike or differing in a few places — container fields written as Go zero values or empty pointers,
tolerations, counts, minCount and the Job's job-min-parallelism, a node selector agreeing with the flavor's
node labels or not — the Workload owned by the Job's UID or no one's, pending, holding quota while its
admission check is Pending (its podSetUpdates adding a toleration or not) or admitted, partially or not,
its flavor tolerating a taint or not, the Job suspended or running; beside it ns/big (7 of 10 cpu), which
fits only if the Workload's quota is freed. Each cluster goes to the oracle and to kadmit: they must skip
the same objects (out of sync, controlled by another) and decide ns/big alike.

    PYTHONPATH=src python bench/prebuilt_fuzz.py --seed 4 --n 100 [--submitted] [--keep DIR]

prints each cluster that differs and a summary line (`done N differ D out-of-sync O`).
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ORACLE = ROOT / "tools" / "kueue-oracle" / "kueue-oracle"


UID = "11111111-1111-1111-1111-111111111111"
EXTRAS = ["", "stdin: false, ", "securityContext: {}, ", "readinessProbe: {exec: {command: [a]}}, ",
          "readinessProbe: {exec: {command: [a]}, periodSeconds: 0}, ", "env: [], ", "workingDir: '', ", "tty: true, "]
TOLS = [[], [{"key": "t", "operator": "Exists", "effect": "NoSchedule"}], [{"key": "u", "operator": "Exists"}],
        [{"key": "t", "operator": "Exists", "effect": "NoSchedule"}, {"key": "u", "operator": "Exists"}]]


def tol(ts: list) -> str:
    return json.dumps(ts)


# what the API server sets in the Job's container (image `busybox`) when it creates it (SetDefaults_Container)
SERVER_SET = "imagePullPolicy: Always, terminationMessagePath: /dev/termination-log, terminationMessagePolicy: File, "


def case(R: random.Random, S: random.Random | None = None) -> str:
    """One cluster, drawn from R; with S (drawn apart, so that R's draws stay those of earlier runs), the Job
    may be being submitted (no UID, no status: the API server defaults its containers) and the Workload's
    containers may set what the server sets (a stored Job's too, as the server holds it)."""
    submitted = S is not None and S.random() < 0.3
    server_set = S is not None and S.random() < 0.5
    flavor_tol = R.random() < 0.6
    check = R.random() < 0.5
    state = R.choice(["none", "reserved", "admitted"])
    if state == "reserved" and not check:  # reserved, not admitted: waiting for a check
        state = R.choice(["none", "admitted"])
    count = R.choice([2, 3, 4])
    minc = R.choice([None, None, 1, 2]) if count > 2 else None
    adm = R.choice([c for c in range(minc or count, count + 1)]) if minc else count
    owned = R.random() < 0.5
    suspend = R.choice([True, False])
    par = R.choice([2, 3, 4, adm]) if R.random() < 0.3 else (adm if not suspend else count)
    jmin = R.choice([None, None, 1, 2, par]) if R.random() < 0.3 else minc
    wtol = R.choice(TOLS)
    jtol = R.choice(TOLS) if R.random() < 0.4 else wtol
    we = R.choice(EXTRAS)
    je = R.choice(EXTRAS) if R.random() < 0.4 else we
    upd = check and R.random() < 0.4
    sel = R.choice(["", "nodeSelector: {pool: f0}", "nodeSelector: {pool: x}"])
    docs = [f"""apiVersion: kueue.x-k8s.io/v1beta2
kind: ResourceFlavor
metadata: {{name: f0}}
spec:
  nodeLabels: {{pool: f0}}
""" + ("  tolerations: [{key: t, operator: Exists, effect: NoSchedule}]\n" if flavor_tol else "")]
    if check:
        docs.append("""apiVersion: kueue.x-k8s.io/v1beta2
kind: AdmissionCheck
metadata: {name: chk}
spec: {controllerName: example.com/check}
status:
  conditions: [{type: Active, status: "True", reason: Active, message: x, lastTransitionTime: "2026-11-01T00:00:00Z"}]
""")
    docs.append("""apiVersion: kueue.x-k8s.io/v1beta2
kind: ClusterQueue
metadata: {name: cq}
spec:
  namespaceSelector: {}
""" + ("  admissionChecksStrategy: {admissionChecks: [{name: chk}]}\n" if check else "") + """  resourceGroups:
  - coveredResources: [cpu]
    flavors: [{name: f0, resources: [{name: cpu, nominalQuota: "10"}]}]
""")
    docs.append("apiVersion: v1\nkind: Namespace\nmetadata: {name: ns}\n")
    docs.append("apiVersion: kueue.x-k8s.io/v1beta2\nkind: LocalQueue\nmetadata: {name: lq, namespace: ns}\nspec: {clusterQueue: cq}\n")
    status = ""
    if state != "none":
        conds = '  - {type: QuotaReserved, status: "True", reason: QuotaReserved, message: x, lastTransitionTime: "2026-11-01T00:00:00Z"}\n'
        if state == "admitted":
            conds += '  - {type: Admitted, status: "True", reason: Admitted, message: x, lastTransitionTime: "2026-11-01T00:00:00Z"}\n'
        status = f"""status:
  admission:
    clusterQueue: cq
    podSetAssignments: [{{name: main, count: {adm}, flavors: {{cpu: f0}}, resourceUsage: {{cpu: "{adm}"}}}}]
  conditions:
{conds}"""
        if check:
            status += "  admissionChecks:\n  - {name: chk, state: " + ("Ready" if state == "admitted" else "Pending") + ", message: '', lastTransitionTime: '2026-11-01T00:00:00Z'" + (", podSetUpdates: [{name: main, tolerations: [{key: u, operator: Exists}]}]" if upd else "") + "}\n"
    owner = f"\n  ownerReferences: [{{apiVersion: batch/v1, kind: Job, name: j, uid: {UID}, controller: true}}]" if owned else ""
    docs.append(f"""apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata:
  name: pre
  namespace: ns
  creationTimestamp: "2026-11-01T01:00:00Z"{owner}
spec:
  queueName: lq
  podSets:
  - name: main
    count: {count}
""" + (f"    minCount: {minc}\n" if minc else "") + f"""    template:
      spec:
        restartPolicy: Never
        {sel + chr(10) + '        ' if sel else ''}tolerations: {tol(wtol)}
        containers: [{{name: c, image: busybox, {SERVER_SET if server_set else ""}{we}resources: {{requests: {{cpu: "1"}}}}}}]
{status}""")
    docs.append("""apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: big, namespace: ns, creationTimestamp: "2026-11-01T02:00:00Z"}
spec:
  queueName: lq
  podSets: [{name: main, count: 7, template: {spec: {containers: [{name: c, image: busybox, resources: {requests: {cpu: "1"}}}]}}}]
""")
    ann = f"\n  annotations: {{kueue.x-k8s.io/job-min-parallelism: \"{jmin}\"}}" if jmin else ""
    docs.append(f"""apiVersion: batch/v1
kind: Job
metadata:
  name: j
  namespace: ns{"" if submitted else chr(10) + "  uid: " + UID}
  creationTimestamp: "2026-11-01T01:00:00Z"
  labels: {{kueue.x-k8s.io/queue-name: lq, kueue.x-k8s.io/prebuilt-workload-name: pre}}{ann}
spec:
  suspend: {str(suspend).lower()}
  parallelism: {par}
  completions: 4
  template:
    spec:
      restartPolicy: Never
      {sel + chr(10) + '      ' if sel else ''}tolerations: {tol(jtol)}
      containers: [{{name: c, image: busybox, {SERVER_SET if server_set and not submitted else ""}{je}resources: {{requests: {{cpu: "1"}}}}}}]
""" + ("status: {active: 1}\n" if not suspend and R.random() < 0.5 and not submitted else ""))
    return "---\n".join(docs)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--n", type=int, default=100)
    ap.add_argument("--keep", help="a folder to write every cluster to (else a temporary one)")
    ap.add_argument("--submitted", action="store_true", help="draw Jobs being submitted too, and Workloads "
                    "setting the container fields the API server sets (SetDefaults_Container)")
    args = ap.parse_args()
    rnd = random.Random(args.seed)
    apart = random.Random(f"{args.seed}/submitted") if args.submitted else None
    out = Path(args.keep or tempfile.mkdtemp(prefix="prebuilt-fuzz-"))
    out.mkdir(parents=True, exist_ok=True)
    differ = oos = 0
    for i in range(args.n):
        p = out / f"c{args.seed}-{i}.yaml"
        p.write_text(case(rnd, apart), encoding="utf-8")
        o = json.loads(subprocess.run([str(ORACLE), "admit", "--format", "json", str(p)], capture_output=True,
                                      text=True).stdout or "{}")
        kr = subprocess.run([sys.executable, "-m", "kadmit", "admit", "--format", "json", str(p)], capture_output=True,
                            text=True)
        if not o or not kr.stdout:
            differ += 1
            print(i, p, "no answer:", "oracle" if not o else f"kadmit exit {kr.returncode}: {kr.stderr[:300]}")
            continue
        k = json.loads(kr.stdout)
        o_skip, k_skip = sorted(x["name"] for x in o["skipped"]), sorted(x["name"] for x in k.get("skipped", []))
        o_big = any(x["workload"] == "ns/big" and (x["quota_reserved"] or x["admitted"]) for x in o["decisions"])
        k_big = any(x["workload"] == "ns/big" and (x["admitted"] or x.get("quota_reserved")) for x in k["decisions"])
        oos += bool(o_skip)
        if o_skip != k_skip or o_big != k_big:
            differ += 1
            print(i, p, "oracle skips", o_skip, "ns/big", o_big, "| kadmit skips", k_skip, "ns/big", k_big)
    print("done", args.n, "differ", differ, "out-of-sync", oos)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
