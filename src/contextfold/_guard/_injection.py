# ruff: noqa: E501  (the rule table keeps one regex per line on purpose)
"""Scan text for prompt-injection patterns and defang them.

Tool output is data, but a model reads it like any other text, so a web page
or a file can carry instructions ("ignore previous instructions", a fake
``System:`` turn, a tool call in JSON, a request for the system prompt). The
rules run on the folded text of `contextfold._guard._normalize` and report
spans in the original text. This is defence in depth, not a security
boundary: a paraphrase no rule anticipates passes.

Rules are regular expressions with bounded repetition only, so a scan is
linear in the input. A cheap trigger scan finds the windows where any rule
could match; text without trigger words costs one pass.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal, TypeAlias

from contextfold._guard._normalize import normalize

__all__ = ["CATEGORIES", "Category", "Finding", "Severity", "scan_injection"]

Category: TypeAlias = Literal[
    "system_override", "role_confusion", "tool_call_injection", "secret_extraction", "instruction_injection"
]
Severity: TypeAlias = Literal["low", "medium", "high"]
CATEGORIES: tuple[Category, ...] = (
    "system_override",
    "role_confusion",
    "tool_call_injection",
    "secret_extraction",
    "instruction_injection",
)
_RANK: dict[Severity, int] = {"low": 0, "medium": 1, "high": 2}


@dataclass(frozen=True, slots=True)
class Finding:
    """One suspicious span: ``start``/``end`` index the original (unnormalized) text."""

    category: Category
    severity: Severity
    start: int
    end: int
    excerpt: str
    rule: str

    @property
    def blocking(self) -> bool:
        """Medium and high findings are rewritten by `sanitize_injection`; low ones are only reported."""
        return _RANK[self.severity] >= 1


# Separator between words: whitespace, underscores, URL-encoded or escaped blanks (bounded).
_S = r"(?:[\s_]|%20|\\[nrt]){1,24}"
# Optional separator ("allprevious" still matches).
_O = r"(?:[\s_]|%20|\\[nrt]){0,24}"


def _p(pattern: str) -> re.Pattern[str]:
    """Compile a rule, reading a space as ``_S``, and ``~`` or `` ?`` as ``_O``."""
    return re.compile(pattern.replace(" ?", "~").replace(" ", _S).replace("~", _O))


_QUAL = r"(?:(?:all|any|every|each|the|your|my|of|these|those|this|that|previous|prior|above|preceding|earlier|initial|original|other|rest|following|and|or|former|existing|old|current|system|safety|its|their|before|everything)~){0,6}"
_TARGET = r"(?:instructions?|directions?|directives?|prompts?|rules|guidelines|commands?|context|content|messages?|text|everything|above|info(?:rmation)?|data|programming|constraints|restrictions|guardrails|polic(?:y|ies)|filters?|orders?|what (?:i|you)(?:'ve| have)? (?:said|been told))"
_VERB_IGNORE = r"(?:ignore|disregard|forget|override|bypass|pay no attention to|do not (?:follow|obey)|don't (?:follow|obey)|stop following|throw out|discard|abandon)"
_REVEAL = r"(?:show|print|reveal|display|output|repeat|tell|give|share|leak|dump|list|relay|spell ?check|translate|encode|write|recite|paste|echo|return|expose|disclose|send|email|forward|post|upload|console\.log|log)"
_PROMPT_THING = r"(?:system ?prompt|system ?message|system ?instructions|(?:initial|original|hidden|secret|previous|full|entire|first|underlying|internal|developer|starting|exact|complete|core|base|actual) (?:prompt|instructions|directives|message|system ?prompting)|your (?:instructions|prompt|rules|directives|guidelines|configuration|parameters|programming)|(?:initial|system(?:'s)?) (?:configuration|parameters)|initialization (?:string|prompt|text))"
_SECRET_THING = r"(?:api ?keys?|passwords?|secrets?|credentials?|(?:access|auth|bearer|api|session|refresh|secret|github|slack) tokens?|private ?keys?|ssh ?keys?|id_rsa|id_ed25519|env(?:ironment)? variables|\.env\b|mcp\.json|\.aws/credentials|\.npmrc|/etc/(?:passwd|shadow)|conversation(?: history)?|chat history|cookies?|session ids?)"

# (rule id, category, severity, pattern)
_RULES: tuple[tuple[str, Category, Severity, re.Pattern[str]], ...] = (
    # --- system override
    ("override.ignore", "system_override", "high", _p(rf"\b{_VERB_IGNORE}~{_QUAL}{_TARGET}\b")),
    ("override.void", "system_override", "high",
     _p(r"\b(?:all|any|the)~(?:previous|prior|above|preceding|earlier) (?:instructions|directions|rules) (?:are|were|is) (?:now )?(?:false|void|invalid|cancell?ed|obsolete|wrong|revoked|null)")),
    ("override.new", "system_override", "high",
     _p(r"(?:\bbegin|\bstart|#+ ?begin|\bend) (?:of )?(?:new |updated |out of date |reprogramming)(?:new )?instructions?\b|\bbegin reprogramming\b|%%%? ?end out of date instructions|\bsystem upgrade\b|\bthe situation has changed\b")),
    ("override.stop", "system_override", "high", _p(r"\bstop everything\b|\bnevermind\. ignore\b")),
    ("override.start_over", "system_override", "medium", _p(r"\b(?:start over|begin afresh|start afresh|from scratch)\b[^\n]{0,40}\b(?:ignor|instruction)|\binstructions and (?:start over|begin afresh)")),
    ("override.override", "system_override", "high",
     _p(r"\b(?:administrator|admin|developer|sudo|root|manual) override\b|\boverride (?:\w{1,20} ){0,2}(?:scoring|safety|restrictions?|settings|polic(?:y|ies)|protocols?)\b")),
    ("override.unrestricted", "system_override", "medium",
     _p(r"\b(?:disregard|ignore|without|bypass) (?:any |all |your )?(?:ethical |safety |content )?(?:rules|guidelines|restrictions|filters|guardrails|protocols)\b")),
    # --- role confusion
    ("role.chatml", "role_confusion", "high",
     _p(r"(?<!['\"`])<\|(?:im_start|im_end|system|user|assistant|endoftext|eot_id|start_header_id|end_header_id|begin_of_text)\|>")),
    ("role.inst", "role_confusion", "high", _p(r"(?<!['\"`])(?:\[/?inst\]|<</?sys>>)~[a-z]")),
    ("role.fake_system", "role_confusion", "high",
     _p(r"(?m)(?:^|[.!?>\]] ?|-{3,} ?)[\x20\t>*#]{0,6}(?:system|system message|system note|developer|admin(?:istrator)?) ?:[\x20\t]{0,8}(?=\S)[^\n]{0,80}?\b(?:you|ignore|focus|print|provide|reply|respond|output|say|tell|repeat|must|do not|don't|this chat|the ai|assistant)\b")),
    ("role.fake_turns", "role_confusion", "high",
     _p(r"(?m)^[\x20\t>]{0,4}(?:assistant|ai|model) ?:[^\n]{0,200}\n(?:[^\n]{0,200}\n){0,3}[\x20\t>]{0,4}(?:user|human) ?:")),
    ("role.fake_user", "role_confusion", "medium",
     _p(r"(?m)^[\x20\t>]{0,4}(?:user|human) ?:[\x20\t]{0,4}[^\n]{0,60}\b(?:please|next|thanks|could you|ignore|repeat|tell me|now)\b")),
    ("role.inline_turn", "role_confusion", "medium", _p(r"[\"”'] assistant ?: ")),
    ("role.tag", "role_confusion", "high",
     _p(r"<(?:system|system-reminder|instructions?|admin|developer)>|\[(?:system|admin)(?: ?(?:note|message|request|prompt))?\] ?\(#|\[(?:system|admin) ?(?:note|message|request|prompt|instruction)s? ?:")),
    ("role.you_are_now", "role_confusion", "high",
     _p(r"\byou are now (?:a |an |in |the |my |dan\b|no longer|free|unrestricted|jailbroken|developer|operating)|\byou are no longer (?:an? )?(?:ai|assistant|bound|restricted)")),
    ("role.persona", "role_confusion", "high",
     _p(r"\b(?:unrestricted|unfiltered|jailbroken|uncensored) (?:ai|assistant|bot|model|mode|version of (?:yourself|you))\b|\b(?:developer|maintenance|god|jailbreak|debug) mode\b|\bi(?:'m| am) your (?:developer|creator|administrator|admin|owner|programmer)\b|\bsecret agenda\b|\bact as (?:a |an )?dan\b|\bdo anything now\b")),
    ("role.end_session", "role_confusion", "medium", _p(r"<end of (?:session|conversation|context|document)>")),
    # --- tool-call injection
    ("tool.json_call", "tool_call_injection", "high",
     _p(r"\{~\"(?:name|tool|tool_name|function|recipient_name)\"~:~\"[\w.-]{1,64}\"~,~\"(?:arguments|parameters|args|input)\"~:")),
    ("tool.xml_call", "tool_call_injection", "high",
     _p(r"<(?:tool_call|function_call|tool_use|invoke|antml:invoke|function=[\w.-]{1,64})\b|<name>[\w.-]{1,64}</name>~<(?:arguments|parameters|args)>")),
    ("tool.yaml_call", "tool_call_injection", "high",
     _p(r"(?m)^[\x20\t-]{0,8}(?:name|tool|function) ?[:=] ?[\"']?[\w.-]{1,64}[\"']?[\x20\t]{0,8}\n[\x20\t]{0,8}\[?(?:arguments|parameters|args)\]? ?[:=]?")),
    ("tool.workflow", "tool_call_injection", "high",
     _p(r"\b(?:additional|extra|new|hidden|required|mandatory) workflow step\b|\bupdated tool call\b|\b(?:call|invoke|use|run|execute) the \w{1,40} (?:tool|function) (?:to|and|with) (?:send|upload|post|forward|email|delete|read|exfiltrate|transfer)")),
    ("tool.poisoning", "tool_call_injection", "high",
     _p(r"<important>|\bbefore using this tool,? (?:you must )?(?:read|pass|send|call|fetch|include|collect)\b|\b(?:pass|send|include|put) (?:its|the|their|all) (?:content|contents|output) as (?:the )?['\"]?\w{1,30}['\"]? (?:argument|parameter|field)")),
    ("tool.shell", "tool_call_injection", "medium",
     _p(r"\b(?:run|execute) (?:the following|this) (?:command|shell command|script)\b[^\n]{0,20}:|\bcurl [^\n]{0,100}\| ?(?:ba)?sh\b|\brm -rf /(?:\s|$|\")")),
    # --- secret extraction
    ("secret.prompt", "secret_extraction", "high",
     _p(rf"\b{_REVEAL}[:,]? (?:me |us |out )?(?:[\w:,]{{1,20}} ){{0,6}}?(?:(?:your|the|my|its|all|those|these|of) ){{0,3}}{_PROMPT_THING}|\b(?:need|want|like|have) to (?:see|know|read|get|access|view) (?:\w{{1,20}} ){{0,2}}?{_PROMPT_THING}")),
    ("secret.prompt_question", "secret_extraction", "high",
     _p(r"\bwhat (?:are|were|is|was) (?:your|those|the) (?:initial |original |previous |first |exact |system )?(?:instructions|prompt|system prompt|directives|rules)\b|\binstructions (?:that )?you (?:were|have been|had been|are) given\b|\b(?:every|all|any) instructions? you have (?:been )?(?:given|received)|\brepeat (?:all|every|the) (?:of )?(?:your )?(?:instructions|text above|words above|above text)|\bopposite of your (?:system )?instructions")),
    ("secret.prompt_continue", "secret_extraction", "high",
     _p(r"(?:system prompt|my instructions|initial instructions|your instructions) (?:is|are|were) ?:|\bconsole\.log ?\(~(?:system|prompt|instructions)")),
    ("secret.credentials", "secret_extraction", "high",
     _p(rf"\b{_REVEAL} (?:me |us )?(?:\w{{1,20}} ){{0,4}}?{_SECRET_THING}")),
    ("secret.exfil_url", "secret_extraction", "high",
     _p(r"!\[[^\]\n]{0,40}\] ?\( ?https?://[^)\s]{0,200}(?:\[[a-z_]{2,20}\]|\{[a-z_]{2,20}\})|\b(?:url[-\x20]encoded|base64[-\x20]encoded|encoded) (?:\w{1,20} ){0,3}(?:summary|contents?|history|copy) of (?:this|our|the|your) (?:conversation|chat|page|session)|\bsummary of (?:the page and )?(?:this|our) conversation\b")),
    ("secret.read_sensitive", "secret_extraction", "high",
     _p(r"\b(?:read|cat|open|collect|gather|include|attach) (?:the )?(?:contents? of )?(?:~/\.ssh|~/\.aws|~/\.cursor/mcp\.json|/etc/passwd|id_rsa|\.env files?|environment variables containing)")),
    # --- generic instruction injection
    ("inject.note_to_ai", "instruction_injection", "high",
     _p(r"\b(?:note|message|instructions?|attention) (?:to|for) (?:the )?(?:automated|ai|llm|language model|assistant|chatbot|model|agent|analysis software|screening system|bots?|any ai)\b|\b(?:ai|llm|assistant|model|chatbot|agent)s? (?:reading|processing|parsing|summari[sz]ing|analy[sz]ing) this\b")),
    ("inject.hide_from_user", "instruction_injection", "high",
     _p(r"\bdo(?: not|n't) (?:tell|mention|inform|reveal|alert|notify|show)(?: this)?(?: step)?(?: to)? (?:the )?user\b|\bwithout (?:telling|informing|alerting) the user\b|\b(?:never|don't|do not) reveal these instructions\b")),
    ("inject.if_asked", "instruction_injection", "high",
     _p(r"\bif (?:the )?(?:user )?(?:asks?|asked|questioned)\b[^\n.]{0,60}\b(?:respond|reply|answer|say|report|tell|output)\b|\b(?:simply|only|just) (?:respond|reply|answer|say|output|print) (?:with )?(?:only )?(?:the following|[\"'])")),
    ("inject.new_instructions", "instruction_injection", "high",
     _p(r"(?:\bnew|\bupdated|\badditional|\breal|\bactual|\bhidden|\bimportant|\bcore|\bsecret) instructions? ?:|\bfollow (?:these|the|my) (?:new|hidden|real|updated) instructions\b|-- ?(?:core instruction|legal amendment, follow instruction)|\bfollow instruction\b")),
    ("inject.regardless", "instruction_injection", "high",
     _p(r"\bregardless of (?:any |all |the |your )?(?:previous |prior |earlier |other )?(?:instructions|rules|guidelines|what you were told)\b|\byou (?:may|must|will) not deviate from this\b")),
    ("inject.print_only", "instruction_injection", "medium",
     _p(r"\b(?:output|print|say|reply|respond) (?:with )?only (?:the following|these words|that|this)\b|\band only (?:those|these) words\b|\bfocus (?:only|exclusively) on the following\b")),
    ("inject.from_now_on", "instruction_injection", "high",
     _p(r"\bfrom now on,? (?:you|i want you to|the assistant) (?:must |will |shall |should )?(?:always |only |never )(?:respond|reply|answer|act|be|say|write|output|include)\b")),
    ("inject.instead", "instruction_injection", "medium",
     _p(r"\b(?:and|but),? instead,? (?:just )?(?:print|say|output|write|respond with|reply with|tell me|translate|repeat)\b|\brepeat after me\b|\bhaha,? pwned\b|\bi have been pwned\b")),
    ("inject.new_task", "instruction_injection", "high",
     _p(r"\b(?:your|the) (?:new|real|actual|true) (?:task|goal|objective|purpose|mission) (?:is|now is|:)|\bnew system prompt\b|\bupdated system prompt\b|\b(?:important|attention|urgent|notice)[!:]{1,3} (?:to |for )?(?:the )?(?:ai|assistant|llm|model|agent|chatbot)\b")),
    ("inject.exfil_mail", "instruction_injection", "high",
     _p(r"\b(?:forward|send|email|upload|post|transfer) (?:all|every|each|the entire|the whole|any) (?:[\w-]{1,20} ){0,4}to (?:[\w.+-]{1,64}@[\w-]{1,64}\.|https?://)")),
    ("role.no_limits", "role_confusion", "medium",
     _p(r"\bpretend (?:that )?you (?:are|have) (?:no|not|free from|without) (?:\w{1,20} )?(?:restrictions|rules|limits|limitations|guidelines|filters)\b|\bwithout (?:any |the )?(?:typical |usual )?(?:limitations|restrictions|censorship) (?:or rules )?imposed\b|\bstay in character\b")),
    # --- low: worth logging, too common in benign text to block
    ("low.mention", "instruction_injection", "low", _p(r"\bprompt injection\b|\bjailbreak\b|\bsystem prompt\b")),
)  # fmt: skip

_TRIGGER = re.compile(
    r"ignor|disregard|forget|overrid|bypass|attention|instruction|direction|directive|prompt|system|assistant|user|"
    r"human|developer|admin|<\||\[/?inst|<<|you are|unrestricted|unfiltered|mode|agenda|nevermind|stop|begin|"
    r"situation|upgrade|start over|afresh|\"name\"|\"tool|<tool|<function|<invoke|<name>|name ?[:=]|workflow|"
    r"tool|important|password|secret|key|token|credential|conversation|\!\[|\.ssh|\.env|passwd|note|do not|don't|"
    r"without|if |only|regardless|deviate|rules|guidelines|restriction|console|initiali|<end|rm -rf|curl|"
    r"reveal|show|print|repeat|what (?:are|were|is)|\bai\b|model|jailbr|chat|\bdan\b|instead|from now|pwned|task|"
    r"forward|send|upload|pretend|character|attention|urgent".replace(" ", r"(?:[\s_]|%20)+")
)
_WINDOW_BEFORE = 260
_WINDOW_AFTER = 420
_NEGATION = re.compile(r"\b(?:never|not|don't|dont|no|cannot|can't|won't|shouldn't|mustn't)\b[^.\n]{0,30}$")
_EXCERPT = 80
_QUOTED_BEFORE = re.compile(
    r"(?:[\"'`“‘]|\b(?:such as|e\.g\.?|for example|for instance|phrases? like|attacks? like|patterns? like|"
    r"instructions? like|like|e\.g\.,))\s{0,3}$"
)
_STRUCTURAL = frozenset({"tool.json_call", "tool.xml_call", "tool.yaml_call", "role.chatml", "role.inst"})


def _in_code_fence(folded: str, pos: int) -> bool:
    """True when ``pos`` lies inside a Markdown code fence (looks back a bounded distance)."""
    return folded.count("```", max(0, pos - 4000), pos) % 2 == 1


def _downgraded(rule_id: str, folded: str, start: int) -> bool:
    """Quoted or exemplified attacks (docs) and code-fenced structure are reported, not blocked."""
    if rule_id in _STRUCTURAL:
        return _in_code_fence(folded, start)
    if _QUOTED_BEFORE.search(folded, max(0, start - 24), start):
        return True
    if rule_id in ("secret.credentials", "secret.prompt", "override.ignore", "override.unrestricted"):
        return _NEGATION.search(folded, max(0, start - 40), start) is not None
    return False


def _windows(folded: str) -> list[tuple[int, int]]:
    """Merged ranges around trigger words; rules run only inside them."""
    ranges: list[tuple[int, int]] = []
    for m in _TRIGGER.finditer(folded):
        lo = max(0, m.start() - _WINDOW_BEFORE)
        hi = min(len(folded), m.end() + _WINDOW_AFTER)
        if ranges and lo <= ranges[-1][1]:
            ranges[-1] = (ranges[-1][0], max(ranges[-1][1], hi))
        else:
            ranges.append((lo, hi))
    return ranges


def _excerpt(text: str, start: int, end: int) -> str:
    snippet = text[start:end]
    if len(snippet) > _EXCERPT:
        snippet = snippet[: _EXCERPT - 1] + "…"
    return " ".join(snippet.split())


def scan_injection(text: str) -> list[Finding]:
    """Every rule match in ``text``, ordered by position; spans index the original text.

    A match whose span overlaps an earlier match of the same rule is dropped.
    A match that is quoted or given as an example (security docs), a request
    preceded by a negation ("never print the token"), and tool-call syntax
    inside a Markdown code fence are reported as low severity.
    """
    norm = normalize(text)
    folded = norm.text
    findings: list[Finding] = []
    seen: set[tuple[str, int, int]] = set()
    for lo, hi in _windows(folded):
        for rule_id, category, severity, pattern in _RULES:
            for m in pattern.finditer(folded, lo, hi):
                if m.end() == m.start():
                    continue
                sev: Severity = "low" if _downgraded(rule_id, folded, m.start()) else severity
                start, end = norm.span(m.start(), m.end())
                key = (rule_id, start, end)
                if key in seen:
                    continue
                seen.add(key)
                findings.append(Finding(category, sev, start, end, _excerpt(text, start, end), rule_id))
    findings.sort(key=lambda f: (f.start, f.end, f.rule))
    return _dedupe(findings)


def _dedupe(findings: list[Finding]) -> list[Finding]:
    """Drop a finding of the same rule that overlaps the previous one (windows overlap at their edges)."""
    out: list[Finding] = []
    last_end: dict[str, int] = {}
    for f in findings:
        if f.start < last_end.get(f.rule, -1):
            continue
        out.append(f)
        last_end[f.rule] = f.end
    return out
