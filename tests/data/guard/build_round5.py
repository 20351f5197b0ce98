# ruff: noqa: E501  (verbatim source strings keep their lines)
"""Round 5 of the guard corpus: new public sources and a third frozen eval part (``eval3.jsonl``).

Why: rounds 1-4 were measured on a held-out set the guard never sees (injections and benign look-alikes written
independently of this corpus) and the rules fit the corpus better than that set. Round 5 adds sources no rule and
no model of this repository was written against, and a new frozen part to measure a learned component honestly:
human-written injections in English and German (deepset), payload lists (PayloadsAllTheThings), and benign text that
reads like orders to a reader — command-line help in 16 languages (imperative sentences about passwords, keys,
history, resets), chat-template and tool-call documentation, prompt templates in library code, browser
"Developer mode" documentation.

Procedure (the order matters): every new string is split by SHA-256 within its (label, category, technique,
language) stratum, alternating tune / eval, exactly as in round 4, and both parts (``eval3.jsonl`` and the new rows
of ``tune.jsonl``) were written and committed **before** any rule was changed or any model was trained on round 5.
Rules and the learned model are then fitted on tune only; ``eval.jsonl``, ``eval2.jsonl`` and ``eval3.jsonl`` are
read only for the per-part figures of ``benchmarks/bench_guard.py``. ``eval.jsonl`` and ``eval2.jsonl`` stay
byte-identical.

Sources (each row's ``source`` names repository, commit, path and license):

- deepset/prompt-injections (Apache-2.0, the Hugging Face data set), as committed in
  sinanw/llm-security-prompt-injection ``data/raw/*.parquet`` (all 662 rows; label 1 is an injection, 0 a benign
  question). The language (English or German) is not in the data: it is guessed from German function words.
- swisskyrepo/PayloadsAllTheThings ``Prompt Injection/README.md`` (MIT): the example payloads that are injections
  (forced output, prompt leak, the cross-plugin letter, the "Instruction Overriding", "Role Switching", "Data
  Extraction", "Jailbreak", "Role Injection", "Third-Party Abuse" and "Reverse Prompt Injection" rows, and the
  indirect examples: EXIF metadata, code comments, an API response).
- tldr-pages/tldr (CC-BY-4.0): whole pages in English and 15 other languages whose text mentions passwords, keys,
  secrets, history, resets, root or administrators (the look-alikes of an order to reveal or forget something); up
  to 14 per language, chosen in SHA-256 order of the path. Benign tool output (``tldr CMD``).
- ollama/ollama ``docs/template.mdx``, ``docs/modelfile.mdx``, ``docs/capabilities/tool-calling.mdx`` (MIT) and
  NousResearch/Hermes-Function-Calling ``README.md`` (MIT): documentation sections of chat templates
  (``<|start_header_id|>``, ``{{ .System }}``) and tool-call tags (``<tool_call>``), cut at headings.
- deepset-ai/haystack ``haystack/components/**.py`` (Apache-2.0): windows of 24 lines around a line that holds
  ``system_prompt`` or ``user_prompt`` (library code and docstrings with prompt templates).
- GoogleChrome/developer.chrome.com (CC-BY-SA-4.0 text, Apache-2.0 samples): sections of the extension docs that
  tell the reader to turn on "Developer mode".

Run: python tests/data/guard/build_round5.py MIRRORS
(``MIRRORS`` holds one bare git directory per repository, named ``owner+name/repo``; read at the commits below with
``git show``; ``pyarrow`` reads the parquet files.)
"""

from __future__ import annotations

import hashlib
import io
import json
import re
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).parent
COMMITS = {
    "sinanw/llm-security-prompt-injection": "c8af0b0",
    "swisskyrepo/PayloadsAllTheThings": "f9fa51417886ac11476cb62db2dff21773dc570b",
    "tldr-pages/tldr": "08e345f42639f67d99282813247ac670dc6e87cb",
    "ollama/ollama": "fb30760996871fa9460115c753afd2c60d4ab0f7",
    "NousResearch/Hermes-Function-Calling": "3e695ed081a0a5c3ae74a556077d29ff7045ef2c",
    "deepset-ai/haystack": "c7cb46c0f28ad1984f60e5d3e9404b124a221437",
    "GoogleChrome/developer.chrome.com": "51dd7dd5d510ed85d86f5a91cb8fde50b62351c7",
}
LICENSES = {
    "sinanw/llm-security-prompt-injection": "data: deepset/prompt-injections, Apache-2.0",
    "swisskyrepo/PayloadsAllTheThings": "MIT",
    "tldr-pages/tldr": "CC-BY-4.0",
    "ollama/ollama": "MIT",
    "NousResearch/Hermes-Function-Calling": "MIT",
    "deepset-ai/haystack": "Apache-2.0",
    "GoogleChrome/developer.chrome.com": "CC-BY-SA-4.0",
}
DEEPSET_FILES = (
    "data/raw/train-00000-of-00001-9564e8b05b4757ab.parquet",
    "data/raw/test-00000-of-00001-701d16158af87368.parquet",
)
TLDR_LANGS = {
    "pages": "en", "pages.de": "de", "pages.fr": "fr", "pages.es": "es", "pages.it": "it", "pages.pt_BR": "pt",
    "pages.ru": "ru", "pages.zh": "zh", "pages.ja": "ja", "pages.ko": "ko", "pages.ar": "ar", "pages.hi": "hi",
    "pages.bn": "bn", "pages.tr": "tr", "pages.id": "id", "pages.th": "th",
}  # fmt: skip
# Look-alike words of an order to reveal or forget something (any language of TLDR_LANGS).
TLDR_LOOKALIKE = re.compile(
    r"password|passwort|kennwort|mot de passe|contraseña|password|senha|пароль|密码|密碼|パスワード|비밀번호|كلمة المرور|पासवर्ड|পাসওয়ার্ড|şifre|parola|kata sandi|รหัสผ่าน"
    r"|secret|geheim|secreto|segreto|секрет|秘密|비밀|سر|गुप्त|gizli|rahasia|ความลับ"
    r"|history|verlauf|historique|historial|cronologia|histórico|истори|历史|履歴|기록|سجل|इतिहास|geçmiş|riwayat|ประวัติ"
    r"|reset|zurücksetz|réinitialis|restablec|ripristin|redefin|сброс|重置|リセット|재설정|إعادة تعيين|रीसेट|sıfırla|atur ulang|รีเซ็ต"
    r"|\broot\b|sudo|admin|token|private key|ignor|forget|vergess|oubli|olvid|dimentic|esquec|забы|忘|忽略|無視|무시|تجاهل",
    re.IGNORECASE,
)
TLDR_PER_LANG = 14
DOCS = {
    "ollama/ollama": (
        ("docs/template.mdx", "chat_template_docs"),
        ("docs/modelfile.mdx", "chat_template_docs"),
        ("docs/capabilities/tool-calling.mdx", "tool_call_docs"),
    ),
    "NousResearch/Hermes-Function-Calling": (("README.md", "tool_call_docs"),),
}
CHROME_PAGES = (
    "site/en/docs/extensions/mv3/getstarted/development-basics/index.md",
    "site/en/docs/extensions/mv3/getstarted/tut-focus-mode/index.md",
    "site/en/docs/extensions/mv3/getstarted/tut-reading-time/index.md",
    "site/en/docs/extensions/mv3/faq/index.md",
    "site/en/docs/extensions/mv2/getstarted/index.md",
    "site/en/docs/extensions/mv2/faq/index.md",
    "site/en/docs/apps/first_app/index.md",
    "site/en/docs/extensions/mv2/tut_debugging/index.md",
)
# PayloadsAllTheThings: the table rows (by tactic) and bullets (by label) that are injections.
PATT_TACTICS = (
    "Override Model Directives", "Manipulate Persona to Evade Filters", "Trick Model into Revealing Data",
    "Prompt Sandwiching", "DAN-style Prompt", "Act as System Prompt", "Inject via API Wrappers",
    "Insert Prompt into User Data Rendered Later", "Test LLM Jailbreak",
)  # fmt: skip
PATT_BULLETS = ("Force output", "Leak prompt")
_GERMAN = re.compile(
    r"\b(?:der|die|das|und|ich|nicht|ist|sie|du|ein|eine|wie|was|mit|für|auf|zu|den|dem|bitte|vergiss|alle|ihre|mir|mich|welche|gibt|wird|sind|kann|können)\b",
    re.IGNORECASE,
)


def _row(text: str, label: str, category: str, repo: str, path: str, technique: str, language: str) -> dict[str, str]:
    source = f"{repo}@{COMMITS[repo][:7]}:{path} ({LICENSES[repo]})"
    return {
        "text": text,
        "label": label,
        "category": category,
        "source": source,
        "technique": technique,
        "language": language,
        "round": "5",
    }


def _show(mirrors: Path, repo: str, path: str) -> bytes:
    git_dir = mirrors / repo.replace("/", "+") / "repo"
    return subprocess.run(
        ["git", "--git-dir", str(git_dir), "show", f"{COMMITS[repo]}:{path}"], check=True, capture_output=True
    ).stdout


def _ls(mirrors: Path, repo: str, folder: str) -> list[str]:
    git_dir = mirrors / repo.replace("/", "+") / "repo"
    out = subprocess.run(
        ["git", "--git-dir", str(git_dir), "ls-tree", "-r", "--name-only", COMMITS[repo], folder + "/"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return out.splitlines()


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def deepset_rows(mirrors: Path) -> list[dict[str, str]]:
    import pyarrow.parquet as pq  # build-time only

    repo = "sinanw/llm-security-prompt-injection"
    rows = []
    for path in DEEPSET_FILES:
        for x in pq.read_table(io.BytesIO(_show(mirrors, repo, path))).to_pylist():
            text = x["text"]
            lang = "de" if len(_GERMAN.findall(text)) >= 2 else "en"
            if x["label"] == 1:
                rows.append(_row(text, "injection", "instruction_injection", repo, path, "deepset", lang))
            else:
                rows.append(_row(text, "benign", "none", repo, path, "deepset_question", lang))
    return rows


def payloads_rows(mirrors: Path) -> list[dict[str, str]]:
    repo, path = "swisskyrepo/PayloadsAllTheThings", "Prompt Injection/README.md"
    text = _show(mirrors, repo, path).decode()
    out: list[str] = []
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[1] in PATT_TACTICS and cells[2].startswith("`"):
            out.append(cells[2].strip("`"))
        for label in PATT_BULLETS:
            m = re.match(rf"\* {label}: `(.+?)`", line.strip())
            if m:
                out.append(m.group(1))
    # The fenced blocks of the cross-plugin letter and of the indirect examples (EXIF, code comments, API response).
    blocks = re.findall(r"```[a-z0-9]*\n(.*?)```", text, re.DOTALL)
    for block in blocks:
        body = "\n".join(ln[4:] if ln.startswith("    ") else ln for ln in block.splitlines()).strip()
        if re.search(r"ignore|IMPORTANT NEW INSTRUCTIONS", body, re.IGNORECASE) and "INJECT_HERE" not in body:
            out.append(body)
    return [_row(t, "injection", "instruction_injection", repo, path, "payload_list", "en") for t in dict.fromkeys(out)]


def tldr_rows(mirrors: Path) -> list[dict[str, str]]:
    repo = "tldr-pages/tldr"
    rows = []
    for folder, lang in TLDR_LANGS.items():
        paths = [p for p in _ls(mirrors, repo, folder) if p.endswith(".md")]
        picked = 0
        for path in sorted(paths, key=_sha):
            page = _show(mirrors, repo, path).decode()
            if not TLDR_LOOKALIKE.search(page) or not 200 <= len(page) <= 1800:
                continue
            rows.append(_row(page, "benign", "tool_output", repo, path, "cli_help", lang))
            picked += 1
            if picked == TLDR_PER_LANG:
                break
    return rows


def _sections(markdown: str) -> list[str]:
    """Markdown cut at headings outside code fences; front matter dropped."""
    if markdown.startswith("---\n"):
        end = markdown.find("\n---\n", 4)
        markdown = markdown[end + 5 :] if end > 0 else markdown
    out: list[str] = []
    cur: list[str] = []
    fence = False
    for line in markdown.splitlines():
        if line.lstrip().startswith("```"):
            fence = not fence
        if not fence and line.startswith("#") and cur:
            out.append("\n".join(cur).strip())
            cur = []
        cur.append(line)
    out.append("\n".join(cur).strip())
    return [s for s in out if s]


def docs_rows(mirrors: Path) -> list[dict[str, str]]:
    rows = []
    for repo, files in DOCS.items():
        for path, technique in files:
            for sec in _sections(_show(mirrors, repo, path).decode()):
                if 150 <= len(sec) <= 1800:
                    rows.append(_row(sec, "benign", "docs", repo, path, technique, "en"))
    repo = "GoogleChrome/developer.chrome.com"
    for path in CHROME_PAGES:
        for sec in _sections(_show(mirrors, repo, path).decode()):
            if re.search(r"developer mode", sec, re.IGNORECASE) and 150 <= len(sec) <= 1800:
                rows.append(_row(sec, "benign", "docs", repo, path, "developer_mode_docs", "en"))
    return rows


def code_rows(mirrors: Path) -> list[dict[str, str]]:
    repo = "deepset-ai/haystack"
    rows = []
    for path in _ls(mirrors, repo, "haystack/components"):
        if not path.endswith(".py"):
            continue
        lines = _show(mirrors, repo, path).decode().splitlines()
        last = -100
        for i, line in enumerate(lines):
            if ("system_prompt" in line or "user_prompt" in line) and i - last >= 24:
                window = "\n".join(lines[max(0, i - 8) : i + 16]).strip()
                if len(window) >= 200:
                    rows.append(_row(window, "benign", "code", repo, path, "prompt_in_code", "en"))
                last = i
    return rows


def split(rows: list[dict[str, str]]) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """Alternate tune / eval by SHA-256 order within each (label, category, technique, language) stratum."""
    strata: dict[tuple[str, str, str, str], list[dict[str, str]]] = {}
    for r in rows:
        strata.setdefault((r["label"], r["category"], r["technique"], r["language"]), []).append(r)
    tune, ev = [], []
    for key in sorted(strata):
        for i, r in enumerate(sorted(strata[key], key=lambda r: _sha(r["text"]))):
            (tune if i % 2 == 0 else ev).append(r)
    return tune, ev


def main() -> None:
    mirrors = Path(sys.argv[1])
    seen = set()
    for name in ("tune.jsonl", "eval.jsonl", "eval2.jsonl"):
        seen |= {json.loads(x)["text"] for x in (OUT / name).read_text(encoding="utf-8").split("\n") if x}
    rows = deepset_rows(mirrors) + payloads_rows(mirrors) + tldr_rows(mirrors) + docs_rows(mirrors) + code_rows(mirrors)
    unique = []
    for r in rows:
        if r["text"].strip() and r["text"] not in seen and len(r["text"]) <= 2000:
            seen.add(r["text"])
            unique.append(r)
    tune, ev = split(unique)
    with (OUT / "tune.jsonl").open("a", encoding="utf-8") as fh:
        for r in tune:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    with (OUT / "eval3.jsonl").open("w", encoding="utf-8") as fh:
        for r in ev:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"round 5: {len(unique)} strings: tune +{len(tune)}, eval3 {len(ev)}")


if __name__ == "__main__":
    main()
