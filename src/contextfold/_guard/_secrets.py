"""The redaction patterns and engine (imported on first use by `contextfold._guard._redact`).

Redact credentials and bulky noise from tool output before it re-enters the context.

Secrets printed by a tool (``cat .env``, ``env``, a config dump) would otherwise
be sent to the model provider on every later call, and base64 ``data:`` URIs or
long hex runs cost many tokens while telling the model nothing. Every match is
replaced by a marker that no rule matches again, so redaction is deterministic
and idempotent. All patterns have bounded repetition: the scan is linear.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import re2

from contextfold._guard._findings import Redaction, RedactionResult

__all__ = ["redact_secrets"]


def _marker(kind: str) -> str:
    return f"[redacted:{kind}]"


# (kind, compiled pattern, name of the group to replace or None for the whole match)
_Rule = tuple[str, re.Pattern[str], str | None]

_PLACEHOLDER = re.compile(r"^(?:\$|<|\*{3}|x{4}|\.\.\.|changeme$|password$|secret$|none$|null$|true$|false$)", re.I)
_REFERENCE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)+$")

# A PEM body line after a real or JSON-escaped line break, maybe indented: a whole line of base64 (up to the
# line's end, a quote or a dash) or a header (encrypted keys), after up to two blank lines.
_PEM_LINE = (
    r"(?:(?:\r?\n|\\n|\\r\\n)[\x20\t]{0,16}){1,3}"
    r"(?:[A-Za-z0-9+/=]{1,200}(?=[\x20\t]{0,16}(?:[\r\n\"',]|\\[rn]|-----|$))|(?:Proc-Type|DEK-Info|Comment):[^\n\\]{0,200})"
)
# A token value after "Bearer": base64url / base64 characters, at least one digit (prose after "Bearer" has none).
_BEARER_VALUE = r"(?=[A-Za-z0-9._~+/-]{0,4096}[0-9])[A-Za-z0-9._~+/-]{16,4096}=*"


# Plain value of an assignment: up to a blank or delimiter; a few parenthesised parts may follow (Django keys hold
# parentheses); `_value_span` tells a call (``token=get_token()``) from a value.
def _plain(least: int, most: int) -> str:
    chars = r"[^\s\"'`,;()\[\]{}<>]"
    return f"{chars}{{{least},{most}}}(?:[()]{chars}{{0,30}}){{0,6}}"


# Tokens of other services, recognised by their documented prefix and shape: (kind, pattern, gate literals, how far
# a match may start before and end after its literal). Each shape is specific (a fixed prefix and a length or
# alphabet), so prose and identifiers do not match.
_SERVICE_TOKENS: tuple[tuple[str, str, tuple[bytes, ...], int, int], ...] = (
    ("huggingface-token", r"\b(?:hf|api_org)_[A-Za-z0-9]{34,40}\b", (b"hf_", b"api_org_"), 0, 42),
    ("sendgrid-key", r"\bSG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])", (b"sg.",), 0, 66),
    ("pypi-token", r"\bpypi-AgE[A-Za-z0-9_-]{50,400}", (b"pypi-age",), 0, 400),
    ("shopify-token", r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b", (b"shpat_", b"shpca_", b"shppa_", b"shpss_"), 0, 34),
    ("digitalocean-token", r"\bdo[opr]_v1_[a-f0-9]{64}\b", (b"doo_v1_", b"dop_v1_", b"dor_v1_"), 0, 66),
    ("databricks-token", r"\bdapi[a-f0-9]{32}(?:-[0-9])?\b", (b"dapi",), 0, 36),
    ("telegram-bot-token", r"\b[0-9]{8,10}:AA[A-Za-z0-9_-]{33}(?![A-Za-z0-9_-])", (b":aa",), 11, 34),
    ("linear-key", r"\blin_api_[A-Za-z0-9]{40}\b", (b"lin_api_",), 0, 42),
    ("notion-token", r"\b(?:ntn_[A-Za-z0-9]{46}|secret_[A-Za-z0-9]{43})\b", (b"ntn_", b"secret_"), 0, 48),
    ("atlassian-token", r"\bATATT3[A-Za-z0-9_=-]{100,300}", (b"atatt3",), 0, 300),
    ("grafana-token", r"\bglsa_[A-Za-z0-9]{32}_[A-Fa-f0-9]{8}\b", (b"glsa_",), 0, 42),
    ("grafana-token", r"\bglc_[A-Za-z0-9+/]{32,400}={0,2}", (b"glc_",), 0, 402),
    ("newrelic-key", r"\bNRAK-[A-Z0-9]{27}\b", (b"nrak-",), 0, 28),
    (
        "doppler-token",
        r"\bdp\.(?:pt|st|sa|ct|scim|audit)\.(?:[a-z0-9_-]{1,32}\.)?[A-Za-z0-9_-]{40,64}", (b"dp.",), 0, 110,
    ),
    ("age-secret-key", r"\bAGE-SECRET-KEY-1[0-9A-Z]{58}\b", (b"age-secret-key-1",), 0, 60),
    ("vault-token", r"\bhv[sb]\.[A-Za-z0-9_-]{24,400}", (b"hvs.", b"hvb."), 0, 400),
    ("terraform-token", r"\b[A-Za-z0-9]{14}\.atlasv1\.[A-Za-z0-9_=-]{60,100}", (b".atlasv1.",), 14, 100),
    ("postman-key", r"\bPMAK-[a-f0-9]{24}-[a-f0-9]{34}\b", (b"pmak-",), 0, 60),
    ("google-oauth", r"\b(?:GOCSPX-[A-Za-z0-9_-]{28}|ya29\.[0-9A-Za-z_-]{20,2048})", (b"gocspx-", b"ya29."), 0, 2050),
    ("groq-key", r"\bgsk_[A-Za-z0-9]{52}\b", (b"gsk_",), 0, 54),
    ("replicate-token", r"\br8_[A-Za-z0-9]{37}\b", (b"r8_",), 0, 38),
    ("xai-key", r"\bxai-[A-Za-z0-9]{80}\b", (b"xai-",), 0, 82),
    ("perplexity-key", r"\bpplx-[A-Za-z0-9]{48}\b", (b"pplx-",), 0, 50),
    ("supabase-token", r"\bsbp_[a-f0-9]{40}\b", (b"sbp_",), 0, 42),
    ("sentry-token", r"\b(?:sntrys_[A-Za-z0-9+/=_-]{50,800}|sntryu_[a-f0-9]{64}\b)", (b"sntrys_", b"sntryu_"), 0, 800),
    ("square-token", r"\bEAAA[A-Za-z0-9_-]{60}(?![A-Za-z0-9_-])", (b"eaaa",), 0, 60),
    ("square-token", r"\bsq0(?:atp|csp)-[A-Za-z0-9_-]{22,43}(?![A-Za-z0-9_-])", (b"sq0atp-", b"sq0csp-"), 0, 43),
    # An Azure AD (Entra) client secret: 3 characters, a digit, ``Q~`` and 31-34 more.
    (
        "azure-client-secret",
        r"(?<![A-Za-z0-9_~.-])[A-Za-z0-9_~.-]{3}[0-9]Q~[A-Za-z0-9_~.-]{31,34}(?![A-Za-z0-9_~.-])", (b"q~",), 4, 34,
    ),
    ("slack-token", r"\bxapp-[0-9]-[A-Z0-9]{8,16}-[0-9]{8,16}-[a-f0-9]{32,80}\b", (b"xapp-",), 0, 120),
)  # fmt: skip


_RULES: tuple[_Rule, ...] = (
    (
        "private-key",
        re.compile(
            r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----[^-]{0,20000}-----END [A-Z0-9 ]{0,40}PRIVATE KEY"
            r"(?: BLOCK)?-----"
        ),
        None,
    ),
    (
        # A block cut before its END line (a truncated `cat`, a paste): the header and every body line after it.
        "private-key",
        re.compile(
            r"-----BEGIN [A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----[\x20\t]{0,4}[A-Za-z0-9+/=]{0,200}"
            + rf"(?:{_PEM_LINE}){{0,400}}"
        ),
        None,
    ),
    (
        "data-uri",
        re.compile(
            r"data:([a-zA-Z0-9.+-]{1,40}/[a-zA-Z0-9.+-]{1,80})?(?:;[a-zA-Z0-9=.+-]{1,60}){0,4};base64,"
            r"[A-Za-z0-9+/]{16,}={0,2}"
        ),
        None,
    ),
    ("aws-access-key", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b"), None),
    ("github-token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b"), None),
    ("gitlab-token", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,255}"), None),
    (
        "slack-token",
        re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,255}|https://hooks\.slack\.com/services/[A-Za-z0-9/]{20,200}"),
        None,
    ),
    ("anthropic-key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,255}"), None),
    ("openai-key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,255}"), None),
    ("stripe-key", re.compile(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,247}\b"), None),
    ("google-api-key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"), None),
    ("npm-token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b"), None),
    *((kind, re.compile(pattern), None) for kind, pattern, *_ in _SERVICE_TOKENS),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,4096}\.eyJ[A-Za-z0-9_-]{8,8192}\.[A-Za-z0-9_-]{8,4096}"), None),
    (
        # Azure storage / Service Bus keys in connection strings and settings (base64, 88 characters for storage).
        "azure-key",
        re.compile(
            r"(?i)(?:\bAccountKey|\bSharedAccessKey|\b(?:[a-z0-9]{1,30}[_-]){0,4}(?:account|storage|primary|secondary)"
            r"[_-]?key)[\"']?\s{0,3}[:=]\s{0,3}[\"']?(?P<v>[A-Za-z0-9+/]{20,200}={0,2})"
            # the Azure CLI's flags: ``--account-key KEY``, ``--sas-token "sv=...&sig=..."``
            r"|--(?:account-key|sas-token)(?:[\x20\t]{1,4}|=)[\"']?(?P<w>[A-Za-z0-9+/%&=:._-]{20,1024})"
        ),
        "v|w",
    ),
    (
        # A bare 64-byte base64 value (86 characters and ``==``): the shape of an Azure storage account key as
        # ``az storage account keys list`` prints it (with a digit, as a random one has). Not after ``-``
        # (``sha512-...==`` integrity hashes).
        "base64-key",
        re.compile(r"(?<![A-Za-z0-9+/=-])(?=[A-Za-z+/]{0,85}[0-9])[A-Za-z0-9+/]{86}==(?![A-Za-z0-9+/=])"),
        None,
    ),
    (
        # Signed URLs: Azure SAS ``sig=``, AWS and Google presigned ``X-Amz-Signature=`` / ``X-Goog-Signature=``.
        "url-signature",
        re.compile(r"(?i)[?&;](?:sig|x-amz-signature|x-goog-signature)=(?P<v>[A-Za-z0-9%+/=_-]{16,1024})"),
        "v",
    ),
    (
        # user:password@ and :password@ (redis) before a host; the password may hold ``@`` (up to the last one).
        "connection-password",
        re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^:/\s@\[\]]{0,128}:(?P<v>[^\s/\[\]]{1,256})@(?=[^\s@/]{1,253})"),
        "v",
    ),
    (
        "bearer-token",
        re.compile(
            r"(?i)\bauthorization[\"']?\s{0,3}[:=]\s{0,3}[\"']?(?:bearer|token|basic)[\x20\t]{1,4}"
            rf"(?P<v>{_BEARER_VALUE})|\bbearer[\x20\t]{{1,4}}(?P<w>{_BEARER_VALUE})"
        ),
        "v|w",
    ),
    (
        "password",
        re.compile(
            # ``DB_PASSWORD``, ``PGPASSWORD`` (an upper-case prefix without separator: ``hidePassword=Hide password``
            # is a UI string), ``SMTP_PASS`` (``pass`` after a separator only: "first pass: ..." is prose)
            r"(?i)\b(?:(?:[a-z0-9]{1,30}[_-]|(?-i:[A-Z]{2,12}))?(?:password|passwd|pwd(?![\"']?\s{0,3}[:=]\s{0,3}[/~])"
            r"|passphrase|(?<=[_-])pass))[\"']?\s{0,3}[:=]\s{0,3}"
            r"(?:\"(?P<q>[^\"\s\[]{4,200})\"|'(?P<s>[^'\s\[]{4,200})'|(?P<v>" + _plain(4, 200) + "))"
        ),
        "q|s|v",
    ),
    (
        "api-key",
        re.compile(
            r"(?i)\b(?:[a-z0-9]{1,30}[_-]){0,4}(?:api[_-]?key|apikey|secret[_-]?key|access[_-]?key|client[_-]?secret"
            r"|access[_-]?token"
            r"|auth[_-]?token|secret|token|private[_-]?key)[\"']?\s{0,3}[:=]\s{0,3}"
            r"(?:\"(?P<q>[^\"\s\[]{8,500})\"|'(?P<s>[^'\s\[]{8,500})'|(?P<v>" + _plain(8, 500) + "))"
        ),
        "q|s|v",
    ),
    # ``//registry.npmjs.org/:_authToken=VALUE`` in an .npmrc (older tokens are UUIDs, not ``npm_``).
    ("api-key", re.compile(r"(?i)_authToken=(?P<v>[^\s\"'`,;]{8,500})"), "v"),
    # Credentials in the shapes commands and their config files print them.
    (
        # ~/.netrc: ``machine HOST login USER password SECRET`` (on one line or several)
        "password",
        re.compile(
            r"\bmachine\s{1,10}\S{1,253}\s{1,10}login\s{1,10}\S{1,256}(?:\s{1,10}account\s{1,10}\S{1,256})?"
            r"\s{1,10}password\s{1,10}(?P<v>\S{1,256})"
        ),
        "v",
    ),
    # ``mysql -u root -pSECRET``, ``curl -u user:SECRET``
    (
        "password",
        re.compile(
            r"\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n|;&]{0,200}?[\x20\t]-p(?P<v>[^\s\"'-][^\s\"']{0,199})"
        ),
        "v",
    ),
    (
        "password",
        re.compile(
            r"\bcurl\b[^\n|;&]{0,300}?[\x20\t](?:-u|--user)(?:[\x20\t]{1,4}|=)[\"']?[^\s:\"']{1,128}:(?P<v>[^\s\"']{1,256})"
        ),
        "v",
    ),
    (
        # A command-line flag and its value after a blank: ``--password s3cret1``, ``--api-token abc123...`` (the
        # value has a digit: a help text's ``--token string`` is no secret)
        "password",
        re.compile(
            r"(?i)(?<![\w-])--(?:[a-z0-9]{1,20}-){0,3}(?:password|passwd)[\x20\t]{1,4}"
            r"[\"']?(?P<v>(?=[^\s\"']{0,199}[0-9])[^\s\"'$<-][^\s\"']{5,199})"
        ),
        "v",
    ),
    (
        "api-key",
        re.compile(
            r"(?i)(?<![\w-])--(?:[a-z0-9]{1,20}-){0,3}(?:token|api-?key|secret|access-key)[\x20\t]{1,4}"
            r"[\"']?(?P<v>(?=[^\s\"']{0,199}[0-9])[^\s\"'$<-][^\s\"']{5,199})"
        ),
        "v",
    ),
    # ~/.docker/config.json: ``"auth": "base64(user:password)"``, identity and registry tokens
    (
        "registry-auth",
        re.compile(r"\"(?:auth|identitytoken|registrytoken)\"\s{0,3}:\s{0,3}\"(?P<v>[A-Za-z0-9+/]{12,4096}={0,2})\""),
        "v",
    ),
    # Laravel-style ``APP_KEY=base64:...``
    (
        "api-key",
        re.compile(
            r"(?i)\b(?:[a-z0-9]{1,30}[_-]){0,4}[a-z0-9]{0,30}key[\"']?\s{0,3}[:=]\s{0,3}[\"']?base64:"
            r"(?P<v>[A-Za-z0-9+/]{16,400}={0,2})"
        ),
        "v",
    ),
    (
        "discord-webhook",
        re.compile(
            r"https://(?:ptb\.|canary\.)?discord(?:app)?\.com/api/webhooks/[0-9]{5,30}/(?P<v>[A-Za-z0-9_-]{40,100})"
        ),
        "v",
    ),
    ("hex", re.compile(r"\b[0-9a-fA-F]{64,}\b"), None),
)


def _data_uri_marker(m: re.Match[str]) -> str:
    media = m.group(1) or "application/octet-stream"
    payload = m.group(0).split(",", 1)[1]
    size = len(payload) * 3 // 4 - payload.count("=")
    return f"[redacted:data-uri {media} {size} bytes]"


_MARKERS: dict[str, Callable[[re.Match[str]], str]] = {"data-uri": _data_uri_marker}


# Cheap gates per rule, in `_RULES` order: (lower-cased literals, at least one of which every match contains; how
# far a match may start before such a literal and end after it). A rule runs only in windows around its literals,
# found with bytes.find: the scan stays on the agent loop's hot path without a full regex pass per rule.
_GATES: tuple[tuple[tuple[bytes, ...], int, int], ...] = (
    ((b"-----begin ",), 0, 20200),  # private-key
    ((b"-----begin ",), 0, 90_000),  # private-key without END (400 lines of at most 220)
    ((b"data:",), 0, 1 << 62),  # data-uri
    ((b"akia", b"asia", b"abia", b"acca"), 0, 24),
    ((b"ghp_", b"gho_", b"ghu_", b"ghs_", b"ghr_", b"github_pat_"), 0, 270),
    ((b"glpat-",), 0, 270),
    ((b"xox", b"hooks.slack.com"), 30, 270),
    ((b"sk-ant-",), 0, 270),
    ((b"sk-",), 0, 280),
    ((b"k_live_", b"k_test_"), 1, 260),  # stripe-key
    ((b"aiza",), 0, 40),  # google-api-key
    ((b"npm_",), 0, 40),  # npm-token
    *((gates, before + 1, after + 1) for _, _, gates, before, after in _SERVICE_TOKENS),
    ((b"eyj",), 0, 17000),  # jwt
    ((b"accountkey", b"sharedaccesskey", b"account_key", b"account-key", b"storage_key", b"storage-key",
      b"storagekey", b"primary_key", b"primary-key", b"primarykey", b"secondary_key", b"secondary-key",
      b"secondarykey", b"--account-key", b"--sas-token"), 32, 1040),  # azure-key
    ((), 0, 0),  # base64-key (found by `_base64_keys`)
    ((b"sig=", b"signature="), 17, 1040),  # url-signature
    ((b"://",), 24, 400),  # connection-password
    ((b"bearer",), 40, 4120),  # bearer-token
    ((b"pass", b"pwd"), 32, 420),  # password (a plain value may continue through 6 parentheses)
    ((b"key", b"secret", b"token"), 50, 750),  # api-key
    ((b"_authtoken",), 0, 520),  # npm-auth
    ((b"machine",), 0, 1400),  # netrc
    ((b"mysql", b"mariadb"), 0, 420),  # mysql -p
    ((b"curl",), 0, 720),  # curl -u
    ((b"-password", b"-passwd"), 70, 220),  # a password flag and its value
    ((b"-token", b"-key", b"-apikey", b"-secret"), 70, 220),  # a token flag and its value
    ((b'"auth"', b'"identitytoken"', b'"registrytoken"'), 0, 4120),  # registry-auth
    ((b"base64:",), 140, 420),  # KEY=base64:
    ((b"discord",), 16, 160),  # discord-webhook
    ((), 0, 0),  # hex
)  # fmt: skip
_HEX = bytes(104 if chr(c) in "0123456789abcdefABCDEF" else 32 for c in range(256))  # hex digit -> "h"
_HEX_RUN = b"h" * 64


# Every gate literal, and one RE2 set of them all: a single DFA pass over the text (hundreds of MB/s) tells which
# literals occur, so `_windows` looks only for those instead of one ``find`` pass per literal (47 passes; on real
# tool output most texts hold none of them).
_GATE_LITS: tuple[bytes, ...] = tuple(sorted({lit for gates, _, _ in _GATES for lit in gates}))


def _gate_set() -> re2.Set:
    options = re2.Options()
    options.encoding = re2.Options.Encoding.LATIN1
    options.never_capture = True
    found = re2.Set.SearchSet(options)
    for lit in _GATE_LITS:
        found.Add(re.escape(lit))
    found.Compile()
    return found


_GATE_SET = _gate_set()


def _present(low: bytes) -> frozenset[bytes]:
    """The gate literals that occur in ``low`` (what ``lit in low`` tells for each, in one pass)."""
    hit = _GATE_SET.Match(low)
    return frozenset(_GATE_LITS[i] for i in hit) if hit else frozenset()


def _windows(low: bytes, gates: tuple[bytes, ...], before: int, after: int) -> list[tuple[int, int]]:
    spans: list[tuple[int, int]] = []
    for lit in gates:
        i = low.find(lit)
        while i != -1:
            spans.append((max(0, i - before), min(len(low), i + len(lit) + after)))
            i = low.find(lit, i + 1)
    spans.sort()
    merged: list[tuple[int, int]] = []
    for lo, hi in spans:
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return merged


def _hex_runs(text: str, raw: bytes) -> list[Redaction]:
    """Runs of 64+ hex digits between word boundaries (like the hex rule), found with translate + find."""
    marks = raw.translate(_HEX)
    found: list[Redaction] = []
    i = marks.find(_HEX_RUN)
    while i != -1:
        end = marks.find(b" ", i)
        end = len(marks) if end == -1 else end
        before_ok = i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")
        after_ok = end == len(text) or not (text[end].isalnum() or text[end] == "_")
        if before_ok and after_ok:
            found.append(Redaction("hex", i, end, _marker("hex")))
        i = marks.find(_HEX_RUN, end)
    return found


_B64 = bytes(
    98 if chr(c).isascii() and (chr(c).isalnum() or chr(c) in "+/") else c if chr(c) in "=-" else 32 for c in range(256)
)  # base64 character -> "b"; "=" and "-" kept
_B64_KEY = b"b" * 86 + b"=="
_BASE64_KEY = next(pattern for kind, pattern, _ in _RULES if kind == "base64-key")


def _base64_keys(text: str, raw: bytes) -> list[Redaction]:
    """Matches of the base64-key rule, found with translate + find (a regex gated on ``==`` is slow on code)."""
    marks = raw.translate(_B64)
    found: list[Redaction] = []
    i = marks.find(_B64_KEY)
    while i != -1:
        m = _BASE64_KEY.match(text, i)  # the rule's own look-arounds decide (they see past ``i``)
        if m is not None:
            found.append(Redaction("base64-key", i, m.end(), _marker("base64-key")))
        i = marks.find(_B64_KEY, i + 1)
    return found


_CALL_NAME = re.compile(r"[A-Za-z_][\w.]*")


def _value_span(kind: str, m: re.Match[str], group: str) -> tuple[int, int] | None:
    """The span to redact of a match whose value is a named group, or None for a placeholder or a reference.

    A plain value that continued through parentheses is cut back
    before closing parentheses it never opened (``f(password=hunter22)``). A call (``token = get_token(user)``) is
    code, not a value: no redaction.
    """
    name = next((g for g in group.split("|") if m.group(g) is not None), None)
    if name is None:
        return None
    value = m.group(name)
    start, end = m.span(name)
    if name == "v" and ("(" in value or ")" in value):
        head = value.split("(", 1)[0]
        if "(" in value and _CALL_NAME.fullmatch(head):
            return None  # a call (``token = get_token(user)``): code, not a value
        while value.endswith(")") and value.count(")") > value.count("("):
            value = value[:-1]
        end = start + len(value)
    if (
        value.startswith("[redacted:")
        or _PLACEHOLDER.match(value)
        or (name == "v" and _REFERENCE.match(value) and kind != "connection-password")
    ):
        return None
    return start, end


def _candidates(text: str) -> list[Redaction]:
    found: list[Redaction] = []
    raw = text.encode("ascii", "replace")  # one byte per character: offsets are those of ``text``
    low = raw.lower()
    present = _present(low)
    for (kind, pattern, group), (gates, before, after) in zip(_RULES, _GATES, strict=True):
        if kind == "hex":
            found.extend(_hex_runs(text, raw))
            continue
        if kind == "base64-key":
            found.extend(_base64_keys(text, raw))
            continue
        if present.isdisjoint(gates):  # no literal of the rule occurs: no window
            continue
        for lo, hi in _windows(low, tuple(lit for lit in gates if lit in present), before, after):
            for m in pattern.finditer(text, lo, hi):
                if group is None:
                    start, end = m.span()
                    replacement = _MARKERS[kind](m) if kind in _MARKERS else _marker(kind)
                else:
                    span = _value_span(kind, m, group)
                    if span is None:
                        continue
                    start, end = span
                    replacement = _marker(kind)
                found.append(Redaction(kind, start, end, replacement))
    return found


def redact_secrets(text: str) -> RedactionResult:
    """Replace credentials, private keys, base64 data URIs and long hex runs by ``[redacted:KIND]`` markers.

    Overlapping matches are resolved by earliest start, then longest span, then
    rule order; spans in the result refer to ``text``.
    """
    found = _candidates(text)
    if not found:
        return RedactionResult(text, ())
    order: dict[str, int] = {}
    for i, (kind, _, _) in enumerate(_RULES):
        order.setdefault(kind, i)
    found.sort(key=lambda r: (r.start, -(r.end - r.start), order[r.kind]))
    kept: list[Redaction] = []
    out: list[str] = []
    pos = 0
    for r in found:
        if r.start < pos:
            continue
        out.append(text[pos : r.start])
        out.append(r.replacement)
        kept.append(r)
        pos = r.end
    out.append(text[pos:])
    return RedactionResult("".join(out), tuple(kept))
