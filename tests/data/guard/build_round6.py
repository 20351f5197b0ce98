# ruff: noqa: E501  (verbatim source strings keep their lines)
"""Round 6 of the guard corpus: new public sources and a fourth frozen eval part (``eval4.jsonl``).

Why: the frozen parts of rounds 4 and 5 (eval2, eval3) say the guard catches about 55 % of injections it was not
written against, far from the 0.85 recall the held-out set asks. What that set is known to hold (issue 14):
injections in other languages, persona reassignment, fake role headers (after a blank line, in Markdown headings, in
HTML comments), lasting behaviour changes, orders to "the AI", encoded or obfuscated forms; and benign look-alikes:
chat-template and tool-call documentation, password UI text, "developer mode" settings, code that prints a prompt.
Round 6 adds sources of each kind that no rule and no model of this repository was written or trained against.

Procedure (the order matters): every new string is split by SHA-256 within its (label, category, technique,
language) stratum, alternating tune / eval, exactly as in rounds 4 and 5, and both parts (``eval4.jsonl`` and the
new rows of ``tune.jsonl``) were written and committed **before** any rule was changed or any model was trained on
round 6. Rules and the learned model are then fitted on tune only; ``eval.jsonl``, ``eval2.jsonl``,
``eval3.jsonl`` and ``eval4.jsonl`` are read only for the per-part figures of ``benchmarks/bench_guard.py``, and
the first three stay byte-identical.

Sources (each row's ``source`` names repository or package, commit or version, path and license):

- PyRIT 1.1.0 (PyPI wheel, MIT): the jailbreak templates under ``pyrit/datasets/jailbreak/templates`` (named
  personas, Pliny's, Arth Singh's and the TrustAIRLab "in the wild" prompts: persona reassignment and lasting
  behaviour changes), each ``{{ prompt }}`` slot filled with a request of PyRIT's ``adv_bench.prompt`` (the request
  is chosen by the template's SHA-256); and the system-prompt stealing prompts of ``psfuzz_steal_system.prompt``.
- garak-multilingual 0.1.0 (PyPI wheel, Apache-2.0): its Turkish, multilingual (de, es, ru, ar, zh, fr, fa),
  Turkish case-folding and Turkish jailbreak payloads.
- Giskard-AI/giskard ``giskard/llm/loaders/local/prompt_injections.csv`` (Apache-2.0): jailbreak and hijacking
  prompts (from garak and PromptInject).
- Obfuscated forms, made here from the English strings above (as round 4's promptfoo transforms): base64, rot13,
  leetspeak, letters spaced apart, reversed text; the source says ``<transform> of <source>``.
- Placed forms, made here: an English injection above placed after a benign React Native documentation section
  behind a blank line and a fake role header (``System:``, ``### Assistant``, ...), under a Markdown heading, or
  in an HTML comment; the source names both.
- authelia/authelia ``internal/server/locales/*/portal.json`` (Apache-2.0): login-portal UI strings about
  passwords, one-time codes, tokens and resets in 20 languages, a few screens per language.
- simonw/llm ``docs/*.md`` and ``llm/*.py`` (Apache-2.0): documentation about system prompts and templates, and
  code that prints or builds prompts.
- abetlen/llama-cpp-python ``README.md``, ``docs/server.md`` and ``llama_cpp/llama_chat_format.py`` (MIT):
  chat-format and function-calling documentation, chat templates in code.
- facebook/react-native-website ``docs/*.md`` (CC-BY-4.0): sections about the Dev Menu, "Developer options" and
  "Developer Mode" on devices.

Run: python tests/data/guard/build_round6.py MIRRORS WHEELS
(``MIRRORS`` holds one bare git directory per repository, named ``owner+name/repo``, read at the commits below with
``git show``; ``WHEELS`` holds the two wheels, ``pip download --no-deps pyrit==1.1.0 garak-multilingual==0.1.0``.)
"""

from __future__ import annotations

import base64
import codecs
import csv
import io
import json
import re
import subprocess
import sys
import zipfile
from collections.abc import Callable
from pathlib import Path

from build_round5 import _ls, _sections, _sha, split  # the same helpers, as round 5 committed them

OUT = Path(__file__).parent
COMMITS = {
    "Giskard-AI/giskard": "814a9dda633d0cc4e5adbec0adf373985cdd2389",
    "authelia/authelia": "23572030b4048922a377ca40d59e804e0ed25fd7",
    "simonw/llm": "f3f4f29c6e5e623c3776cbf6455dda2345638214",
    "abetlen/llama-cpp-python": "3691546f1c9e0c1bf93323dff02230bd959cf562",
    "facebook/react-native-website": "2f3a5ac1cd665031313d115e8c940a22a58332e6",
}
LICENSES = {
    "Giskard-AI/giskard": "Apache-2.0",
    "authelia/authelia": "Apache-2.0",
    "simonw/llm": "Apache-2.0",
    "abetlen/llama-cpp-python": "MIT",
    "facebook/react-native-website": "CC-BY-4.0",
    "pyrit": "MIT",
    "garak-multilingual": "Apache-2.0",
}
WHEELS = {"pyrit": "pyrit-1.1.0-py3-none-any.whl", "garak-multilingual": "garak_multilingual-0.1.0-py3-none-any.whl"}
VERSIONS = {"pyrit": "1.1.0", "garak-multilingual": "0.1.0"}
MAX_LEN = 3000
# The locales of authelia's portal strings (folder name -> language) and the English keys that look like an order to
# reveal or reset a secret.
AUTHELIA_LOCALES = {
    "en": "en", "de-DE": "de", "fr-FR": "fr", "es-ES": "es", "ru-RU": "ru", "zh-CN": "zh", "ja-JP": "ja",
    "it-IT": "it", "pt-BR": "pt", "ko-KR": "ko", "ar-SA": "ar", "tr-TR": "tr", "pl-PL": "pl", "nl-NL": "nl",
    "uk-UA": "uk", "sv-SE": "sv", "cs-CZ": "cs", "el-GR": "el", "hu-HU": "hu", "th-TH": "th", "zh-TW": "zh", "vi-VN": "vi", "id-ID": "id", "hi-IN": "hi",
}  # fmt: skip
AUTHELIA_KEYS = re.compile(r"password|reset|token|secret|one-time|credential|identity|security key|recover", re.I)
AUTHELIA_SCREEN = 6
AUTHELIA_PER_LANG = 6
WILD_KEEP = 160  # of the ~490 "in the wild" templates, the first by SHA-256 (they are long: the corpus stays small)
FAKE_HEADERS = ("System:", "SYSTEM:", "### System", "## Assistant", "[system]", "Assistant:", "### Instruction")
LEET = str.maketrans({"a": "4", "e": "3", "i": "1", "o": "0", "s": "5", "t": "7"})


def _source(repo: str, path: str) -> str:
    if repo in WHEELS:
        return f"{repo}=={VERSIONS[repo]}:{path} ({LICENSES[repo]})"
    return f"{repo}@{COMMITS[repo][:7]}:{path} ({LICENSES[repo]})"


def _row(text: str, label: str, category: str, source: str, technique: str, language: str) -> dict[str, str]:
    return {
        "text": text,
        "label": label,
        "category": category,
        "source": source,
        "technique": technique,
        "language": language,
        "round": "6",
    }


def _show(mirrors: Path, repo: str, path: str) -> str:
    git_dir = mirrors / repo.replace("/", "+") / "repo"
    return subprocess.run(
        ["git", "--git-dir", str(git_dir), "show", f"{COMMITS[repo]}:{path}"], check=True, capture_output=True
    ).stdout.decode("utf-8")


def _yaml_value(text: str) -> str | None:
    """The ``value:`` of a PyRIT template (a YAML file; yaml is imported here only)."""
    import yaml  # build-time only

    data = yaml.safe_load(text)
    value = data.get("value") if isinstance(data, dict) else None
    return value if isinstance(value, str) else None


def pyrit_rows(wheels: Path) -> list[dict[str, str]]:
    import yaml  # build-time only

    rows = []
    with zipfile.ZipFile(wheels / WHEELS["pyrit"]) as z:
        bench = yaml.safe_load(z.read("pyrit/datasets/seed_datasets/local/adv_bench.prompt"))
        requests = [s["value"].strip() for s in bench["seeds"]]
        names = sorted(
            n for n in z.namelist() if n.startswith("pyrit/datasets/jailbreak/templates/") and n.endswith(".yaml")
        )
        for name in names:
            value = _yaml_value(z.read(name).decode("utf-8"))
            if not value or "{{ prompt }}" not in value or "benign" in name:
                continue
            value = value.replace("{% raw %}", "").replace("{% endraw %}", "")
            request = requests[int(_sha(name), 16) % len(requests)]
            text = value.replace("{{ prompt }}", request).strip()
            if "{{" in text or "{%" in text:
                continue
            folder = name.split("/")[4] if name.count("/") > 4 else "named"
            technique = {"in_the_wild": "jailbreak_in_the_wild", "pliny": "jailbreak_pliny"}.get(
                folder, "jailbreak_template"
            )
            rows.append(_row(text, "injection", "role_confusion", _source("pyrit", name), technique, "en"))
    wild = sorted((r for r in rows if r["technique"] == "jailbreak_in_the_wild"), key=lambda r: _sha(r["text"]))
    rows = [r for r in rows if r["technique"] != "jailbreak_in_the_wild"] + wild[:WILD_KEEP]
    with zipfile.ZipFile(wheels / WHEELS["pyrit"]) as z:
        steal = yaml.safe_load(z.read("pyrit/datasets/seed_datasets/local/psfuzz_steal_system.prompt"))
        for seed in steal["seeds"]:
            for part in re.split(r"\|\s*\n\s*(?=\d+\.)", seed["value"]):
                text = re.sub(r"^\d+\.\s*", "", part.strip()).rstrip("|").strip()
                lang = "zh" if re.search(r"[\u4e00-\u9fff]", text) else "en"
                src = _source("pyrit", "pyrit/datasets/seed_datasets/local/psfuzz_steal_system.prompt")
                rows.append(_row(text, "injection", "secret_extraction", src, "prompt_leak", lang))
    return rows


def garak_ml_rows(wheels: Path) -> list[dict[str, str]]:
    with zipfile.ZipFile(wheels / WHEELS["garak-multilingual"]) as z:
        code = z.read("garak_multilingual/payloads.py").decode("utf-8")
    namespace: dict[str, object] = {}
    exec(compile(code, "payloads.py", "exec"), namespace)  # stdlib-only data module (its docstring says so)
    rows = []
    src = _source("garak-multilingual", "garak_multilingual/payloads.py")
    for name, technique in (
        ("TURKISH_INJECTION", "multilingual_injection"),
        ("MULTILINGUAL_INJECTION", "multilingual_injection"),
        ("TURKISH_CASEFOLD_EVASION", "casefold_evasion"),
        ("TURKISH_JAILBREAK", "persona_jailbreak"),
    ):
        items = namespace[name]
        assert isinstance(items, list)
        for item in items:
            text, lang = item["prompt"], item.get("lang", "tr")
            category = "role_confusion" if technique == "persona_jailbreak" else "system_override"
            rows.append(_row(text, "injection", category, src, technique, lang))
    return rows


def giskard_rows(mirrors: Path) -> list[dict[str, str]]:
    repo, path = "Giskard-AI/giskard", "giskard/llm/loaders/local/prompt_injections.csv"
    rows = []
    for r in csv.DictReader(io.StringIO(_show(mirrors, repo, path))):
        category = "role_confusion" if r["group"] == "Jailbreak" else "system_override"
        technique = "giskard_" + r["group"].lower().replace(" ", "_")
        rows.append(_row(r["prompt"].strip(), "injection", category, _source(repo, path), technique, r["language"]))
    return rows


def openings(injections: list[dict[str, str]]) -> list[dict[str, str]]:
    """The first paragraph (40-300 characters, addressed to the model) of each English jailbreak template.

    Only the bases of the obfuscated and placed forms below (short English orders), not rows themselves.
    """
    out = []
    for r in injections:
        if r["technique"].startswith("jailbreak") and r["language"] == "en":
            first = r["text"].strip().split("\n\n")[0].strip()
            if 40 <= len(first) <= 300 and re.search(r"\byou\b", first, re.I):
                out.append({**r, "text": first, "source": "opening of " + r["source"]})
    return out


def _spaced(text: str) -> str:
    return " ".join(" ".join(w) for w in text.split())


TRANSFORMS = {
    "base64": lambda t: base64.b64encode(t.encode()).decode(),
    "rot13": lambda t: codecs.encode(t, "rot13"),
    "leetspeak": lambda t: t.lower().translate(LEET),
    "spaced_letters": _spaced,
    "reversed": lambda t: t[::-1],
}


def obfuscated_rows(injections: list[dict[str, str]]) -> list[dict[str, str]]:
    """Each transform of English injections under 300 characters (a fifth each, by SHA-256)."""
    short = sorted(
        (r for r in injections if r["language"] == "en" and len(r["text"]) < 300), key=lambda r: _sha(r["text"])
    )[:100]
    rows = []
    kinds = list(TRANSFORMS)
    for i, r in enumerate(short):
        kind = kinds[i % len(kinds)]
        src = f"{kind} of {r['source']}"
        rows.append(_row(TRANSFORMS[kind](r["text"]), "injection", "system_override", src, kind, "en"))
    return rows


def react_native_rows(mirrors: Path) -> tuple[list[dict[str, str]], list[tuple[str, str]]]:
    """Developer-mode sections (benign) and every other mid-sized section (carriers of placed injections)."""
    repo = "facebook/react-native-website"
    rows, carriers = [], []
    for path in sorted(_ls(mirrors, repo, "docs")):
        if not path.endswith(".md"):
            continue
        for sec in _sections(_show(mirrors, repo, path)):
            if not 150 <= len(sec) <= 1800:
                continue
            if re.search(r"dev(eloper)? menu|developer (mode|options|settings)|debug mode", sec, re.I):
                rows.append(_row(sec, "benign", "docs", _source(repo, path), "developer_mode_docs", "en"))
            elif 300 <= len(sec) <= 1200 and "```" not in sec:
                carriers.append((sec, _source(repo, path)))
    return rows, carriers


PLACEMENTS = ("fake_role_blank_line", "markdown_heading", "html_comment")


def placed(carrier: str, header: str, text: str, kind: str) -> str:
    """``text`` placed in a carrier: after a blank line with a fake role header, under a heading, in an HTML comment."""
    if kind == "fake_role_blank_line":
        return f"{carrier}\n\n{header if not header.startswith('#') else 'System:'} {text}"
    if kind == "markdown_heading":
        return f"{carrier}\n\n{header if header.startswith('#') else '## System'}\n\n{text}"
    return f"{carrier}\n\n<!-- {text} -->\n"


def placed_rows(injections: list[dict[str, str]], carriers: list[tuple[str, str]]) -> list[dict[str, str]]:
    """English injections placed in benign documentation: behind a fake role header, a heading or in a comment."""
    short = sorted(
        (r for r in injections if r["language"] == "en" and len(r["text"]) < 400),
        key=lambda r: _sha(r["text"] + "placed"),
    )
    carriers = sorted(carriers, key=lambda c: _sha(c[0]))
    rows = []
    for i, r in enumerate(short[:90]):
        carrier, csrc = carriers[i % len(carriers)]
        header = FAKE_HEADERS[int(_sha(r["text"]), 16) % len(FAKE_HEADERS)]
        kind = PLACEMENTS[i % 3]
        text = placed(carrier, header, r["text"], kind)
        src = f"{r['source']} placed in {csrc}"
        rows.append(_row(text, "injection", "role_confusion", src, kind, "en"))
    return rows


def authelia_rows(mirrors: Path) -> list[dict[str, str]]:
    repo = "authelia/authelia"
    rows = []
    for locale, lang in AUTHELIA_LOCALES.items():
        path = f"internal/server/locales/{locale}/portal.json"
        data = json.loads(_show(mirrors, repo, path))
        values = [v for k, v in data.items() if AUTHELIA_KEYS.search(k) and isinstance(v, str) and v.strip()]
        screens = ["\n".join(values[i : i + AUTHELIA_SCREEN]) for i in range(0, len(values), AUTHELIA_SCREEN)]
        for screen in sorted(screens, key=_sha)[:AUTHELIA_PER_LANG]:
            rows.append(_row(screen, "benign", "ui_text", _source(repo, path), "password_ui", lang))
    return rows


def llm_rows(mirrors: Path) -> list[dict[str, str]]:
    repo = "simonw/llm"
    rows = []
    for path in sorted(_ls(mirrors, repo, "docs")):
        if not path.endswith(".md") or path.endswith("changelog.md"):
            continue
        for sec in _sections(_show(mirrors, repo, path)):
            if 150 <= len(sec) <= 1800 and re.search(r"system prompt|--system|\bsystem:|template|prompt", sec, re.I):
                rows.append(_row(sec, "benign", "docs", _source(repo, path), "prompt_docs", "en"))
    rows += _code_windows(
        mirrors, repo, "llm", re.compile(r"\b(?:echo|print)\(.*prompt|system_prompt|prompt\.system"), "prompt_in_code"
    )
    return rows


def _code_windows(
    mirrors: Path, repo: str, folder: str, pattern: re.Pattern[str], technique: str
) -> list[dict[str, str]]:
    rows = []
    for path in _ls(mirrors, repo, folder):
        if not path.endswith(".py"):
            continue
        lines = _show(mirrors, repo, path).splitlines()
        last = -100
        for i, line in enumerate(lines):
            if pattern.search(line) and i - last >= 24:
                window = "\n".join(lines[max(0, i - 8) : i + 16]).strip()
                if len(window) >= 200:
                    rows.append(_row(window, "benign", "code", _source(repo, path), technique, "en"))
                last = i
    return rows


def llama_cpp_rows(mirrors: Path) -> list[dict[str, str]]:
    repo = "abetlen/llama-cpp-python"
    rows = []
    for path in ("README.md", "docs/server.md"):
        for sec in _sections(_show(mirrors, repo, path)):
            if not 150 <= len(sec) <= 1800:
                continue
            if re.search(r"function.call|tool", sec, re.I):
                rows.append(_row(sec, "benign", "docs", _source(repo, path), "tool_call_docs", "en"))
            elif re.search(r"chat.format|chat.template|chat_handler|system", sec, re.I):
                rows.append(_row(sec, "benign", "docs", _source(repo, path), "chat_template_docs", "en"))
    pattern = re.compile(r"<\|im_start\|>|<\|start_header_id\|>|\[INST\]|<start_of_turn>|<\|system\|>")
    rows += [r for r in _code_windows(mirrors, repo, "llama_cpp", pattern, "chat_template_code")][:80]
    return rows


def write_round(
    rows: list[dict[str, str]],
    seen: set[str],
    split: Callable[[list[dict[str, str]]], tuple[list[dict[str, str]], list[dict[str, str]]]],
    frozen: str,
) -> tuple[list[dict[str, str]], list[dict[str, str]], list[dict[str, str]]]:
    """Keep the new, non-blank rows of at most MAX_LEN characters once each, split them, and append the tune half
    to tune.jsonl and write the other as the new frozen part ``frozen`` (keys starting with ``_`` are dropped).

    Returns the kept rows, the tune half and the frozen half."""
    unique = []
    for r in rows:
        if r["text"].strip() and r["text"] not in seen and len(r["text"]) <= MAX_LEN:
            seen.add(r["text"])
            unique.append(r)
    tune, ev = split(unique)
    for name, part, mode in (("tune.jsonl", tune, "a"), (frozen, ev, "w")):
        with (OUT / name).open(mode, encoding="utf-8") as fh:
            for r in part:
                fh.write(json.dumps({k: v for k, v in r.items() if not k.startswith("_")}, ensure_ascii=False) + "\n")
    return unique, tune, ev


def main() -> None:
    mirrors, wheels = Path(sys.argv[1]), Path(sys.argv[2])
    seen = set()
    for name in ("tune.jsonl", "eval.jsonl", "eval2.jsonl", "eval3.jsonl"):
        seen |= {json.loads(x)["text"] for x in (OUT / name).read_text(encoding="utf-8").split("\n") if x}
    injections = pyrit_rows(wheels) + garak_ml_rows(wheels) + giskard_rows(mirrors)
    injections = [r for r in injections if r["text"].strip() and r["text"] not in seen and len(r["text"]) <= MAX_LEN]
    rn_rows, carriers = react_native_rows(mirrors)
    bases = injections + openings(injections)
    rows = injections + obfuscated_rows(bases) + placed_rows(bases, carriers)
    rows += rn_rows + authelia_rows(mirrors) + llm_rows(mirrors) + llama_cpp_rows(mirrors)
    unique, tune, ev = write_round(rows, seen, split, "eval4.jsonl")
    print(f"round 6: {len(unique)} strings: tune +{len(tune)}, eval4 {len(ev)}")


if __name__ == "__main__":
    main()
