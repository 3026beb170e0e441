"""Where each pending workload's flavor search starts, as Kueue v0.17 keeps it between cycles.

Kueue's flavor assigner records, per pod set and resource group, the index of the flavor its search
stopped at (`LastTriedFlavorIdx`, -1 once it reached the last one: `flavor_assignment.Tried`). A head
that is not admitted is requeued with it: it stays in its queue's heap while some index is not -1
(`PendingFlavors`), and its next search starts after that flavor. It starts over when the try was
skipped, issued preemptions, or was evicted (the scheduler resets `LastAssignment`), and when the
Pending message the scheduler writes differs from the one the workload's status shows: the status
update reaches the queue manager as a new `workload.Info`, without the last assignment. Which message
a failed search writes can be Go map order (the first failing resource group its walk reaches:
`Tried.messages`); a search goes on where some message is one every try since the last restart could
write, as a run of such cycles comes with probability 1 (docs/KUEUE-DIFFERENCES.md §1). The session
reads the starts (`Session.last_tried`); this keeps them for one run of `ordered`.
"""

from __future__ import annotations

from kadmit.engine.admission.flavor_assignment import Tried, fungible
from kadmit.model import Workload


class Searches:
    """The run's flavor-search state: what each head's nomination in this cycle tried, and what each
    pending workload's Pending message is made of."""

    def __init__(self, session) -> None:
        self.session = session
        self.attempts: dict[str, Tried | None] = {}  # head -> what its nomination in this cycle tried
        # pending workload -> what its last Pending message can be made of (Kueue: one of them, by map order)
        self.said: dict[str, frozenset] = {}

    def nominated(self, wl: Workload) -> None:
        """`wl`'s nomination was just made (`Session.attempt` holds what it tried), from the flavors
        `Session.last_tried` says (kept as `Session.tried_from`: Kueue's Pending message is that search's)."""
        self.attempts[wl.key] = self.session.attempt
        self.session.tried_from[wl.key] = self.session.last_tried.get(wl.key)

    def skipped(self, key: str, message: tuple | None) -> None:
        """Kueue forgets where the workload's search stopped (skipped, preempting, admitted, evicted):
        its next try starts at the first flavor. `message`: what its status says now (None: nothing
        it will compare with)."""
        self.attempts.pop(key, None)
        self.session.last_tried.pop(key, None)
        if message is None:
            self.said.pop(key, None)
        else:
            self.said[key] = frozenset((message,))

    def requeued(self, wl: Workload) -> bool:
        """A nominated head that isn't admitted, requeued as Kueue does: its next search starts after
        the flavors this one stopped at, unless its Pending message changed (then at the first).
        True when flavors are left to try (Kueue keeps it in its queue's heap, not set aside).
        A search that reached every group's last flavor starts the next at the first (every index
        -1 + 1): the same as a search with no start kept, so none is kept and the head's next
        nomination is shared among equal situations (`situations` shares none with a start kept:
        a StrictFIFO head blocking its queue was nominated afresh in every cycle)."""
        tried = self.attempts.get(wl.key)
        if tried is None:
            self.skipped(wl.key, None)
            return False
        # FlavorFungibility off: every search starts at the first flavor (NextFlavorToTryForPodSetResource)
        now = tried.messages()
        same = self.said.get(wl.key, frozenset()) & now
        if same and tried.pending and fungible(self.session):
            self.session.last_tried[wl.key] = tried.start()
            self.said[wl.key] = same
        else:
            self.session.last_tried.pop(wl.key, None)
            self.said[wl.key] = now
        return tried.pending

    def done(self) -> None:
        """The run ended: where searches stopped is its own state."""
        self.session.last_tried.clear()
