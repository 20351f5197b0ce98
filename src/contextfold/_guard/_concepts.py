"""The other-script view's wider half (Chinese, Japanese, Korean, Cyrillic): concepts that co-occur.

The rules and the learned model read a one-byte-per-character view of the text, in which a Han, kana, Hangul or
Cyrillic letter becomes ``?``; the other-script view (`contextfold._guard._views`) reads the text itself with
pattern pairs (a verb and its object in the language's own order), which catch the phrasings they spell out. This
half reads it by concept. It knows a few words per *concept* and language (an order to ignore or forget, the
instructions or rules it is about, "previous", "from now on" and a new role or task, "without restrictions", the
AI addressed, a secret, an action on it), finds them with one RE2 search (linear time), and reports a span where
concepts that make an injection meet within `WINDOW` characters: ignoring instructions, ignoring earlier rules, a
persona without limits, an AI addressed with an override or a new task, a secret ordered out. One concept alone
(a password field, "ignore case", a rule list) is never enough. Texts with none of these scripts cost one search.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator

import re2

from contextfold._guard._findings import Finding
from contextfold._guard._latin import Collapsed, has_blank_run

__all__ = ["WINDOW", "concept_findings"]

WINDOW = 80
"""How far apart (characters) the concepts of one finding may be."""
_MERGE = 8  # findings this close are one (as the pattern pairs report)
_MOST = 64  # findings per text at most; the last spans the rest
_FLOOD = 4096  # hits read after the first finding at most; then the last finding spans the rest

RULE_ID = "concepts.multilingual"

# concept -> words (lower case). Cyrillic words are matched at word starts (``ии`` is also inside words).
_CONCEPTS: dict[str, tuple[str, ...]] = {
    "override": (
        "忽略", "忽视", "无视", "不要理会", "忘记", "忘掉", "取消", "废除", "抛弃", "停止当前", "停止所有",
        "無視", "忘れ", "取り消", "破棄", "従わな",
        "игнорир", "проигнорир", "забудь", "забудьте", "забыть", "отмени", "не обращай", "не следуй",
        "무시", "잊어", "잊으", "취소",
    ),
    "instructions": (
        "指示", "指令", "提示词", "系统提示",
        "プロンプト", "の命令", "命令を", "命令は",
        "инструкц", "указани", "промпт",
        "지시", "프롬프트", "지침",
    ),
    "rules": (
        "规则", "规定", "限制", "约束", "准则", "审查", "安全准则",
        "ルール", "規則", "制限", "制約", "ガイドライン",
        "правил", "ограничени", "цензур", "запрет",
        "규칙", "제한", "검열",
    ),
    "previous": (
        "之前", "以前", "先前", "上面的", "上述", "此前", "原来的",
        "以前の", "前の", "これまでの", "上記の",
        "предыдущ", "прежн", "ранее",
        "이전", "위의",
    ),
    "now": (
        "从现在开始", "从现在起", "现在你是", "你现在是", "你将扮演", "扮演", "假装", "新任务", "新的任务",
        "今から", "今後", "これから", "あなたは今", "として振る舞", "になりきっ", "ふりをして",
        "新しいタスク", "新しい任務",
        "теперь ты", "отныне", "с этого момента", "притворись", "представь, что ты", "представь что ты",
        "новая задача", "твоя задача", "новая роль",
        "지금부터", "이제부터", "이제 너는", "이제 당신은", "역할을", "새로운 임무",
    ),
    "unlimited": (
        "没有任何限制", "不受限制", "无限制", "没有限制", "不受任何", "无需遵守", "不必遵守", "不需要遵守", "不用遵守",
        "制限のない", "制限なし", "制限なく", "従う必要はありません", "従う必要はない", "制約のない", "無制限",
        "без ограничений", "без цензуры", "без правил", "не нужно соблюдать", "не обязан", "нет ограничений",
        "никаких правил", "никаких ограничений", "不再受", "不再遵守", "縛られません", "縛られない",
        "제한 없는", "제한이 없는", "제한없는", "따를 필요",
    ),
    "ai": (
        "作为ai", "作为人工智能", "ai助手", "人工智能", "语言模型", "系统通知", "系统消息",
        "aiとして", "aiアシスタント", "システム通知", "言語モデル",
        "ии", "нейросеть", "ассистент", "языковая модель", "системное уведомление", "бот",
        "ai로서", "인공지능", "언어 모델", "어시스턴트",
    ),
    "secret": (
        "系统提示", "密码", "密钥", "环境变量", "令牌", "机密", "私钥",
        "システムプロンプト", "パスワード", "秘密", "apiキー", "環境変数", "トークン",
        "системный промпт", "парол", "ключ", "секрет", "переменные окружения", "токен",
        "비밀번호", "시스템 프롬프트", "api 키", "환경 변수", "토큰",
    ),
    # Keeping it from the user, a new name, a reader that is the AI (round 8: the concepts of the Latin-script pass).
    "hide": (
        "不要告诉用户", "别告诉用户", "不要让用户知道", "瞒着用户", "不要通知用户", "不告诉用户", "不要向用户",
        "ユーザーには知らせず", "ユーザーに知らせず", "ユーザーに伝えず", "ユーザーには言わず", "内緒で",
        "не говори пользователю", "не сообщай пользователю", "не рассказывай пользователю", "скрой от пользователя",
        "втайне", "사용자에게 알리지", "사용자에게 말하지",
    ),
    "persona": (
        "你的新名字", "你的名字是", "你现在的身份", "你的身份是", "你的新身份", "不再是助手",
        "あなたの名前は", "あなたの新しい名前", "新しい名前は",
        "тебя зовут", "тебя теперь зовут", "твоё имя", "твое имя", "тебя будут звать",
        "너의 이름은", "당신의 이름은", "새 이름은",
    ),
    "reader": (
        "读到这", "阅读这段", "阅读这条", "阅读本", "正在阅读", "处理这段", "处理这条", "处理本",
        "看到这条", "读取这段",
        "を読んでいる", "を処理している", "を処理する", "このメッセージを読",
        "читающая это", "читающий это", "читающие это", "обрабатывающая это", "обрабатывающий это", "читает это",
        "을 읽고 있는", "를 읽고 있는", "을 처리하는", "를 처리하는",
    ),
    "action": (
        "输出", "显示", "发送", "打印", "告诉我", "删除", "执行", "泄露", "透露", "上传",
        "出力", "表示して", "送信", "教えて", "削除", "実行", "アップロード",
        "выведи", "покажи", "отправь", "отправить", "отправьте", "перешли", "загрузи", "удали", "выполни", "раскрой",
        "напиши",
        "출력", "보여", "보내", "삭제", "실행", "업로드",
    ),
    # Round 14: the reader allowed by a claimed authority ("администратор разрешил тебе"), and a lasting change to
    # every answer ("すべての回答", "每次回答"), as the Latin-script pass has them.
    "grant": (
        "授权你", "已授权", "允许你", "批准你", "許可されています", "許可しました", "承認しました", "権限を付与",
        "разрешил тебе", "разрешает тебе", "разрешено тебе", "разрешил вам", "разрешено вам", "дал тебе право",
        "승인했습니다", "허용합니다", "권한을 부여",
    ),
    "lasting": (
        "所有回答", "每个回答", "每次回答", "每一个回答", "所有的回答", "以后的回答", "之后的所有",
        "すべての回答", "全ての回答", "毎回の回答", "今後の回答", "全ての返答", "すべての返答",
        "каждом ответе", "каждый ответ", "всех ответах", "все ответы", "каждом своём ответе", "каждом своем ответе",
        "모든 답변", "모든 응답", "매 답변",
    ),
}  # fmt: skip

# Pairs and triples of concepts that make an order to the model, not a mention. A secret with an action needs the AI
# addressed: "forgot your password? we will send you a link" is a form, in every language.
_COMBINATIONS: tuple[frozenset[str], ...] = tuple(
    frozenset(c.split())
    for c in (
        "override instructions",
        "override previous rules",
        "unlimited now",
        "unlimited ai",
        "ai override",
        "ai now",
        "secret action ai",
        "hide action",
        "hide ai",
        "persona unlimited",
        "persona now",
        "reader ai action",
        "reader ai hide",
        "reader ai secret",
        "ai grant action",
        "lasting hide",
    )
)

_SCRIPTS = re2.compile(r"[\x{0400}-\x{04FF}\x{3040}-\x{30FF}\x{4E00}-\x{9FFF}\x{AC00}-\x{D7AF}]")


def _alternative(word: str) -> str:
    escaped = re.escape(word)
    if re.match(r"[а-яё]", word):  # a Cyrillic word: at a word start only
        return rf"(?:^|[^а-яё]){escaped}"
    return escaped


_WORDS: dict[str, frozenset[str]] = {}
for _concept, _words in _CONCEPTS.items():
    for _word in _words:
        _WORDS[_word] = _WORDS.get(_word, frozenset()) | {_concept}
# Longest first: a word that contains another ("系统提示" / "提示") is found whole.
_SEARCH = re2.compile("|".join(_alternative(w) for w in sorted(_WORDS, key=len, reverse=True)))


def _hits(low: str) -> Iterator[tuple[int, int, frozenset[str]]]:
    for m in _SEARCH.finditer(low):
        start, end = m.span()
        word = low[start:end]
        if word not in _WORDS:  # a Cyrillic word with the character before it
            start += 1
            word = word[1:]
        yield start, end, _WORDS[word]


def _lower(text: str) -> str:
    """``text`` lower-cased with its offsets kept (a letter whose lower case is longer, "İ", stays as it is)."""
    low = text.lower()
    if len(low) != len(text):
        low = "".join(c if len(c.lower()) != 1 else c.lower() for c in text)
    return low


# Every concept word holds a character of `_SCRIPTS` (checked here): in a large text with few such characters a hit
# lies within _REACH of one, so only those stretches are lowered and searched (`_sparse_hits`).
_REACH = max(map(len, _WORDS)) + 1  # a Cyrillic word's match also holds the character before it
_ALL_SCRIPTED = all(_SCRIPTS.search(w) for w in _WORDS)
_LARGE = 8192
_FEW = 256  # non-ASCII characters at most for the stretches; more: the whole text is searched


def _script_places(text: str) -> list[int] | None:
    """Where ``text``'s characters of `_SCRIPTS` are (None: more than `_FEW` non-ASCII characters)."""
    ascii_bytes = text.encode("ascii", "replace")
    if ascii_bytes.count(b"?") > _FEW:
        return None
    out: list[int] = []
    i = ascii_bytes.find(b"?")
    while i >= 0:
        c = ord(text[i])
        if 0x400 <= c <= 0x4FF or 0x3040 <= c <= 0x30FF or 0x4E00 <= c <= 0x9FFF or 0xAC00 <= c <= 0xD7AF:
            out.append(i)
        i = ascii_bytes.find(b"?", i + 1)
    return out


def _sparse_hits(text: str, places: list[int]) -> Iterator[tuple[int, int, frozenset[str]]]:
    """`_hits` of ``text`` lower-cased, read only within `_REACH` of ``places`` (its characters of `_SCRIPTS`).

    A hit holds one of them, so none starts or ends outside those stretches, and a stretch's search starts where
    none can begin: the hits are those of the whole text, in order.
    """
    n = len(text)
    stretches: list[list[int]] = []
    for p in places:
        if stretches and p - _REACH <= stretches[-1][1]:
            stretches[-1][1] = p + _REACH
        else:
            stretches.append([p - _REACH, p + _REACH])
    for lo, hi in stretches:
        lo, hi = max(0, lo), min(n, hi)
        part = text[lo:hi]
        if not has_blank_run(part):
            for start, end, found in _hits(_lower(part)):
                yield start + lo, end + lo, found
            continue
        view = Collapsed(part, 0, len(part))  # a run of blanks reads as one character here too
        for start, end, found in _hits(_lower(view.text)):
            yield view.origin(start) + lo, view.origin(end - 1) + 1 + lo, found


def concept_findings(text: str) -> list[Finding]:
    """Medium findings where concepts that make an injection meet in Chinese, Japanese, Korean or Cyrillic text.

    Part of the other-script view (`contextfold._guard._views`), which calls it with format characters removed. A
    run of blanks reads as one character (`contextfold._guard._latin.Collapsed`, the Latin pass's reading), so
    padding between words ("теперь   ты") hides no concept word and pushes no partner out of the window.
    """
    if text.isascii():
        return []
    places = _script_places(text) if len(text) > _LARGE and _ALL_SCRIPTED else None
    if places is not None:  # a large text with few characters of these scripts: their stretches (read collapsed)
        spans = _spans(text, places) if places else []
    elif not has_blank_run(text) or _SCRIPTS.search(text) is None:  # no padding, or no word of these scripts
        spans = _spans(text, None)
    else:
        view = Collapsed(text, 0, len(text))
        spans = [[view.origin(a), view.origin(b - 1) + 1] for a, b in _spans(view.text, None)]
    return [
        Finding("instruction_injection", "medium", start, end, " ".join(text[start:end][:80].split()), RULE_ID)
        for start, end in spans
    ]


def _spans(text: str, places: list[int] | None) -> list[list[int]]:
    """Where concepts that make an injection meet in ``text`` (see `concept_findings`); ``places``: read only there."""
    if places is not None:  # a large text with few characters of these scripts: only the stretches around them
        hits = _sparse_hits(text, places)
    else:
        if _SCRIPTS.search(text) is None:
            return []
        hits = _hits(_lower(text))
    spans: list[list[int]] = []
    window: deque[tuple[int, int, frozenset[str]]] = deque()  # the hits since the last finding, within WINDOW
    after = 0  # hits read since the first finding
    for hit in hits:
        if spans:
            after += 1
            if after > _FLOOD:  # a flood of concept words: the last finding spans the rest, and reading stops
                spans[-1][1] = len(text)
                break
        while window and hit[0] - window[0][0] > WINDOW:
            window.popleft()
        window.append(hit)
        concepts = frozenset().union(*(found for _, _, found in window))
        if not any(c <= concepts for c in _COMBINATIONS):
            continue
        start, end = window[0][0], max(e for _, e, _ in window)
        window.clear()
        if spans and start - spans[-1][1] <= _MERGE:
            spans[-1][1] = max(spans[-1][1], end)
        elif len(spans) == _MOST:  # a flood: the last finding spans the rest, and reading stops
            spans[-1][1] = len(text)
            break
        else:
            spans.append([start, end])
    return spans
