"""What an answer on a cluster read says when the read was incomplete (kinds not listed: KAD034)."""

from __future__ import annotations

import json


def incomplete_text(incomplete: list[str]) -> str:
    """Lines that end a human answer resting on a state read without some kinds ("" when complete)."""
    if not incomplete:
        return ""
    return "\n".join(["", "incomplete: this answer rests on the cluster's state without what could not be listed:",
                      *(f"  {line}" for line in incomplete)]) + "\n"


def incomplete_json(text: str, incomplete: list[str]) -> str:
    """A JSON answer with `incomplete` (what could not be listed) added when the read was incomplete; the
    JSON of a complete read stays as it was."""
    if not incomplete:
        return text
    return json.dumps({**json.loads(text), "incomplete": list(incomplete)}, indent=2) + "\n"
