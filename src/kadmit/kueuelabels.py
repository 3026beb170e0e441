"""Label and annotation keys in Kueue's domain that Kueue would not read as written: a key it doesn't
know (`kueue.x-k8s.io/queue_name`), a known one in the wrong place (`kueue.x-k8s.io/queue-name` as an
annotation), or a near miss of the domain (`kueue.k8s.io/queue-name`). Kueue ignores such a key
silently — a Job with a misspelt queue label runs outside every quota — so both front ends warn
(KAD301) where they read labels and annotations. The keys are Kueue's own (`kadmit.kueuekeys`,
generated from its source by tools/gen_kueue_keys.py)."""

from __future__ import annotations

import difflib

from kadmit.kueuekeys import KEYS, KUEUE_VERSION, LATER, PREFIX

CODE = "KAD301"
TITLE = "Kueue label or annotation Kueue doesn't read"
DESCRIPTION = (
    f"A label or annotation key in Kueue's domain (`{PREFIX}…`) that Kueue {KUEUE_VERSION} does not read "
    "as written: a key it does not know (a misspelling such as `kueue.x-k8s.io/queue_name`), a key it "
    "reads only as a label written as an annotation or the other way round, or a key whose domain is "
    "a near miss of `kueue.x-k8s.io`. Kueue ignores such keys silently (a Job whose queue label is "
    "misspelt is not managed and runs outside every quota), so kadmit warns, with the key meant where "
    "one is close. Checked on every object's labels and annotations and on pod templates. The known "
    "keys are Kueue's own constants, generated from its source (tools/gen_kueue_keys.py).")
QUEUE_LABEL = PREFIX + "queue-name"
_DOMAIN = PREFIX.rstrip("/")
_NAMES = sorted(k[len(PREFIX):] for k in KEYS)


def _close(name: str) -> str | None:
    got = difflib.get_close_matches(name, _NAMES, n=1, cutoff=0.75)
    return PREFIX + got[0] if got else None


def problem(key: str, place: str, *, movable: bool = True) -> tuple[str, str | None] | None:
    """Why Kueue would not read `key` as a `place` ("label" or "annotation") as meant: (message,
    help), or None when it would (or the key is not in Kueue's domain). `movable`: the object has
    the other place (manifests' metadata), where the help may send a key."""
    domain, slash, name = key.rpartition("/")
    if not slash:
        return None
    if domain == _DOMAIN:
        known = KEYS.get(key) or LATER.get(key)
        if known is None:
            meant = _close(name)
            return (f"{place} `{key}` is not one Kueue {KUEUE_VERSION} knows: Kueue ignores it",
                    f"did you mean `{meant}`?" if meant else None)
        reads = known[0]
        if reads and reads != place:
            return (f"`{key}` is {a(reads)} Kueue reads, written as {a(place)}: Kueue ignores it there",
                    f"move it to `metadata.{reads}s`" if movable else None)
        return None
    if domain.endswith("." + _DOMAIN) or difflib.SequenceMatcher(None, domain, _DOMAIN).ratio() < 0.8:
        return None
    meant = _close(name)
    if meant is None:
        return None
    return (f"{place} `{key}` is not in Kueue's domain `{_DOMAIN}`: Kueue ignores it", f"did you mean `{meant}`?")


def a(word: str) -> str:
    return ("an " if word[0] in "aeiou" else "a ") + word


def unmanaged_note(help_: str | None, labels) -> list[str]:
    """What a misspelt queue label costs, when the object's `labels` have no real one."""
    if help_ is not None and f"`{QUEUE_LABEL}`" in help_ and QUEUE_LABEL not in labels:
        return [f"without a `{QUEUE_LABEL}` label Kueue doesn't manage it (by default): it runs outside every "
                "quota or, created suspended, never starts"]
    return []
