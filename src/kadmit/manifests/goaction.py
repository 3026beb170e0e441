"""Whether the text between `{{` and `}}` is an action Go's text/template parses with the functions a chart is
rendered with (Helm's, which are Sprig's and Helm's own), or another tool's placeholder (Jinja's `{{ name | lower }}`,
Argo's `{{inputs.parameters.x}}`, Kyverno's JMESPath). text/template refuses an action that calls a function it does
not know (`function "name" not defined`), so the names below decide as much as the syntax does."""

from __future__ import annotations

import re

# text/template's keywords and its own functions (builtins())
_GO = ("block break continue define else end if range template with nil true false "
       "and call html index slice js len not or print printf println urlquery eq ge gt le lt ne")
# Sprig's functions (Masterminds/sprig functions.go, genericMap), which Helm's funcMap starts from (Helm removes `env`
# and `expandenv`; other tools built on Sprig keep them, so they stay here)
_SPRIG = (
    "hello ago date date_in_zone date_modify dateInZone dateModify duration durationRound htmlDate htmlDateInZone "
    "must_date_modify mustDateModify mustToDate now toDate unixEpoch "
    "abbrev abbrevboth trunc trim upper lower title untitle substr repeat trimall trimAll trimSuffix trimPrefix "
    "nospace initials randAlphaNum randAlpha randAscii randNumeric swapcase shuffle snakecase camelcase kebabcase "
    "wrap wrapWith contains hasPrefix hasSuffix quote squote cat indent nindent replace plural sha1sum sha256sum "
    "sha512sum adler32sum toString atoi int64 int float64 seq toDecimal split splitList splitn toStrings until "
    "untilStep add1 add sub div mod mul randInt add1f addf subf divf mulf biggest max min maxf minf ceil floor round "
    "join sortAlpha default empty coalesce all any compact mustCompact fromJson toJson toPrettyJson toRawJson "
    "mustFromJson mustToJson mustToPrettyJson mustToRawJson ternary deepCopy mustDeepCopy typeOf typeIs typeIsLike "
    "kindOf kindIs deepEqual env expandenv getHostByName base dir clean ext isAbs osBase osClean osDir osExt osIsAbs "
    "b64enc b64dec b32enc b32dec tuple list dict get set unset hasKey pluck keys pick omit merge mergeOverwrite "
    "mustMerge mustMergeOverwrite values append push mustAppend mustPush prepend mustPrepend first mustFirst rest "
    "mustRest last mustLast initial mustInitial reverse mustReverse uniq mustUniq without mustWithout has mustHas "
    "mustSlice concat dig chunk mustChunk bcrypt htpasswd genPrivateKey derivePassword buildCustomCert genCA "
    "genCAWithKey genSelfSignedCert genSelfSignedCertWithKey genSignedCert genSignedCertWithKey encryptAES decryptAES "
    "randBytes uuidv4 semver semverCompare fail regexMatch mustRegexMatch regexFindAll mustRegexFindAll regexFind "
    "mustRegexFind regexReplaceAll mustRegexReplaceAll regexReplaceAllLiteral mustRegexReplaceAllLiteral regexSplit "
    "mustRegexSplit regexQuoteMeta urlParse urlJoin")
# Helm's own (helm pkg/engine funcs.go funcMap, and engine.go's late-bound include, tpl, required, lookup)
_HELM = ("toToml mustToToml fromToml toYaml mustToYaml toYamlPretty fromYaml fromYamlArray fromJsonArray "
         "mustToDuration durationSeconds durationMilliseconds durationMicroseconds durationNanoseconds durationMinutes "
         "durationHours durationDays durationWeeks durationRoundTo durationTruncateTo include tpl required lookup")
NAMES = frozenset(f"{_GO} {_SPRIG} {_HELM}".split())

# text/template's lexer inside an action, one token a match (a group per kind); anything else is a character
# its parser refuses (`unexpected "!" in command`, `bad character U+005C`)
_TOKEN = re.compile(r"""(?P<space>[ \t\r\n]+)
    |(?P<string>"(?:[^"\\\n]|\\(?:[abfnrtv\\"]|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{3}))*"|`[^`]*`)
    |(?P<char>'(?:[^'\\\n]|\\(?:[abfnrtv\\']|x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|U[0-9a-fA-F]{8}|[0-7]{3}))')
    |(?P<number>[+-]?(?:0[xX][0-9a-fA-F_]+(?:\.[0-9a-fA-F_]*)?(?:[pP][+-]?[0-9]+)?|0[bBoO][0-9_]+
        |(?:[0-9][0-9_]*(?:\.[0-9_]*)?|\.[0-9][0-9_]*)(?:[eE][+-]?[0-9]+)?)i?)
    |(?P<variable>\$\w*(?:\.\w+)*)
    |(?P<field>(?:\.\w+)+|\.)
    |(?P<ident>[^\W\d]\w*)
    |(?P<op>:=|[=|(),])""", re.VERBOSE)
_OPERAND = ("string", "char", "number", "variable", "field", "ident")


def parses(inner: str) -> bool:
    """Whether `{{inner}}` is an action text/template parses, given Helm's functions, in some template around it
    (`{{ end }}` after an `{{ if }}`, a `$x` declared before). Checked against Go's parser (text/template Parse with a
    FuncMap of `NAMES`) over every action in the mirrored charts and manifests."""
    inner = re.sub(r"^-[ \t\r\n]", "", re.sub(r"[ \t\r\n]-$", "", inner))  # the trim markers (`{{- x -}}`)
    if inner.startswith("/*"):
        return inner.rstrip().endswith("*/")  # a comment
    tokens: list[tuple[str, str]] = []
    at = 0
    while at < len(inner):
        m = _TOKEN.match(inner, at)
        if m is None:
            return False
        kind = m.lastgroup or ""
        end = m.end()
        after = inner[end] if end < len(inner) else " "
        if kind == "number" and (after.isalnum() or after == "_") or \
                kind in ("ident", "field", "variable", "string", "char") and after not in " \t\r\n.,|:()":
            return False  # `3abc`: bad number syntax; `git-auth`, `name"x"`: bad character; `"a"b`
        tokens.append((kind, m.group()))
        at = end
    return any(kind != "space" for kind, _ in tokens) and _well_formed(tokens)  # `{{ }}`: missing value


def _well_formed(tokens: list[tuple[str, str]]) -> bool:
    """The parser's refusals that the tokens alone show: an unknown function, a call written `f(x)`, a pipe with no
    command before it, an assignment to no variable, a comma outside a range's declaration, unbalanced parentheses."""
    depth = 0
    before = ("", "")  # the last token that is no space
    for i, (kind, text) in enumerate(tokens):
        if kind == "space":
            continue
        if kind == "ident" and text not in NAMES:
            return False  # function "name" not defined
        if kind in ("field", "variable") and i and tokens[i - 1] == ("field", "."):
            return False  # `..a`: unexpected . after term
        if text == "(":
            if i and (tokens[i - 1][0] in _OPERAND or tokens[i - 1][1] == ")"):
                return False  # `f(x)`, `(a)(b)`: unexpected "(" in operand
            depth += 1
        elif text == ")":
            depth -= 1
            if depth < 0 or before[1] == "(":
                return False  # unexpected right paren; missing value for parenthesized pipeline
        elif text == "|" and (before[0] == "" or before[1] in ("|", "(", ":=", "=", ",")):
            return False  # `{{ | x }}`, `x || y`: unexpected "|" in command
        elif text in (":=", "=") and before[0] != "variable":
            return False  # `{{=expr}}`: unexpected "=" in command
        elif text == "," and not (before[0] == "variable" and any(t in (":=", "=") for _, t in tokens[i:])
                                  and ("ident", "range") in tokens[:i]):
            return False  # unexpected "," in operand; too many declarations in command (outside a range)
        before = (kind, text)
    return depth == 0
