"""Semantic checks over the merged model, and rule type checking (KAD2xx)."""

from __future__ import annotations

from kadmit.validate import codes  # noqa: F401  (registers the KAD2xx codes)
from kadmit.validate.codetable import render_code_table
from kadmit.validate.incremental import Checked, validate_since
from kadmit.validate.rules import rule_scope, typecheck_rule
from kadmit.validate.whole import validate

__all__ = ["Checked", "render_code_table", "rule_scope", "typecheck_rule", "validate", "validate_since"]
