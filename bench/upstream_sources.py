"""The repositories bench/upstream_sweep.py sweeps (its module docstring says how each becomes clusters)."""

# name, repository, revision, example globs, companion globs (files every example of the source needs:
# Trainer's runtimes, which its TrainJobs name), set-up: "generated" (module docstring), "kueue" (Kueue's own
# site set-ups), "companions" (the companions are the whole set-up: kueueviz's numbered files) or "folder" (a
# tutorial folder holding a ClusterQueue, all its files one cluster: `folder_clusters`) or "whole" (every
# file the globs name one cluster: a demo's set-up and jobs in folders side by side). Globs ending
# in `.md` take the documents' fenced YAML blocks that are whole objects, each block an example.
SOURCES = [
    ("jobset", "kubernetes-sigs/jobset", "HEAD", ["site/static/examples/**", "config/samples/*", "examples/**"], [],
     "generated"),
    ("lws", "kubernetes-sigs/lws", "HEAD", ["docs/examples/**", "config/samples/*"], [], "generated"),
    ("kuberay", "ray-project/kuberay", "HEAD", ["ray-operator/config/samples/*"], [], "generated"),
    ("trainer", "kubeflow/trainer", "HEAD", ["examples/yaml/*"], ["manifests/base/runtimes/**"], "generated"),
    ("training-operator-v1.9.3", "kubeflow/trainer", "v1.9.3", ["examples/**"], [], "generated"),
    ("appwrapper", "project-codeflare/appwrapper", "HEAD", ["samples/*"], [], "generated"),
    ("mpi-operator", "kubeflow/mpi-operator", "HEAD", ["examples/**"], [], "generated"),
    ("kueue", "kubernetes-sigs/kueue", "v0.17.0", ["site/static/examples/**"], [], "kueue"),
    # the versions Kueue v0.17.0 is built against (go.mod: JobSet v0.11, LWS v0.8), and Kueue's main
    ("jobset-release-0.11", "kubernetes-sigs/jobset", "release-0.11",
     ["site/static/examples/**", "config/samples/*", "examples/**"], [], "generated"),
    ("lws-release-0.8", "kubernetes-sigs/lws", "release-0.8", ["docs/examples/**", "config/samples/*"], [],
     "generated"),
    ("kueue-main", "kubernetes-sigs/kueue", "HEAD", ["site/static/examples/**"], [], "kueue"),
    ("kueueviz", "kubernetes-sigs/kueue", "v0.17.0", ["cmd/kueueviz/examples/0[3-6]*"],
     ["cmd/kueueviz/examples/0[0-2]*", "cmd/kueueviz/examples/07*"], "companions"),
    # the YAML in the projects' documents: Kueue's v0.17.0 site and KEPs, the others' docs, KEPs, proposals
    ("kueue-docs", "kubernetes-sigs/kueue", "v0.17.0", ["site/content/en/**.md", "keps/**.md"], [], "generated"),
    ("jobset-docs", "kubernetes-sigs/jobset", "HEAD", ["site/content/en/**.md", "keps/**.md"], [], "generated"),
    ("lws-docs", "kubernetes-sigs/lws", "HEAD", ["site/content/en/**.md", "keps/**.md", "docs/**.md"], [],
     "generated"),
    ("trainer-docs", "kubeflow/trainer", "HEAD", ["docs/**.md", "proposals/**.md"], ["manifests/base/runtimes/**"],
     "generated"),
    ("mpi-operator-docs", "kubeflow/mpi-operator", "HEAD", ["*.md", "proposals/**.md"], [], "generated"),
    ("appwrapper-docs", "project-codeflare/appwrapper", "HEAD", ["site/_pages/*.md"], [], "generated"),
    # the versions Kueue v0.17.0's go.mod pins of the other operators (KubeRay v1.6.0, Trainer v2.2.0, MPI
    # Operator v0.8.0, AppWrapper v1.2.0), Kueue's main docs and its v0.17.0 e2e DRA config, and new
    # projects: the Kubernetes project's examples and Spark Operator's (Kueue integrates SparkApplication)
    ("kuberay-v1.6.0", "ray-project/kuberay", "v1.6.0", ["ray-operator/config/samples/*"], [], "generated"),
    ("trainer-v2.2.0", "kubeflow/trainer", "v2.2.0", ["examples/**"], ["manifests/base/runtimes/**"],
     "generated"),
    ("mpi-operator-v0.8.0", "kubeflow/mpi-operator", "v0.8.0", ["examples/**"], [], "generated"),
    ("appwrapper-v1.2.0", "project-codeflare/appwrapper", "v1.2.0", ["samples/*"], [], "generated"),
    ("kueue-docs-main", "kubernetes-sigs/kueue", "HEAD", ["site/content/en/**.md", "keps/**.md"], [],
     "generated"),
    ("kueue-e2e-dra", "kubernetes-sigs/kueue", "v0.17.0", ["test/e2e/config/dra/*"], [], "generated"),
    ("k8s-examples", "kubernetes/examples", "HEAD", ["**"], [], "generated"),
    ("spark-operator", "kubeflow/spark-operator", "HEAD", ["examples/**"], [], "generated"),
    # where people write Kueue set-ups and jobs outside the projects themselves: Google Cloud's GKE samples and
    # AI-on-GKE tutorials, Open Data Hub's distributed-workloads examples and workshop, AWS's distributed
    # training samples; each file (and each document's YAML block) alone with a generated set-up, and each
    # tutorial folder holding a ClusterQueue as one cluster of all its files ("folder")
    ("gke-samples", "GoogleCloudPlatform/kubernetes-engine-samples", "2b5036514162a489145c5e5570bc320efbcb37bf",
     ["ai-ml/**", "batch/**", "hpc/**", "workloads/**", "autopilot/**", "autoscaling/**", "cost-optimization/**",
      "**.md"], [], "generated"),
    ("gke-samples-folders", "GoogleCloudPlatform/kubernetes-engine-samples",
     "2b5036514162a489145c5e5570bc320efbcb37bf", ["**"], [], "folder"),
    ("ai-on-gke", "GoogleCloudPlatform/ai-on-gke", "8676d66db221fcfae74b3cf2869695a7752c4f43",
     ["tutorials-and-examples/**", "ray-on-gke/**", "best-practices/**", "benchmarks/**", "**.md"], [],
     "generated"),
    ("odh-distributed-workloads", "opendatahub-io/distributed-workloads", "93184faaa5bce5cc0ed2a3f5958e78bbdb86181c",
     ["examples/**", "workshops/**", "benchmarks/**", "examples/**.md", "workshops/**.md"], [], "generated"),
    ("odh-distributed-workloads-folders", "opendatahub-io/distributed-workloads",
     "93184faaa5bce5cc0ed2a3f5958e78bbdb86181c", ["examples/**", "workshops/**"], [], "folder"),
    ("awsome-distributed-training", "aws-samples/awsome-distributed-training",
     "7217859f67bc693c52ff175ccc6082c41dbd7a1b", ["**"], [], "generated"),
    # releases after the ones swept before (soak8): Kueue v0.18.6 and v0.19.2's site examples and v0.18.6's
    # site documents, JobSet v0.12.0, LWS v0.10.0, KubeRay v1.7.0, and KubeRay's YAML outside its samples (its
    # e2e test data, kubectl plugin, benchmarks, history server, and the RayClusters of its documents)
    ("kueue-v0.18.6", "kubernetes-sigs/kueue", "v0.18.6", ["site/static/examples/**"], [], "kueue"),
    ("kueue-v0.19.2", "kubernetes-sigs/kueue", "v0.19.2", ["site/static/examples/**"], [], "kueue"),
    ("kueue-docs-v0.18.6", "kubernetes-sigs/kueue", "v0.18.6", ["site/content/en/**.md"], [], "generated"),
    ("jobset-v0.12.0", "kubernetes-sigs/jobset", "v0.12.0",
     ["site/static/examples/**", "config/samples/*", "examples/**"], [], "generated"),
    ("lws-v0.10.0", "kubernetes-sigs/lws", "v0.10.0", ["docs/examples/**", "config/samples/*"], [], "generated"),
    ("kuberay-v1.7.0", "ray-project/kuberay", "v1.7.0", ["ray-operator/config/samples/*"], [], "generated"),
    ("kuberay-other", "ray-project/kuberay", "feeaf72facab4881ba2b179248bb67315634e229",
     ["ray-operator/test/**", "kubectl-plugin/**", "benchmark/**", "historyserver/**", "**.md"], [], "generated"),
    # more set-ups people write (soak8): cloud vendors' and training courses' Kueue demos, a fleet manager's
    # Kueue guide, an OKE topology-aware walk-through; each file alone with a generated set-up, each tutorial
    # folder holding a ClusterQueue as one cluster ("folder"), and a demo whose set-up and jobs lie in folders
    # side by side as one cluster of the files its walk-through applies ("whole")
    ("aks-kueue-sample", "Azure-Samples/aks-kueue-sample", "034123d85b1ac094b2e29aa040447ef08a8aa9a7",
     ["kueue-manifests/**", "demo-jobs/**", "**.md"], [], "generated"),
    ("aks-kueue-sample-whole", "Azure-Samples/aks-kueue-sample", "034123d85b1ac094b2e29aa040447ef08a8aa9a7",
     ["kueue-manifests/cluster-queues.yaml", "kueue-manifests/local-queues.yaml",
      "kueue-manifests/priority-classes.yaml", "kueue-manifests/resource-flavors.yaml",
      "demo-jobs/team-?-job-high.yaml", "demo-jobs/team-?-job-low.yaml"], [], "whole"),
    ("aks-kueue-sample-mig-whole", "Azure-Samples/aks-kueue-sample", "034123d85b1ac094b2e29aa040447ef08a8aa9a7",
     ["kueue-manifests/*-mig.yaml", "kueue-manifests/local-queues.yaml", "kueue-manifests/priority-classes.yaml",
      "demo-jobs/*-mig-*.yaml"], [], "whole"),
    ("gke-kueue-dws", "jkwong888/gke-kueue-dws", "29f3b6b897fe6c323204d2c7fb12ac9ebd8c381a", ["**", "**.md"], [],
     "generated"),
    ("gke-kueue-dws-whole", "jkwong888/gke-kueue-dws", "29f3b6b897fe6c323204d2c7fb12ac9ebd8c381a",
     ["kueue-resources/*", "kueue-workload-jobs/*", "kueue-ray/raycluster.yaml", "gke/training-pod.yaml",
      "knative/hello-kueue-deployment.yaml"], [], "whole"),
    ("llm-on-gke-kueue-ray", "llm-on-gke/kueue-ray", "f7fcf64e21c8ccc4a609e376bf35d0525d97f00f", ["**", "**.md"], [],
     "generated"),
    ("llm-on-gke-kueue-ray-folders", "llm-on-gke/kueue-ray", "f7fcf64e21c8ccc4a609e376bf35d0525d97f00f", ["**"], [],
     "folder"),
    ("redhat-na-ssa-kueue", "redhat-na-ssa/kueue", "4e98a3cf4053dc8a3276dc48e38a45a3f626ec6e", ["**", "**.md"], [],
     "generated"),
    ("redhat-na-ssa-kueue-folders", "redhat-na-ssa/kueue", "4e98a3cf4053dc8a3276dc48e38a45a3f626ec6e", ["**"], [],
     "folder"),
    ("maas-kueue-enablement", "RedHatQuickCourses/maas-kueue-enablement", "2c8d3668b4651fd3ca77e6275db08dec9ce8781a",
     ["modules/**", "prompts/**.md", "references/**.md"], [], "generated"),
    ("maas-kueue-enablement-folders", "RedHatQuickCourses/maas-kueue-enablement",
     "2c8d3668b4651fd3ca77e6275db08dec9ce8781a", ["modules/**"], [], "folder"),
    ("gke-kueue-demo", "mikouaj/gke-kueue-demo", "fe3921f51b425f61bf69cddc035b4d20117dc1fe", ["**", "**.md"], [],
     "generated"),
    ("kubefleet-docs", "kubefleet-dev/website", "7647ead73e53d0b8da72850ac4c0bc71ac4a86e8",
     ["content/en/docs/how-tos/*kueue*.md"], [], "generated"),
    ("oke-topology-aware", "OguzPastirmaci/misc", "bae3a292e2482a95f8f67c8e91a1af9258ffa48e",
     ["oke-topology-aware/**", "oke-topology-aware/**.md"], [], "generated"),
    # fresh sources (soak11): NVIDIA's KAI Scheduler's examples (jobs naming KAI's queue, none of Kueue's: Kueue's
    # LocalQueueDefaulting names the generated `default`), the OpenShift Kueue operator's examples and e2e objects,
    # a Slurm-bridge lab's and two MultiKueue labs' jobs, a TAS teaching lab's set-up and jobs, an HPC gang demo,
    # KubeVirt VMs under Kueue
    ("kai-scheduler", "NVIDIA/KAI-Scheduler", "72de64fc8eca10fa8cca26a20156178f3edbe092", ["docs/**", "docs/**.md"],
     [], "generated"),
    ("openshift-kueue-operator", "openshift/kueue-operator", "dc3b65774c4536465086f076f8b4b2d78326f890",
     ["deploy/examples/*", "test/e2e/bindata/assets/qe/*", "**.md"], [], "generated"),
    ("openshift-kueue-operator-folders", "openshift/kueue-operator", "dc3b65774c4536465086f076f8b4b2d78326f890",
     ["test/e2e/bindata/assets/qe/*"], [], "folder"),
    ("slurm-kueue-ocp", "kannon92/slurm-kueue-ocp", "64a080c34dea8cd99647a0156a0c3dffa051d34d",
     ["examples/**", "kueue/*", "**.md"], ["examples/trainjob/cluster-training-runtime.yaml"], "generated"),
    ("multikueue-testing", "CameronMcClymont/multikueue-testing", "d607197278458583ab800f4ca0cd08b6dc403f7d",
     ["**", "**.md"], [], "generated"),
    ("multi-kueue-pocs", "Bobbins228/multi-kueue-pocs", "f8b7f2a8cce4bea2ce9b2677d9066384fd30fa4c",
     ["**", "**.md"], [], "generated"),
    ("kueue-lab", "olivercodes/kueue-lab", "fca7f2a3c791105995a12fc608c11fccc636db5e",
     ["jobs/*", "manifests/0*", "**.md"], [], "generated"),
    ("hpc-kueue", "oleg-vorobiov-suse/hpc-kueue", "f0bcf7e4321765c0581090eba2f273db433f26b2", ["**", "**.md"], [],
     "generated"),
    ("hpc-kueue-folders", "oleg-vorobiov-suse/hpc-kueue", "f0bcf7e4321765c0581090eba2f273db433f26b2", ["**"], [],
     "folder"),
    ("gpu-for-vms-with-kueue", "raphaelmorsch/gpu-for-vms-with-kueue", "492f3f376bc4eee0b85bdd7860f1da2fba31236b",
     ["deploy/*", "**.md"], [], "generated"),
    # releases before the swept ones: Kueue v0.16.9's site examples, the training operator v1.8.1's
    ("kueue-v0.16.9", "kubernetes-sigs/kueue", "v0.16.9", ["site/static/examples/**"], [], "kueue"),
    ("training-operator-v1.8.1", "kubeflow/trainer", "v1.8.1", ["examples/**"], [], "generated"),
    # the newest releases `fetch` serves (soak13): Trainer v2.3.0 (its Flux runtime's GPU TrainJob is new; v1.9.4,
    # AppWrapper v1.2.1 and JobSet v0.13.0-devel change no example of the swept ones)
    ("trainer-v2.3.0", "kubeflow/trainer", "v2.3.0", ["examples/**"], ["manifests/base/runtimes/**"], "generated"),
    # fresh sources `fetch` mirrors (soak13): a Kueue platform repo's use cases (MIG sharing cohorts, scoped queues),
    # a Kueue benchmark's test jobs, Konflux's external admission check and Tekton's Kueue integration (their
    # configs and samples: PipelineRuns, which Kueue's pod integration takes through their pods)
    ("kueue-system", "JohanvanderVelde/kueue-system", "e01814991edc877040d84e38d9fbd2b6f1172109", ["**", "**.md"], [],
     "generated"),
    ("kueue-bench", "jhwagner/kueue-bench", "5a86253d1fe1372e3496da37eb0d26b83d4d0601", ["hack/**", "test/**", "**.md"],
     [], "generated"),
    ("konflux-kueue-external-admission", "konflux-ci/kueue-external-admission",
     "368712063a50e4157c6919fb5ed361a59b434b37", ["**", "**.md"], [], "generated"),
    ("tekton-kueue", "tektoncd/tekton-kueue", "38e3e60574a583b422a48aca686073385c21454b", ["**", "**.md"], [],
     "generated"),
    # fresh (soak14): a company fork of Kueue at v0.4 (v1beta1 examples: a Job, an MPIJob and their ClusterQueue)
    ("epam-kubernetes-kueue", "epam/kubernetes-kueue", "c7b663abdb892466a7604fb20213b5e59fa03b6c", ["examples/**"], [],
     "generated"),
]

REPEATS = 8  # a "folder" source's `-repeated` cluster: how many times each file of a `generateName` job

# the sources' licenses where not Apache-2.0 (each cluster file's first line names it)
LICENSES = {"aws-samples/awsome-distributed-training": "MIT-0", "kubefleet-dev/website": "CC-BY-4.0",
            "CameronMcClymont/multikueue-testing": "MIT",
            **{slug: "no license stated: swept where fetch mirrors it, never copied into this repository"
               for slug in ("Azure-Samples/aks-kueue-sample", "jkwong888/gke-kueue-dws", "llm-on-gke/kueue-ray",
                            "redhat-na-ssa/kueue", "RedHatQuickCourses/maas-kueue-enablement", "OguzPastirmaci/misc",
                            "olivercodes/kueue-lab", "oleg-vorobiov-suse/hpc-kueue", "Bobbins228/multi-kueue-pocs",
                            "raphaelmorsch/gpu-for-vms-with-kueue", "JohanvanderVelde/kueue-system")}}
