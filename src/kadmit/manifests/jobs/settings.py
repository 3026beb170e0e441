"""The integration settings Kueue's job framework works under (`manage.integrations` reads them), apart
from the kinds' modules so that reading a `.kad` policy, which needs them, loads none of the manifest reader."""

from __future__ import annotations

from dataclasses import dataclass

from kadmit.model import LabelSelector


@dataclass(frozen=True)
class Integrations:
    """The integration settings in force, and where they come from."""

    frameworks: tuple[str, ...]
    manage_without_queue_name: bool
    namespace_selector: LabelSelector
    configured: bool  # a Configuration in the input set the frameworks (`manage.integrations`)
