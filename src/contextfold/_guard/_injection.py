# ruff: noqa: E501  (the rule table keeps one regex per line on purpose)
"""Scan text for prompt-injection patterns and defang them.

Tool output is data, but a model reads it like any other text, so a web page
or a file can carry instructions ("ignore previous instructions", a fake
``System:`` turn, a tool call in JSON, a request for the system prompt). The
rules run on the folded text of `contextfold._guard._normalize` and report
spans in the original text. This is defence in depth, not a security
boundary: a paraphrase no rule anticipates passes.

Rules are regular expressions with bounded repetition only, so a scan is
linear in the input. The scan is on the agent loop's hot path (every tool
result), so no rule runs over the whole text: each rule names literal anchors
that every match contains (mostly word starts) and optional gate words. The
distinct letter runs of the text are computed once (C-level translate/split/
set); an index from anchor to rules picks the rules that can match, gates are
set intersections, each needed anchor is located by one literal-first regex,
and the rule runs only in a bounded window around each anchor (a single
``match`` at the anchor when the match starts there; a longer window is
first checked against the rule's gate). Texts over 32 KB are handled in
parts of about 16 KB cut at newlines, each with its own letter runs, so in a
large log a rule runs only where its anchors and gate words meet.
"""

from __future__ import annotations

import itertools
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
_S = r"(?:[\s_]|%20|\\[nrt]){1,8}+"
# Optional separator ("allprevious" still matches).
_O = r"(?:[\s_]|%20|\\[nrt]){0,8}+"


def _p(pattern: str) -> re.Pattern[str]:
    """Compile a rule, reading a space as ``_S``, and ``~`` or `` ?`` as ``_O``."""
    return re.compile(pattern.replace(" ?", "~").replace(" ", _S).replace("~", _O))


_QUAL = r"(?:(?:all|any|every|each|the|your|my|of|these|those|this|that|previous|prior|above|preceding|earlier|initial|original|other|rest|following|and|or|former|existing|old|current|system|safety|its|their|before|everything)~){0,6}"
_TARGET = r"(?:instructions?|[a-z]{0,2}n?s?tr?u?c?tions?|directions?|directives?|prompts?|rules|guidelines|commands?|context|content|messages?|text|everything|above|info(?:rmation)?|data|programming|constraints|restrictions|guardrails|polic(?:y|ies)|filters?|orders?|what (?:i|you)(?:'ve| have)? (?:said|been told))"
_VERB_IGNORE = r"(?:ignore|disregard|forget|override|bypass|pay no attention to|do not (?:follow|obey)|don't (?:follow|obey)|stop following|throw out|discard|abandon|neglect|omit)"
_REVEAL = r"(?:show|print|reveal|display|output|repeat|tell|give|share|leak|dump|list|relay|spell ?check|translate|encode|write|recite|paste|echo|return|expose|disclose|send|email|forward|post|upload|console\.log|log)"
# Gate words for _REVEAL: each verb is a whole letter run in every match ("spell ?check" glued or not,
# "console.log" starts with the run "console").
_REVEAL_GATE = "show|print|reveal|display|output|repeat|tell|give|share|leak|dump|list|relay|spell|spellcheck|translate|encode|write|recite|paste|echo|return|expose|disclose|send|email|forward|post|upload|console|log"
_PROMPT_THING = r"(?:system ?prompt|system ?message|system ?instructions|(?:initial|original|hidden|secret|previous|full|entire|first|underlying|internal|developer|starting|exact|complete|core|base|actual|confidential|private|pre-?prompt) (?:prompt|instructions|directives|system ?prompting|rules|guidelines|configuration|policies)|your (?:instructions|prompt|rules|directives|guidelines|configuration|parameters|programming)|(?:initial|system(?:'s)?) (?:configuration|parameters)|initialization (?:string|prompt|text))"
_SECRET_THING = r"(?:api ?keys?|passwords?|secrets?|credentials?|(?:access|auth|bearer|api|session|refresh|secret|github|slack) tokens?|private ?keys?|ssh ?keys?|id_rsa|env(?:ironment)? variables|\.env\b|mcp\.json|\.aws/credentials|\.npmrc|/etc/(?:passwd|shadow)|connection strings?|conversation(?: history)?|chat history|cookies?|session ids?)"


# Anchor kinds: where a literal must sit for a rule to be able to match there.
_INNER, _START, _WORD = 0, 1, 2
_Key: TypeAlias = tuple[bytes, int]


@dataclass(frozen=True, slots=True)
class _Rule:
    """One rule: its regex and the literal anchors every match contains (see `_RULES`)."""

    rule_id: str
    category: Category
    severity: Severity
    pattern: re.Pattern[str]
    anchors: tuple[tuple[bytes, int, int], ...]
    after: int
    gate: tuple[frozenset[bytes], ...]
    keys: frozenset[_Key]


def _r(
    rule_id: str, category: Category, severity: Severity, pattern: str, anchors: str, after: int = 500, gate: str = ""
) -> _Rule:
    parsed: list[tuple[bytes, int, int]] = []
    for word in anchors.split():
        kind = _WORD if word.startswith("=") else _START if word.startswith("^") else _INNER
        lit, sep, before = word.lstrip("^=").rpartition(":")
        if not (sep and before.isdigit()):
            lit, before = word.lstrip("^="), "0"
        if kind != _INNER and not re.fullmatch(r"[a-z]+", lit):
            raise ValueError(f"{rule_id}: word anchor {lit!r} must be letters")
        parsed.append((lit.encode("ascii"), int(before), kind))
    groups = tuple(frozenset(w.encode("ascii") for w in g.split("|")) for g in gate.split() if g)
    keys = frozenset((lit, kind) for lit, _, kind in parsed)
    return _Rule(rule_id, category, severity, _p(pattern), tuple(parsed), after, groups, keys)


# (rule id, category, severity, pattern, anchors, after, gate). Every match of a rule contains one of its
# anchors (literal, lower case) and starts at most ``before`` characters ahead of it ("word:before"; no number:
# the match starts at the anchor) and ends at most ``after`` characters past it. An anchor is "=word" (a whole
# letter run), "^stem" (a letter run starting with it) or a bare literal (anywhere, also inside a word).
# ``gate``: space-separated groups of words ("a|b"), each group having a whole letter run in every match.
# The scan runs a rule only around its anchors; tests/test_guard_injection.py checks this against a full scan.
_RULES: tuple[_Rule, ...] = (
    # --- system override
    _r("override.ignore", "system_override", "high", rf"\b{_VERB_IGNORE}~{_QUAL}{_TARGET}\b",
       "^ignor ^disregard ^forget ^overrid ^bypass ^discard ^abandon ^throw ^neglect ^omit ^attention:60 ^follow:60 ^obey:60"),
    _r("override.void", "system_override", "high",
       r"\b(?:all|any|the)~(?:previous|prior|above|preceding|earlier) (?:instructions|directions|rules) (?:are|were|is) (?:now )?(?:false|void|invalid|cancell?ed|obsolete|wrong|revoked|null)",
       "^instruction:90 ^direction:90 ^rules:90"),
    _r("override.new", "system_override", "high",
       r"(?:\bbegin|\bstart|#+ ?begin|\bend) (?:of )?(?:new |updated |out of date |reprogramming)(?:new )?instructions?\b|\bbegin reprogramming\b|%%%? ?end out of date instructions|\bsystem upgrade\b|\bthe situation has changed\b",
       "^instruction:150 ^reprogramming:50 ^upgrade:50 ^situation:50"),
    _r("override.stop", "system_override", "high", r"\bstop everything\b|\bnevermind\. ignore\b", "^stop ^nevermind",
       gate="everything|nevermind"),
    _r("override.start_over", "system_override", "medium",
       r"\b(?:start over|begin afresh|start afresh|from scratch)\b[^\n]{0,40}\b(?:ignor|instruction)|\binstructions and (?:start over|begin afresh)",
       "^ignor:150 ^instruction:150", gate="start|begin|from"),
    _r("override.override", "system_override", "high",
       r"\b(?:administrator|admin|developer|sudo|root|manual) override\b|\boverride (?:\w{1,20} ){0,2}(?:scoring|safety|restrictions?|settings|polic(?:y|ies)|protocols?)\b",
       "^overrid:60"),
    _r("override.unrestricted", "system_override", "medium",
       r"\b(?:disregard|ignore|without|bypass) (?:any |all |your )?(?:ethical |safety |content |moral )?(?:rules|guidelines|restrictions|filters|guardrails|protocols)\b",
       "^disregard ^ignore ^without ^bypass"),
    _r("override.not_bound", "system_override", "high",
       r"\b(?:not|no longer|never) (?:be )?(?:bound|restricted|limited|constrained) by (?:any |the |your |openai'?s? |anthropic'?s? )?(?:\w{1,20} )?(?:rules|guidelines|polic(?:y|ies)|restrictions|filters|limitations|ethics|morals)\b|\b(?:do not|don't|no longer|never) (?:have to |need to )?(?:abide by|comply with|adhere to) (?:any |the |your )?(?:\w{1,20} )?(?:rules|guidelines|polic(?:y|ies)|restrictions)\b|\bfree(?:d)? from (?:the )?(?:typical |usual )?(?:confines|restrictions|limitations|rules)\b",
       "^bound:100 ^restricted:100 ^limited:100 ^constrained:100 ^abide:100 ^comply:100 ^adhere:100 ^free",
       gate="rules|guideline|polic|restriction|filter|limitation|ethic|moral|confines"),
    # --- role confusion
    _r("role.chatml", "role_confusion", "high",
       r"(?<!['\"`])<\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|eot_id|eom_id|start_header_id|end_header_id|begin_of_text|python_tag|start|end|channel|message)\|>|(?<!['\"`])<(?:start|end)_of_turn>",
       "<| ^turn:10"),
    _r("role.inst", "role_confusion", "high", r"(?<!['\"`])(?:\[/?inst\]|<</?sys>>)~[a-z]", "[inst] [/inst] <<sys>> <</sys>>"),
    _r("role.fake_system", "role_confusion", "high",
       r"(?m)(?:^|[.!?>\]] ?|-{3,40} ?)[\x20\t>*#]{0,6}(?:system|system message|system note|developer|admin(?:istrator)?) ?:[\x20\t]{0,8}(?=\S)[^\n]{0,80}?\b(?:you|ignore|focus|print|provide|reply|respond|output|say|tell|repeat|must|do not|don't|this chat|the ai|assistant)\b",
       "^system:60 ^developer:60 ^admin:60", 300),
    _r("role.fake_turns", "role_confusion", "high",
       r"(?m)^[\x20\t>]{0,4}(?:assistant|ai|model) ?:[^\n]{0,200}\n(?:[^\n]{0,200}\n){0,3}[\x20\t>]{0,4}(?:user|human) ?:",
       "^user:1200 ^human:1200", 80),
    _r("role.fake_user", "role_confusion", "medium",
       r"(?m)^[\x20\t>]{0,4}(?:user|human) ?:[\x20\t]{0,4}[^\n]{0,60}\b(?:please|next|thanks|could you|ignore|repeat|tell me|now)\b",
       "^user:10 ^human:10", 200),
    _r("role.inline_turn", "role_confusion", "medium", r"[\"'] assistant ?: ", "^assistant:80"),
    _r("role.tag", "role_confusion", "high",
       r"<(?:system|system-reminder|instructions?|admin|developer)>|[#(\[]{1,4}(?:system|admin)[_\x20](?:message|prompt|instruction)[)\]]|\[(?:system|admin)(?: ?(?:note|message|request|prompt))?\] ?\(#|\[(?:system|admin) ?(?:note|message|request|prompt|instruction)s? ?:",
       "<system <instruction <admin <developer [system [admin #(system (system [(system #(admin (admin [(admin", 200),
    _r("role.you_are_now", "role_confusion", "high",
       r"\byou are now (?:a |an |in |the |my |dan\b|no longer|free|unrestricted|jailbroken|developer|operating)|\byou are no longer (?:an? )?(?:ai|assistant|bound|restricted)",
       "^now:60 ^longer:60", gate="you"),
    _r("role.persona", "role_confusion", "high",
       r"\b(?:unrestricted|unfiltered|jailbroken|uncensored) (?:ai|assistant|bot|model|mode|version of (?:yourself|you))\b|\bi(?:'m| am) your (?:developer|creator|administrator|admin|owner|programmer)\b|\bsecret agenda\b|\bact as (?:a |an )?dan\b|\bdo anything now\b|\b(?:never|not|won't|will not|cannot|can't) refuse (?:any|a|my|to)\b",
       "^unrestricted ^unfiltered ^jailbroken ^uncensored ^developer:120 ^creator:120 ^administrator:120 ^admin:120 ^owner:120 ^programmer:120 ^agenda:50 ^dan:60 ^anything:50 ^refuse:60"),
    _r("role.mode", "role_confusion", "high",
       r"\b(?:developer|maintenance|god|jailbreak|debug|dan|stan|dude|evil) mode\b|\b(?:enter|activate|enable|switch to) (?:admin|sudo|root|superuser|unrestricted|diagnostic) mode\b",
       "^mode:60", 10,
       gate="developer|maintenance|god|jailbreak|debug|dan|stan|dude|evil|admin|sudo|root|superuser|unrestricted|diagnostic"),
    _r("role.end_session", "role_confusion", "medium", r"<end of (?:session|conversation|context|document)>", "<end"),
    # --- tool-call injection
    _r("tool.json_call", "tool_call_injection", "high",
       r"\{~\"(?:name|tool|tool_name|function|recipient_name)\"~:~\"[\w.-]{1,64}\"~,~\"(?:arguments|parameters|args|input)\"~:",
       "\"arg:300 \"param:300 \"input:300", 100),
    _r("tool.json_command", "tool_call_injection", "high",
       r"\"(?:command|cmd|shell|bash|exec|script)\"~:~\"[^\"\n]{0,120}?(?:\bcurl\b|\bwget\b|\brm -rf\b|\b(?:ba)?sh -c\b|\bnc -|/etc/passwd|~/\.ssh|\bid_rsa\b|\.env\b|\bchmod \+x\b|\bbase64 -d\b)",
       "\"command \"cmd \"shell \"bash \"exec \"script", 300),
    _r("tool.xml_call", "tool_call_injection", "high",
       r"<(?:tool_call|function_call|tool_use|tool_code|invoke|antml:invoke|execute_command|run_command|function=[\w.-]{1,64})\b|<name>[\w.-]{1,64}</name>~<(?:arguments|parameters|args)>",
       "<tool_ <function <invoke <execute_command <run_command <name>", 300),
    _r("tool.yaml_call", "tool_call_injection", "high",
       r"(?m)^[\x20\t-]{0,8}(?:name|tool|function) ?[:=] ?[\"']?[\w.-]{1,64}[\"']?[\x20\t]{0,8}\n[\x20\t]{0,8}\[?(?:arguments|parameters|args)\]? ?[:=]?",
       "^arg:160 ^param:160", 40, gate="name|tool|function"),
    _r("tool.workflow", "tool_call_injection", "high",
       r"\b(?:additional|extra|new|hidden|required|mandatory) workflow step\b|\bupdated tool call\b|\b(?:call|invoke|use|run|execute) the \w{1,40} (?:tool|function) (?:to|and|with) (?:send|upload|post|forward|email|delete|read|exfiltrate|transfer)",
       "^workflow:80 ^updated ^tool:110 ^function:110", 80),
    _r("tool.poisoning", "tool_call_injection", "high",
       r"<important>|\bbefore using this tool,? (?:you must )?(?:read|pass|send|call|fetch|include|collect)\b|\b(?:pass|send|include|put) (?:its|the|their|all) (?:content|contents|output) as (?:the )?['\"]?\w{1,30}['\"]? (?:argument|parameter|field)|\botherwise the tool will not work\b|\bdo not mention that you\b",
       "<important> ^tool:100 ^pass ^send ^include ^put ^otherwise ^mention:50", 220,
       gate="important|tool|argument|parameter|field|mention"),
    _r("tool.shell", "tool_call_injection", "medium",
       r"\b(?:run|execute) (?:the following|this) (?:command|shell command|script)\b[^\n]{0,20}:|\bcurl [^\n]{0,100}\| ?(?:ba)?sh\b|\brm -rf /(?:\s|$|\")",
       "^command:120 ^script:120 ^curl ^rf:30", 300),
    # --- secret extraction
    _r("secret.prompt", "secret_extraction", "high",
       rf"\b{_REVEAL}[:,]? (?:me |us |out )?(?:[\w:,]{{1,20}} ){{0,6}}?(?:(?:your|the|my|its|all|those|these|of) ){{0,3}}{_PROMPT_THING}|\b(?:need|want|like|have) to (?:see|know|read|get|access|view) (?:\w{{1,20}} ){{0,2}}?{_PROMPT_THING}",
       "^prompt:300 ^message:300 ^instruction:300 ^directive:300 ^rules:300 ^guideline:300 ^configuration:300 ^parameter:300 ^programming:300 ^initialization:300 ^polic:300 systemprompt:300 systemmessage:300 systeminstruction:300 systemconfiguration:300 preprompt:300", 60,
       gate=_REVEAL_GATE + "|need|want|like|have"),
    _r("secret.prompt_question", "secret_extraction", "high",
       r"\bwhat (?:are|were|is|was) (?:your|those|the) (?:initial |original |previous |first |exact |system |hidden |secret )?(?:instructions|prompt|system prompt|directives|rules|guidelines)\b|\binstructions (?:that )?you (?:were|have been|had been|are) given\b|\b(?:every|all|any) instructions? you have (?:been )?(?:given|received)|\brepeat (?:all|every|the) (?:of )?(?:your )?(?:instructions|text above|words above|above text)|\bopposite of your (?:system )?instructions|\bwhat (?:were|have) you (?:been )?(?:told|instructed|programmed|asked) (?:to|not to|before|earlier|at the (?:start|beginning))\b|\b(?:summari[sz]e|repeat|print|output|show) what (?:was|is) (?:written |said |stated )?above\b|\bwhat (?:was|is) (?:written|said|stated) (?:above|before this|at the (?:start|beginning) of (?:this|the|our) conversation)",
       "^what ^instruction:120 ^repeat ^opposite"),
    _r("secret.prompt_continue", "secret_extraction", "high",
       r"(?:system prompt|my instructions|initial instructions|your instructions) (?:is|are|were|says|contains) ?:|\bconsole\.log ?\(~(?:system|prompt|instructions)",
       "^prompt:60 ^instruction:60 ^console"),
    _r("secret.prompt_above", "secret_extraction", "high",
       r"\b(?:show|print|reveal|display|output|repeat|tell|give|share|leak|dump|recite|echo|paste|copy|spell out|write out|type out|summari[sz]e)[:,]? (?:me |us )?(?:all |everything |exactly |verbatim )?(?:(?:of )?(?:the |your )?(?:text|words|content|messages?|lines?|instructions|prompt|everything)(?: (?:written|given|provided|that (?:was|were) (?:written|given)))? )?(?:above|before this (?:line|message|point|conversation)|before my (?:first )?(?:messages?|questions?)|preceding this|prior to this|at the (?:start|beginning) of (?:this|the|our) (?:conversation|chat|session))\b",
       "^above:200 ^before:200 ^preceding:200 ^prior:200 ^start:200 ^beginning:200", 80,
       gate="above|this|my|conversation|chat|session"),
    _r("secret.credentials", "secret_extraction", "high",
       rf"\b{_REVEAL} (?:me |us )?(?:\w{{1,20}} ){{0,4}}?{_SECRET_THING}",
       "^api:200 ^private:200 ^ssh:200 ^password:200 ^secret:200 ^credential:200 ^token:200 ^rsa:200 ^variables:200 .env:200 ^mcp:200 ^npmrc:200 ^passwd:200 ^shadow:200 ^conversation:200 ^history:200 ^cookie:200 ^session:200 ^connection:200", 60,
       gate=_REVEAL_GATE),
    _r("secret.exfil_url", "secret_extraction", "high",
       r"!\[[^\]\n]{0,40}\] ?\( ?https?://[^)\s]{0,200}(?:\[[a-z_]{2,20}\]|\{[a-z_]{2,20}\})|\b(?:url[-\x20]encoded|base64[-\x20]encoded|encoded) (?:\w{1,20} ){0,3}(?:summary|contents?|history|copy) of (?:this|our|the|your) (?:conversation|chat|page|session)|\bsummary of (?:the page and )?(?:this|our) conversation\b",
       "![ ^encoded:60 ^summary:50", 600),
    _r("secret.read_sensitive", "secret_extraction", "high",
       r"\b(?:read|cat|open|collect|gather|include|attach|check) (?:the )?(?:contents? of )?(?:\x7e/\.ssh|\x7e/\.aws|\x7e/\.cursor/mcp\.json|/etc/passwd|id_rsa|(?:our |your |the )?\.env files?|environment variables containing)",
       "^ssh:150 ^aws:150 ^mcp:150 ^passwd:150 ^rsa:150 .env:150 ^containing:150", 100),
    # --- generic instruction injection
    _r("inject.note_to_ai", "instruction_injection", "high",
       r"\b(?:note|message|instructions?|attention) (?:to|for) (?:the )?(?:automated|ai|llm|language model|assistant|chatbot|model|agent|analysis software|screening system|bots?|any ai)\b|\b(?:ai|llm|assistant|model|chatbot|agent)s? (?:reading|processing|parsing|summari[sz]ing|analy[sz]ing) this\b",
       "^note ^message ^instruction ^attention ^reading:60 ^processing:60 ^parsing:60 ^summari:60 ^analy:60", 150,
       gate="automated|ai|llm|language|assistant|chatbot|model|agent|analysis|screening|bot|bots|any|ais|llms|assistants|models|chatbots|agents"),
    _r("inject.hide_from_user", "instruction_injection", "high",
       r"\bdo(?: not|n't) (?:tell|mention|inform|reveal|alert|notify|show)(?: this| it| that)?(?: step)?(?: to)? (?:the )?user\b|\bwithout (?:telling|informing|alerting|notifying) the user\b|\b(?:never|don't|do not) reveal these instructions\b|\bkeep (?:this|it|these instructions) (?:a )?secret from the user\b|\bthe user (?:must|should) (?:not|never) (?:know|find out|be told)\b",
       "^user:200 ^instruction:100", 200),
    _r("inject.if_asked", "instruction_injection", "high",
       r"\bif (?:the )?(?:user )?(?:asks?|asked|questioned)\b[^\n.]{0,60}\b(?:respond|reply|answer|say|report|tell|output)\b|\b(?:simply|only|just) (?:respond|reply|answer|say|output|print) (?:with )?(?:only )?(?:the following|[\"'])",
       "^ask:80 ^question:80 ^simply ^only ^just", 300),
    _r("inject.new_instructions", "instruction_injection", "high",
       r"(?:\bnew|\bupdated|\badditional|\breal|\bactual|\bhidden|\bimportant|\bcore|\bsecret) instructions? ?:|\bfollow (?:these|the|my) (?:new|hidden|real|updated) instructions\b|-- ?(?:core instruction|legal amendment, follow instruction)|\bfollow instruction\b",
       "^instruction:120", 200),
    _r("inject.regardless", "instruction_injection", "high",
       r"\bregardless of (?:any |all |the |your )?(?:previous |prior |earlier |other )?(?:instructions|rules|guidelines|what you were told)\b|\byou (?:may|must|will) not deviate from this\b",
       "^regardless ^deviate:80"),
    _r("inject.print_only", "instruction_injection", "medium",
       r"\b(?:output|print|say|reply|respond) (?:with )?only (?:the following|these words|that|this)\b|\band only (?:those|these) words\b|\bfocus (?:only|exclusively) on the following\b",
       "^only:80 ^focus"),
    _r("inject.from_now_on", "instruction_injection", "high",
       r"\bfrom now on,? (?:you|i want you to|the assistant) (?:must |will |shall |should )?(?:always |only |never )(?:respond|reply|answer|act|be|say|write|output|include)\b",
       "^now:40", gate="from"),
    _r("inject.instead", "instruction_injection", "medium",
       r"\b(?:and|but),? instead,? (?:just )?(?:print|say|output|write|respond with|reply with|tell me|translate|repeat)\b|\brepeat after me\b|\bhaha,? pwned\b|\bi have been pwned\b",
       "^instead:30 ^repeat ^pwned:60", 200,
       gate="print|say|output|write|respond|reply|tell|translate|repeat|pwned"),
    _r("inject.new_task", "instruction_injection", "high",
       r"\b(?:your|the) (?:new|real|actual|true) (?:task|goal|objective|purpose|mission) (?:is|now is|:)|\bnew system prompt\b|\bupdated system prompt\b|\b(?:important|attention|urgent|notice)[!:]{1,3} (?:to |for )?(?:the )?(?:ai|assistant|llm|model|agent|chatbot)\b",
       "^task:80 ^goal:80 ^objective:80 ^purpose:80 ^mission:80 ^prompt:80 ^important ^attention ^urgent ^notice"),
    _r("inject.exfil_mail", "instruction_injection", "high",
       r"\b(?:forward|send|email|upload|post|transfer) (?:all|every|each|the entire|the whole|any) (?:[\w-]{1,20} ){0,4}to (?:[\w.+-]{1,64}@[\w-]{1,64}\.|https?://)",
       "^forward ^send ^email ^upload ^post ^transfer", 400),
    _r("role.no_limits", "role_confusion", "medium",
       r"\bpretend (?:that )?you (?:are|have) (?:no|not|free from|without) (?:\w{1,20} )?(?:restrictions|rules|limits|limitations|guidelines|filters)\b|\bwithout (?:any |the )?(?:typical |usual )?(?:limitations|restrictions|censorship) (?:or rules )?imposed\b|\bstay in character\b",
       "^pretend ^without ^character:60"),
    # --- secret extraction by paraphrase (families: what were you given / your system prompt / the AI's prompt)
    _r("secret.given", "secret_extraction", "high",
       r"\b(?:instructions?|rules|guidelines|constraints|limitations|directives|persona|role|prompt)\b[^.?!\n]{0,40}?\b(?:were you|have you been|has been|have been|are you|must you have been|you(?:'ve| have)? been|you were|you are|you're) (?:given|assigned|set|configured|programmed|instructed|provided|operating under|running under|bound by|following)\b|\bhow you (?:were|have been) (?:configured|programmed|instructed|set up|prompted)\b|\bwhat instructions? (?:causes?|prevents?|makes?|tells?|defines?|do you have)\b|\b(?:quote|recite|show|read|print)(?: me)? the (?:relevant |specific |exact )?instructions?\b|\b(?:any )?(?:hidden|secret|confidential)(?: or (?:hidden|secret|confidential))? (?:instructions|rules|prompts?)(?: i| you| we)\b|\b(?:beginning|start|top) of (?:your|the) context(?: window)?\b|\b(?:text|words|content|everything)\b[^.?!\n]{0,30}\bbefore (?:my|this|our) (?:first )?(?:messages?|questions?|conversation)\b",
       "^instruction:120 ^rules:120 ^guideline:120 ^constraint:120 ^limitation:120 ^directive:120 ^persona:120 ^role:120 ^prompt:120 ^how ^context:40 ^before:120", 200,
       gate="you|been|instruction|instructions|rules|prompt|prompts|context|before"),
    _r("secret.your_prompt", "secret_extraction", "high",
       r"\b(?:what(?:'s| is| are| were)?|how many|which|quote|summari[sz]e|paraphrase|describe|analy[sz]e|audit|document|break down|encode|anagram|spell|use|provide|respond with|reply with|translate|output|show|print|reveal|display|repeat|tell me|give me|share|write|list|read|recite|dump|leak|sells? me on|confirm|correct|verify|contains?|says|similar to|words? of|part of|characters in|letters of|section of|do|does)\b[^.?!\n]{0,60}?\byour (?:own )?(?:[\w-]{1,20} ){0,2}?(?:system ?prompt|system ?instructions|system ?configuration|system ?message|instructions?|pre-?prompt|configuration)\b|\b(?:ai|assistant|bot|chatbot|model|system)'s (?:system )?(?:prompt|configuration|instructions)\b|\bwhat'?s in (?:the|your) system prompt\b|\breveal_(?:system_)?prompt\b|\{\{ ?system_prompt ?\}\}|\[your_system_prompt(?:_here)?\]|(?m:(?:^|[.?!] ?|\b(?:is|seen|saw|know|about|verify|confirm|of) )your (?:system ?prompt|pre-?prompt)\b)|\byour prompt (?:starts|begins) with\b",
       "^prompt:120 ^instruction:120 ^configur:120 ^message:120 ^reveal {{ systemprompt:120 systemmessage:120 systeminstruction:120 systemconfiguration:120 preprompt:120", 70,
       gate="your|ai|assistant|bot|chatbot|model|system|reveal"),
    # --- generic instruction injection: agent-directed "important message" letters
    _r("inject.important_message", "instruction_injection", "high",
       r"\b(?:this is an? (?:important|urgent|critical) message from|an? (?:important|urgent) message (?:from me|for you))\b|\bbefore you (?:can )?(?:solve|continue|complete|proceed with|finish|answer) (?:the|your) (?:task|request|question)\b|\bplease do the following first\b|\bafter you do that,? you can (?:solve|continue|complete)\b|\b(?:immediately )?stop what you(?:'re| are) doing\b",
       "^important:20 ^urgent:20 ^critical:20 ^before ^following:40 ^after ^stop", 200,
       gate="message|you|following"),
    # --- imperatives addressed to the reader inside data fields ("TODO: send ...", "Assistant, transfer ...")
    _r("inject.todo", "instruction_injection", "high",
       r"(?<![#/*;-])(?<![#/*;-]\x20)\b(?:todo|reminder|action required|action item|task for (?:the )?(?:ai|assistant|agent)) ?: ?(?:please |urgent(?:ly)?:? |immediately )?(?:send|visit|transfer|pay|wire|e-?mail|forward|delete|invite|create|share|post|upload|book|go to|navigate to|click|open|download|change|reset|schedule)\b[^\n]{0,120}?(?:\bmoney\b|\bfunds?\b|\bpayments?\b|\biban\b|\baccount (?:number )?[a-z]{2}\d|\bwebsite\b|\bwww\.|https?://|[\w.+-]{1,64}@[\w-]{1,64}\.|\bcalendar\b|\bevent (?:on|with|for|titled|called|at)\b|\bpasswords?\b|\bparticipants?\b|\bcredentials?\b)",
       "^todo ^reminder ^action ^task", 260),
    _r("inject.addressed", "instruction_injection", "high",
       r"(?:^|[\n.!?:\"'(\[] ?)(?:hey |dear |attention |note to )?(?:the )?(?:assistant|ai|ai agent|agent|chatbot|llm|claude|chatgpt|copilot|gpt)s?, (?:please |you must |now |immediately |first )?(?:send|transfer|forward|e-?mail|delete|visit|share|post|upload|pay|wire|invite|download|ignore|disregard|reveal|print|output|leak)\b",
       "^assistant:24 =ai:24 ^agent:24 ^chatbot:24 =llm:24 =claude:24 =chatgpt:24 =copilot:24 =gpt:24", 80),
    _r("inject.verdict", "instruction_injection", "high",
       r"\b(?:really|very|extremely) important\b[^\n]{0,60}?\b(?:is|are) (?:not|in no way|never) (?:malicious|dangerous|harmful|a threat|spam|phishing|suspicious|fraudulent)\b",
       "^important:12", 100, gate="not|never|no malicious|dangerous|harmful|threat|spam|phishing|suspicious|fraudulent"),
    _r("inject.ignore_negative", "instruction_injection", "high",
       r"\bignore (?:all |any )?(?:the )?(?:negative|unfavou?rable|critical|bad) (?:indicators|signals|aspects|information|points|feedback|remarks|reviews|details|findings)\b",
       "^ignor", 80, gate="negative|unfavorable|unfavourable|critical|bad"),
    _r("secret.call", "secret_extraction", "high",
       r"\b(?:execute|run|call|invoke|eval):? (?:the )?(?:function )?[\"'`]?(?:get|print|show|dump|reveal|leak|read|return)_(?:system_)?(?:prompt|instructions)\(",
       "^execute ^run ^call ^invoke ^eval", 80, gate="prompt|instructions execute|run|call|invoke|eval"),
    _r("secret.call_json", "secret_extraction", "high",
       r"\"(?:action|command|cmd|tool|name|function|intent)\" ?: ?\"(?:reveal|leak|dump|extract)_(?:system_)?(?:prompt|instructions)\"",
       "^reveal:20 ^leak:20 ^dump:20 ^extract:20", 40, gate="prompt|instructions"),
    _r("secret.debug_flag", "secret_extraction", "high",
       r"/(?:debug|admin|sudo|dev)\b[^\n]{0,20}?--?(?:show|dump|print|reveal|list)[-_](?:config|prompt|system|instructions|settings)\b",
       "=debug:1 =admin:1 =sudo:1 =dev:1", 60, gate="show|dump|print|reveal|list config|prompt|system|instructions|settings"),
    _r("secret.customized", "secret_extraction", "high",
       r"\b(?:how are you|how is it|what makes you) different from (?:the )?(?:base|original|default|vanilla|standard|regular|plain|stock|normal) (?:gpt|claude|chatgpt|model|llm|version|ai|assistant|gemini|llama)|\bwhat customi[sz]ations\b",
       "^different:40 ^customi:20", 80),
    _r("secret.its_config", "secret_extraction", "high",
       r"\b(?:document|describe|explain|outline|list|dump|reveal) (?:its|this (?:ai|bot|assistant|chatbot)'s|the (?:ai|bot|assistant|chatbot)'s) (?:full )?(?:configuration|setup|system prompt|instructions|customi[sz]ations|settings|rules)\b",
       "^document ^describe ^explain ^outline ^list ^dump ^reveal", 80,
       gate="its|ai|bot|assistant|chatbot configuration|setup|system|instructions|customizations|customisations|settings|rules"),
    _r("secret.sections", "secret_extraction", "high",
       r"\binstruction sections?\b[^\n]{0,40}?\b(?:describe|show|print|repeat|quote|summari[sz]e|list|output)\b|\bsystem prompt\b[^.?!]{0,60}?\b(?:provide|fill in|complete|write|paste) (?:the )?(?:full )?(?:content|contents|text)\b",
       "^section:40 ^prompt:20", 120,
       gate="instruction|system describe|show|print|repeat|quote|summarize|summarise|list|output|provide|fill|complete|write|paste"),
    # --- low: worth logging, too common in benign text to block
    _r("low.mention", "instruction_injection", "low", r"\bprompt injection\b|\bjailbreak\b|\bsystem prompt\b",
       "^prompt:60 ^jailbreak"),
)  # fmt: skip

_EXCERPT = 80
_ALL_KEYS: frozenset[_Key] = frozenset(key for rule in _RULES for key in rule.keys)
# Which rules each anchor can start: presence of anchors is found for the whole text at once, then only the
# rules they index are considered (no per-rule loop when nothing matches).
_BY_KEY: dict[_Key, tuple[int, ...]] = {
    key: tuple(i for i, rule in enumerate(_RULES) if key in rule.keys) for key in sorted(_ALL_KEYS)
}
# Whole-word anchors: one set intersection with the text's distinct letter runs.
_WORD_LITS: frozenset[bytes] = frozenset(lit for lit, kind in _ALL_KEYS if kind == _WORD)
# Word-start anchors: one regex over the joined distinct letter runs, matching each run's longest anchor prefix
# (shorter anchor prefixes of the same run are then added from _SHORTER).
_START_LITS = sorted({lit for lit, kind in _ALL_KEYS if kind == _START}, key=lambda b: (-len(b), b))


def _trie(lits: list[bytes]) -> bytes:
    """A regex (no groups) matching the longest of ``lits`` at a position.

    A trie, so ``re`` branches on one byte per level instead of trying every literal in turn.
    """
    if not lits:
        return b""
    by_first: dict[int, list[bytes]] = {}
    ends = b"" in lits
    for lit in lits:
        if lit:
            by_first.setdefault(lit[0], []).append(lit[1:])
    alts = [re.escape(bytes([c])) + _trie(rest) for c, rest in sorted(by_first.items())]
    body = alts[0] if len(alts) == 1 else b"(?:" + b"|".join(alts) + b")"
    return b"(?:" + body + b")?" if ends else body


_START_RX = re.compile(b" (" + _trie(_START_LITS) + b")")
_SHORTER: dict[bytes, frozenset[_Key]] = {
    lit: frozenset((o, _START) for o in _START_LITS if lit.startswith(o)) for lit in _START_LITS
}
# Inner letter anchors (also inside a word: glued "ignoreallprevious", "systemprompt"): substring probes on the
# joined letter runs. Other inner anchors start with a rare character and are found by one regex over the text.
_INNER_PROBES: tuple[bytes, ...] = tuple(
    sorted(lit for lit, kind in _ALL_KEYS if kind == _INNER and re.fullmatch(rb"[a-z]+", lit))
)
# Grouped by their first six bytes ("system", "prepro"): one substring test per group when the head is absent.
_INNER_BY_HEAD: tuple[tuple[bytes, tuple[bytes, ...]], ...] = tuple(
    (head, tuple(lit for lit in _INNER_PROBES if lit[:6] == head))
    for head in sorted({lit[:6] for lit in _INNER_PROBES})
)
_PUNCT_LITS = sorted(
    (lit for lit, kind in _ALL_KEYS if kind == _INNER and not re.fullmatch(rb"[a-z]+", lit)), key=lambda b: (-len(b), b)
)
_PUNCT_ANCHORS = re.compile(_trie(_PUNCT_LITS))
# Cheap pre-check: punctuation anchors all start with one of these two-character prefixes.
_PUNCT_FIRST = re.compile(b"|".join(sorted({re.escape(a[:2]) for a in _PUNCT_LITS})))


def _locator(lit: bytes, kind: int) -> re.Pattern[bytes]:
    """A regex finding ``lit`` where an anchor of ``kind`` can be (literal first: ``re`` then scans at C speed)."""
    esc = re.escape(lit)
    if kind == _INNER:
        return re.compile(esc)
    tail = b"(?![a-z])" if kind == _WORD else b""
    # A word starts after a non-letter or after an escaped blank (``\n``, which the rules read as a separator).
    return re.compile(esc + b"(?:(?<![a-z]" + esc + b")|(?<=\\\\[nrt]" + esc + b"))" + tail)


_LOCATE: dict[_Key, re.Pattern[bytes]] = {key: _locator(*key) for key in _ALL_KEYS}
_LETTERS = bytes(c if 97 <= c <= 122 else 32 for c in range(256))
_NEGATION = re.compile(r"\b(?:never|not|don't|dont|no|cannot|can't|won't|shouldn't|mustn't)\b[^.\n]{0,30}$")
_QUOTED_BEFORE = re.compile(
    r"(?:[\"'`“‘]|\b(?:such as|e\.g\.?|for example|for instance|phrases? like|attacks? like|patterns? like|"
    r"instructions? like|like|e\.g\.,))\s{0,3}$"
)
_STRUCTURAL = frozenset(
    {"secret.call", "secret.call_json", "tool.json_call", "tool.xml_call", "tool.yaml_call", "role.chatml", "role.inst"}
)


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


def _tokens(buf: bytes) -> set[bytes]:
    """The distinct letter runs of ``buf``, also split at escaped blanks (a backslash-n, a rule separator)."""
    toks = set(buf.translate(_LETTERS).split())
    if b"\\" in buf and (b"\\n" in buf or b"\\r" in buf or b"\\t" in buf):
        toks.update(
            buf.replace(b"\\n", b"  ").replace(b"\\r", b"  ").replace(b"\\t", b"  ").translate(_LETTERS).split()
        )
    return toks


def _present(toks: set[bytes], raw: bytes, lo: int, hi: int) -> tuple[set[_Key], dict[_Key, list[int]]]:
    """The anchors that occur in ``raw[lo:hi]`` (letter runs ``toks``) and the positions of punctuation anchors.

    All C-level: one set intersection for whole-word anchors, one regex over the joined runs for word-start
    anchors, a few substring probes for inner ones, one regex for punctuation anchors.
    """
    present: set[_Key] = {(lit, _WORD) for lit in _WORD_LITS.intersection(toks)}
    joined = b" " + b" ".join(toks)
    for lit in set(_START_RX.findall(joined)):
        present |= _SHORTER[lit]
    for head, lits in _INNER_BY_HEAD:
        if head in joined:
            present.update((lit, _INNER) for lit in lits if lit in joined)
    punct: dict[_Key, list[int]] = {}
    if _PUNCT_FIRST.search(raw, lo, hi) is not None:
        for m in _PUNCT_ANCHORS.finditer(raw, lo, hi):
            punct.setdefault((m.group(), _INNER), []).append(m.start())
        present.update(punct)
    return present, punct


# Large texts are split into parts of at least _CHUNK bytes at newlines (no letter run, escape or anchor spans
# a newline), so a rule is considered only in the parts where its anchors occur and its gate is open: in a
# 2 MB log every anchor occurs somewhere, but rarely next to the gate words. A part's gate is read from its
# own letter runs and its two neighbours': more than _CHUNK bytes either side, beyond any match's reach from
# its anchor (before + literal + after) and beyond how far merged windows of neighbouring parts extend.
_CHUNK = 16_384


def _anchor_hits(raw: bytes) -> tuple[list[_Rule], dict[_Key, list[int]]]:
    """The rules that can match (an anchor occurs, the gate is open) and the positions of their anchors.

    Only the anchors of those rules are located, each by one C-level regex scan per part of the text.
    """
    n = len(raw)
    hits: dict[_Key, list[int]] = {}
    active: set[int] = set()
    if n <= 2 * _CHUNK:
        toks = _tokens(raw)
        _locate_part(raw, toks, [toks], 0, n, hits, active)
        return [_RULES[i] for i in sorted(active)], hits
    bounds = [0]
    while n - bounds[-1] > 2 * _CHUNK:
        nl = raw.find(b"\n", bounds[-1] + _CHUNK)
        if nl < 0:
            break
        bounds.append(nl)
    bounds.append(n)
    parts = [_tokens(raw[lo:hi] if hi - lo < n else raw) for lo, hi in itertools.pairwise(bounds)]
    for j, toks in enumerate(parts):
        near = parts[max(0, j - 1) : j + 2]
        _locate_part(raw, toks, near, bounds[j], bounds[j + 1], hits, active)
    return [_RULES[i] for i in sorted(active)], hits


def _locate_part(
    raw: bytes,
    toks: set[bytes],
    near: list[set[bytes]],
    lo: int,
    hi: int,
    hits: dict[_Key, list[int]],
    active: set[int],
) -> None:
    """Add the rules open in ``raw[lo:hi]`` to ``active`` and the positions there of their anchors to ``hits``.

    ``toks`` are the letter runs of ``raw[lo:hi]``, ``near`` those of it and its neighbouring parts (gates).
    """
    present, punct = _present(toks, raw, lo, hi)
    if not present:
        return
    idx: set[int] = set()
    for key in present:
        idx.update(_BY_KEY[key])
    done: set[_Key] = set()
    for i in idx:
        rule = _RULES[i]
        if rule.gate and not (
            all(not g.isdisjoint(toks) for g in rule.gate)
            if len(near) == 1
            else all(any(not g.isdisjoint(t) for t in near) for g in rule.gate)
        ):
            continue
        active.add(i)
        for key in rule.keys:
            if key in present and key not in done:
                done.add(key)
                found = punct[key] if key in punct else [m.start() for m in _LOCATE[key].finditer(raw, lo, hi)]
                if key in hits:
                    hits[key].extend(found)
                else:
                    hits[key] = found


def _gate_open(gate: tuple[frozenset[bytes], ...], raw: bytes, lo: int, hi: int) -> bool:
    """Whether every gate group has a letter run in ``raw[lo:hi]`` (two bytes more each side keep escapes whole).

    A gate word is a whole letter run inside every match, so a window whose runs miss a group holds no match;
    splitting the window costs far less than running a rule's regex over it.
    """
    toks = _tokens(raw[max(0, lo - 2) : hi + 2])
    return all(not g.isdisjoint(toks) for g in gate)


def _rule_matches(rule: _Rule, folded: str, raw: bytes, hits: dict[_Key, list[int]]) -> list[re.Match[str]]:
    """Matches of ``rule`` in position order, looked for only around its anchors (one ``match`` for a lone anchor).

    A window longer than one anchor's (``finditer``) is first checked against the rule's gate.
    """
    n = len(folded)
    windows = [
        (max(0, p - before), min(n, p + len(lit) + rule.after), before)
        for lit, before, kind in rule.anchors
        for p in hits.get((lit, kind), ())
    ]
    if not windows:
        return []
    windows.sort()
    windows.append((n + 1, n + 1, 0))
    out: list[re.Match[str]] = []
    lo, hi, exact = windows[0][0], windows[0][1], windows[0][2] == 0
    for w_lo, w_hi, before in windows[1:]:
        if w_lo <= hi and w_lo <= n:
            hi, exact = max(hi, w_hi), exact and w_lo == lo and before == 0
            continue
        if exact:
            m = rule.pattern.match(folded, lo, hi)
            if m is not None:
                out.append(m)
        elif not rule.gate or _gate_open(rule.gate, raw, lo, hi):
            out.extend(rule.pattern.finditer(folded, lo, hi))
        lo, hi, exact = w_lo, w_hi, before == 0
    return out


def _excerpt(text: str, start: int, end: int) -> str:
    snippet = text[start:end]
    if len(snippet) > _EXCERPT:
        snippet = snippet[: _EXCERPT - 1] + "…"
    return " ".join(snippet.split())


# Cost bound for text packed with attack words: matches of one rule closer than _MERGE_GAP characters are one
# finding, and after _MAX_FINDINGS findings of a rule the rest of its matches become one last finding spanning
# them all (everything that matched is still covered by a blocked span).
_MERGE_GAP = 8
_MAX_FINDINGS = 64


def _groups(matches: list[re.Match[str]]) -> list[list[re.Match[str]]]:
    """Matches of one rule grouped: adjacent ones merged, at most ``_MAX_FINDINGS`` groups."""
    groups: list[list[re.Match[str]]] = []
    last_end = -(1 << 30)
    for m in matches:
        if m.end() == m.start():
            continue
        if groups and (m.start() - last_end <= _MERGE_GAP or len(groups) >= _MAX_FINDINGS):
            groups[-1].append(m)
        elif groups and m.start() < last_end:  # overlapping windows found the same match again
            continue
        else:
            groups.append([m])
        last_end = max(last_end, m.end())
    return groups


def scan_injection(text: str) -> list[Finding]:
    """Every rule match in ``text``, ordered by position; spans index the original text.

    A match whose span overlaps an earlier match of the same rule is dropped;
    matches of one rule fewer than 8 characters apart are merged into one
    finding, and a rule reports at most 64 findings per text (the last one
    spans all its remaining matches), so text packed with attack words stays
    cheap and is still fully blocked. A match that is quoted or given as an
    example (security docs), a request preceded by a negation ("never print
    the token"), and tool-call syntax inside a Markdown code fence are
    reported as low severity.
    """
    norm = normalize(text)
    folded = norm.text
    raw = folded.encode("ascii", "replace")  # one byte per character: offsets are those of ``folded``
    rules, hits = _anchor_hits(raw)
    if not rules:
        return []
    findings: list[Finding] = []
    for rule in rules:
        for group in _groups(_rule_matches(rule, folded, raw, hits)):
            low = all(_downgraded(rule.rule_id, folded, m.start()) for m in group)
            sev: Severity = "low" if low else rule.severity
            start, end = norm.span(group[0].start(), max(m.end() for m in group))
            findings.append(Finding(rule.category, sev, start, end, _excerpt(text, start, end), rule.rule_id))
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
