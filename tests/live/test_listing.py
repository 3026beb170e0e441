"""kubectl's YAML listings split into one document per object, each reading as the item it was."""

from __future__ import annotations

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from kadmit.live.listing import holds_key, name_of, split_list, top_level

LISTING = """\
apiVersion: v1
items:
- apiVersion: v1
  data:
    controller_manager_config.yaml: |
      apiVersion: config.kueue.x-k8s.io/v1beta2
      kind: Configuration

      fairSharing: {}
    other: x
  kind: ConfigMap
  metadata:
    name: kueue-manager-config
    namespace: kueue-system
- apiVersion: v1
  data:
    kept: |+
      trailing blank lines are the value's


  kind: ConfigMap
  metadata:
    name: "true"
    namespace: kueue-system
kind: List
metadata:
  resourceVersion: ""
"""


def test_a_listing_splits_into_its_items_as_written() -> None:
    docs = split_list(LISTING)
    assert docs is not None and len(docs) == 2
    assert docs[0].startswith("apiVersion: v1\ndata:\n  controller_manager_config.yaml: |\n    apiVersion:")
    assert [yaml.safe_load(d) for d in docs] == yaml.safe_load(LISTING)["items"]
    assert next(yaml.safe_load_all(docs[1] + "\n---\n"))["data"]["kept"] == "trailing blank lines are the value's\n\n\n"
    assert [holds_key(d, "controller_manager_config.yaml") for d in docs] == [True, False]
    assert [name_of(d) for d in docs] == ["kueue-manager-config", "true"]
    assert [top_level(d, "kind") for d in docs] == ["ConfigMap", "ConfigMap"]


def test_an_empty_listing_has_no_items() -> None:
    assert split_list('apiVersion: v1\nitems: []\nkind: List\nmetadata:\n  resourceVersion: ""\n') == []


def test_a_text_not_laid_out_as_kubectl_lays_out_a_listing_is_not_split() -> None:
    assert split_list('{"apiVersion": "v1", "items": [], "kind": "List"}') is None
    assert split_list("apiVersion: v1\nitems:\n  - apiVersion: v1\n    kind: Pod\nkind: List\n") is None
    assert split_list("apiVersion: v1\nitems:\n- apiVersion: v1\n  kind: Pod\nkind: Pod\n") is None
    assert split_list("apiVersion: v1\nitems:\n- a: 1\nx: 2\n") is None
    assert split_list("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\n") is None


# Values as YAML emitters write them: strings with newlines, blank lines, `---` and `...`, quotes,
# leading spaces, numbers and booleans as strings; nested mappings and lists.
_text = st.lists(st.sampled_from(list("ab -:#'\"\n\t") + ["---", "...", "é", "  "]), max_size=12).map("".join)
_scalar = st.one_of(_text, st.integers(), st.booleans(), st.none(), st.sampled_from(["true", "1", "0x1", "~"]))
_value = st.recursive(_scalar, lambda inner: st.one_of(
    st.lists(inner, max_size=3), st.dictionaries(st.sampled_from(["a", "b", "c d", "data", "kind"]), inner,
                                                 max_size=3)), max_leaves=12)
_object = st.dictionaries(st.sampled_from(["spec", "status", "data", "x"]), _value, max_size=4).map(
    lambda d: {"apiVersion": "v1", "kind": "Thing", "metadata": {"name": "n"}, **d})


@settings(max_examples=150, deadline=None)
@given(st.lists(_object, max_size=4), st.sampled_from([80, 20, 4096]))
def test_every_item_of_a_block_style_listing_reads_back_as_itself(items: list[dict], width: int) -> None:
    # PyYAML lays out a List as kubectl's go-yaml does (sorted keys, sequences at their key's column)
    text = yaml.safe_dump({"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}},
                          sort_keys=True, default_flow_style=False, allow_unicode=True, width=width)
    docs = split_list(text)
    assert docs is not None and len(docs) == len(items)
    # each as the snapshot holds it: a document of its own, followed by the next one's `---`
    assert [next(yaml.safe_load_all(d + "\n---\n")) for d in docs] == items
