"""`kubectl get -o yaml` output -> one YAML document per object, as kubectl wrote it.

kubectl prints a listing as a `List` whose `items:` are block sequence entries at column 0: an
item is a line starting `- ` and the lines after it indented by two spaces (or empty: a blank line
of a literal block scalar), up to the list's trailer (`kind: List`, `metadata:`). Each item, less
those two columns, is the object's own document; every value keeps kubectl's text. A listing laid
out any other way is kept whole (a `List` document kadmit reads as well).
"""

from __future__ import annotations

import re

_TRAILER = re.compile(r"(kind: List|metadata:|  resourceVersion: .*|  continue: .*|  remainingItemCount: .*|)$")


def split_list(text: str) -> list[str] | None:
    """The items of kubectl's YAML listing, each a document (no trailing newline), or None when the
    text is not laid out as kubectl lays out a listing."""
    lines = text.split("\n")
    if not lines or lines[0] != "apiVersion: v1":
        return None
    i = 1
    if i < len(lines) and lines[i] == "items: []":
        return [] if all(_TRAILER.fullmatch(ln) for ln in lines[i + 1:]) else None
    if i >= len(lines) or lines[i] != "items:":
        return None
    items: list[list[str]] = []
    i += 1
    while i < len(lines):
        line = lines[i]
        if line.startswith("- "):
            items.append([line[2:]])
        elif line.startswith("  ") or line == "":
            if not items:
                return None
            items[-1].append(line[2:])
        else:
            break
        i += 1
    if not all(_TRAILER.fullmatch(ln) for ln in lines[i:]) or "kind: List" not in lines[i:]:
        return None
    return ["\n".join(item) for item in items]  # blank lines at an item's end are its value's (`|+`)


def holds_key(doc: str, key: str) -> bool:
    """Whether an object's document (as `split_list` gives it) has `key` in its top-level `data`."""
    lines = doc.split("\n")
    if "data:" not in lines:
        return False
    for line in lines[lines.index("data:") + 1:]:
        if line.startswith(f"  {key}:"):
            return True
        if line and not line.startswith(" "):  # the next top-level key: `data` ended
            return False
    return False


def top_level(doc: str, key: str) -> str | None:
    """A top-level scalar of an object's document as kubectl prints it (`apiVersion`, `kind`)."""
    prefix = f"{key}: "
    for line in doc.split("\n"):
        if line.startswith(prefix):
            return line[len(prefix):].strip().strip("\"'")
    return None


def name_of(doc: str) -> str | None:
    """`metadata.name` of an object's document as kubectl prints it (keys sorted, two-space indent)."""
    lines = doc.split("\n")
    if "metadata:" not in lines:
        return None
    for line in lines[lines.index("metadata:") + 1:]:
        if line.startswith("  name: "):
            return line[len("  name: "):].strip().strip("\"'")
        if line and not line.startswith(" "):
            return None
    return None
