"""A TrainJob's pod sets as the JobSet Kueue builds of it holds them (jobs/trainjobpods.py): the runtime patches'
strategic merge, the mlPolicy plugins' counts, the JobSet builder's Initializer and Trainer steps; what a plugin
rewrites in place kept as read with KAD161. The oracle's cases: tests/oracle/features/trainjob-*-workload-*.yaml."""

from __future__ import annotations

from pathlib import Path

from kadmit.manifests.jobs.trainjobpods import merge_list, omitempty
from kadmit.workspace import load

FEATURES = Path(__file__).resolve().parents[1] / "oracle" / "features"
TORCH = FEATURES / "trainjob-torch-trainer-fields-workload-in-step.yaml"
MPI = FEATURES / "trainjob-mpi-launcher-as-node-workload-in-step.yaml"
INIT = FEATURES / "trainjob-initializer-workload-in-step.yaml"
PATCHES = FEATURES / "trainjob-runtime-patches-workload-in-step.yaml"
KUEUES = FEATURES / "trainjob-running-with-kueues-runtime-patch-in-step.yaml"
IN_PLACE = FEATURES / "trainjob-plugin-env-rewritten-in-place-in-step.yaml"
MPI_MOUNT = FEATURES / "trainjob-mpi-ssh-mount-rewritten-in-place-in-step.yaml"
FLUX = FEATURES / "trainjob-flux-workload-in-step.yaml"
AFTER_APPEND = FEATURES / "trainjob-plugin-env-rewritten-after-append.yaml"


def _codes(path: Path) -> list[str]:
    ws = load([str(path)])
    assert not ws.diagnostics.has_errors, [str(d) for d in ws.diagnostics]
    return [d.code for d in ws.diagnostics]


def _variant(tmp_path: Path, base: Path, *edits: tuple[str, str]) -> Path:
    text = base.read_text(encoding="utf-8")
    for old, new in edits:
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    (tmp_path / "c.yaml").write_text(text, encoding="utf-8")
    return tmp_path / "c.yaml"


def test_a_patch_merges_by_key_its_items_first_in_its_order():
    """strategicpatch's mergeSlice and normalizeElementOrder: matched items merged, new ones added, the patch's
    items in its order before the original's left, interleaved where both stand in the original."""
    original = [{"name": "a", "image": "x"}, {"name": "b"}, {"name": "c"}]
    merged = merge_list(original, [{"name": "c", "env": [{"name": "E", "value": "1"}]}, {"name": "new"}], "name")
    assert [m["name"] for m in merged] == ["a", "b", "c", "new"]
    assert merged[2]["env"] == [{"name": "E", "value": "1"}]
    assert [m["name"] for m in merge_list(original, [{"name": "c"}, {"name": "a"}], "name")] == ["b", "c", "a"]
    assert [m["name"] for m in merge_list(original, [{"name": "new"}, {"name": "b"}], "name")] == \
        ["new", "a", "b", "c"]
    nested = merge_list([{"name": "n", "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]}],
                        [{"name": "n", "env": [{"name": "B", "value": "3"}]}], "name")
    assert nested[0]["env"] == [{"name": "A", "value": "1"}, {"name": "B", "value": "3"}]


def test_a_patch_is_read_as_go_marshals_it():
    """The Trainer decodes a patch into its types and marshals it with omitempty: an empty value merges nothing."""
    assert omitempty({"name": "n", "env": [], "securityContext": {}, "x": "", "y": None}) == \
        {"name": "n", "securityContext": {}}
    assert omitempty({"securityContext": {"runAsUser": 0, "privileged": False},
                      "volumeMounts": [{"name": "v", "mountPath": "/v", "readOnly": False}]}) == \
        {"securityContext": {"runAsUser": 0, "privileged": False}, "volumeMounts": [{"name": "v", "mountPath": "/v"}]}
    assert omitempty([{"key": "k", "operator": "Exists", "tolerationSeconds": 0}]) == \
        [{"key": "k", "operator": "Exists", "tolerationSeconds": 0}]


def test_in_step_workloads_of_every_runtime_are_kept_without_a_warning():
    """torch with trainer fields, MPI with runLauncherAsNode, an initializer, runtime patches (a user's, Kueue's
    own): Kueue keeps each Workload (oracle); kadmit builds what Kueue compares and neither deletes it (KAD175) nor
    warns (KAD161)."""
    for path in (TORCH, MPI, INIT, PATCHES, KUEUES, MPI_MOUNT):
        codes = _codes(path)
        assert "KAD175" not in codes and "KAD161" not in codes, (path.name, codes)


def test_mpi_counts_the_launcher_as_a_node():
    """The launcher (the trainer) takes mlPolicy.numNodes (1), `node` numNodes - 1 (runLauncherAsNode)."""
    ws = load([str(MPI)])
    tj = next(w for w in ws.model.workloads if w.name == "trainjob-tj-a2368")
    assert [(p.name, p.count) for p in tj.pod_sets] == [("launcher", 1), ("node", 2)]


def test_an_env_var_a_plugin_rewrites_in_place_is_built(tmp_path):
    """The runtime's `node` container already setting PET_NNODES and PET_NPROC_PER_NODE: the torch plugin
    rewrites them in the array the JobSet shares (oracle: the Workload with "3" and "2" in step), so a Workload
    keeping the runtime's "9" is out of step (KAD175)."""
    assert not {"KAD161", "KAD175"} & set(_codes(IN_PLACE))
    path = _variant(tmp_path, IN_PLACE, ("- {name: PET_NNODES, value: '3'}", "- {name: PET_NNODES, value: '9'}"))
    codes = _codes(path)
    assert "KAD175" in codes and "KAD161" not in codes, codes


def test_a_rewrite_in_place_after_an_append_is_built(tmp_path):
    """The TrainJob's `trainer.env` adds a variable before torch's PET_NNODES is rewritten in place: the runtime's
    one var filled the slice Go's JSON decoding made (capacity 1), so the append moved it and the JobSet keeps the
    runtime's "9" (oracle: trainjob-plugin-env-rewritten-after-append.yaml): not said to may differ (KAD161); the
    Workload, without PET_NNODES, is out of step (KAD175). With a second var in the runtime (capacity 2) alike; with
    a third (capacity 4) the rewrite is seen."""
    from kadmit.manifests.jobs.trainjobpods import _go_cap

    assert [_go_cap(n) for n in (1, 2, 3, 4, 5, 6)] == [1, 2, 4, 4, 8, 8]
    image = " " * 18 + "image: pytorch\n"
    path = _variant(tmp_path, TORCH, (image, image + " " * 18 + "env: [{name: PET_NNODES, value: '9'}]\n"))
    codes = _codes(path)
    assert "KAD161" not in codes and "KAD175" in codes, codes
    assert "KAD161" not in _codes(AFTER_APPEND)


def test_a_flux_runtime_is_built_save_without_a_trainer(tmp_path):
    """The flux plugin's part (oracle: trainjob-flux-workload-in-step.yaml) is built: nothing kept as read (KAD161);
    a TrainJob with no `trainer`, whose env the plugin reads, is (the Workload kept as read, said)."""
    assert "KAD161" not in _codes(FLUX), _codes(FLUX)
    ws = load([str(_variant(tmp_path, FLUX, ("  trainer: {args: [--lr, '1']}\n", "")))])
    said = [d.message for d in ws.diagnostics if d.code == "KAD161"]
    assert len(said) == 1 and "`ml/wl-tjc`" in said[0] and "`mlPolicy.flux` with no `trainer`" in said[0], said


def test_kueue_labels_in_a_patch_are_not_read():
    """A queue name and a priority class in a runtime patch's metadata: Kueue reads neither (oracle), nor does
    kadmit, and it does not warn of them."""
    codes = _codes(FEATURES / "trainjob-runtime-patch-kueue-labels-not-read.yaml")
    assert "KAD161" not in codes, codes


def test_a_torchtune_command_is_built(tmp_path):
    """The torch plugin's torchtune arguments (oracle: trainjob-torchtune-command-in-step.yaml) are built: nothing kept
    as read (KAD161), every Workload in step; one whose config is the multi-device one where the TrainJob runs one
    process on one node is out of step (KAD175)."""
    TUNE = FEATURES / "trainjob-torchtune-command-in-step.yaml"
    assert not {"KAD161", "KAD175"} & set(_codes(TUNE))
    path = _variant(tmp_path, TUNE, ("full_finetune_single_device, --config, llama3_2/1B_full_single_device",
                                     "full_finetune_distributed, --config, llama3_2/1B_full"))
    codes = _codes(path)
    assert "KAD175" in codes and "KAD161" not in codes, codes
