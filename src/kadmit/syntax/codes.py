"""Diagnostic codes of the `.kad` front end: syntax, values and imports (KAD100–KAD149)."""

from kadmit import kueuelabels
from kadmit.diagnostics import register

SYNTAX = register(
    "KAD100", "syntax error", "error",
    "The text doesn't follow the grammar of a `.kad` file: a token appears where it can't, or a "
    "character can't start any token. kadmit reports one error per broken statement and resumes "
    "at the next line that starts a statement (a statement keyword at column 1, or a word close to "
    "one followed by a name: a misspelt keyword starts a statement of its own, and is reported with "
    "the keyword meant). What the broken statement would have defined is not reported as undefined "
    "where other statements name it.")
UNEXPECTED_EOF = register(
    "KAD101", "unexpected end of file", "error",
    "The file ends inside a block, list, map or expression: a `{`, `[` or `(` is never closed. "
    "kadmit points at the one left open: where closing brackets stand on lines of their own, each "
    "closes the bracket whose line is indented as it is, so a block missing its `}` inside one that "
    "is closed is the one reported.")
UNTERMINATED_STRING = register(
    "KAD102", "unterminated string", "error",
    "A string starts with `\"` but the line ends before its closing quote. Strings can't span lines.")
BAD_ESCAPE = register(
    "KAD103", "invalid escape in string", "error",
    "Strings accept the escapes `\\\"`, `\\\\`, `\\n`, `\\t`, `\\r`, `\\/` and `\\uXXXX`.")
TOO_DEEP = register(
    "KAD104", "nested too deeply", "error",
    "Brackets, blocks or expressions are nested deeper than kadmit reads (200 levels of brackets, "
    "or an expression tree deeper than 150). Split the expression or the file.")
UNKNOWN_FIELD = register(
    "KAD105", "unknown field or block", "error",
    "A field or block name isn't one this kind of statement has.")
DUPLICATE_FIELD = register(
    "KAD106", "field set twice", "error",
    "The same field or block appears twice in one statement; kadmit keeps the first.")
WRONG_VALUE = register(
    "KAD107", "wrong kind of value", "error",
    "A field got a value of the wrong shape: a list where a map is expected, a string where a "
    "name is expected, and so on.")
BAD_QUANTITY = register(
    "KAD108", "invalid quantity", "error",
    "A value is not a Kubernetes quantity (`500m`, `2`, `1.5`, `64Gi`, `2e3`) or is out of range.",
    kueue_rule="resource.Quantity parsing (k8s.io/apimachinery)")
BAD_INTEGER = register(
    "KAD109", "invalid integer", "error",
    "A count, priority or weight must be a whole number within range (no decimals or suffixes).")
BAD_ENUM = register(
    "KAD110", "invalid choice", "error",
    "A field accepts only certain words (e.g. `queueing = strict_fifo | best_effort_fifo`).")
BAD_TAINT = register(
    "KAD111", "invalid taint or toleration", "error",
    "Taints are written `key=value:Effect` or `key:Effect`; tolerations also `key`, `key=value` "
    "and `*`. Effects are `NoSchedule`, `PreferNoSchedule` and `NoExecute`.",
    kueue_rule="core/v1 Taint and Toleration validation")
BAD_TIME = register(
    "KAD112", "invalid timestamp", "error",
    "`created` takes an RFC 3339 time such as `\"2026-11-20T09:00:00Z\"`.")
MISSING_FIELD = register(
    "KAD113", "missing field", "error",
    "A statement lacks a field it can't do without, such as a workload's `queue`.")
BAD_NAME = register(
    "KAD114", "invalid name", "error",
    "A name has the wrong form: local queues and workloads are named `namespace/name`.")
IMPORT_NOT_FOUND = register(
    "KAD115", "imported file not found", "error",
    "An `import` names a file that doesn't exist. Paths are relative to the importing file.")
IMPORT_OUTSIDE = register(
    "KAD116", "import outside the workspace", "error",
    "An `import` reaches outside the folder kadmit was asked to read; kadmit never reads files "
    "the user didn't point it at.")
IMPORT_CYCLE = register(
    "KAD117", "import cycle", "error",
    "Files import each other in a cycle. Each file is read once; break the cycle by importing "
    "from one side only.")
BAD_EXPR = register(
    "KAD118", "invalid rule expression", "error",
    "A rule expression is well formed but can't mean anything, e.g. a quantifier over something "
    "that isn't a reference.")
INTERNAL = register(
    "KAD119", "statement could not be read", "error",
    "kadmit failed while reading this statement. This is a bug in kadmit; the rest of the file "
    "was read.")
TOO_MANY = register(
    "KAD120", "too many syntax errors", "error",
    "kadmit stopped reporting syntax errors in a file after 50 of them.")
# Both front ends read labels (this one: namespaces' and nodes'), so both register it, alike.
KUEUE_KEY = register("KAD301", kueuelabels.TITLE, "warning", kueuelabels.DESCRIPTION)
