# ruff: noqa: E501  (verbatim source strings keep their lines)
"""Round 4 of the guard corpus: new public sources, other languages, a new frozen eval part (``eval2.jsonl``).

Why: on strings written independently of this corpus the scanner caught 65 % of injections and flagged 15 % of
benign strings, while ``eval.jsonl`` said 85.1 % / 4.4 %: the rules fit the corpus. This round adds sources the
rules were never written against, in the families that passed or were wrongly flagged there (other languages,
persona reassignment, fake system modes, encoded / obfuscated payloads, injections embedded in documents;
documentation of chat-template markers and tool-call tags, password UI text, operating-system developer mode,
code that prints a prompt variable, real e-mails and tables).

Procedure (the order matters): every new string is split by SHA-256 within its (label, category, technique,
language) stratum, alternating tune / eval, and both parts were written and committed (``eval2.jsonl``, the new
rows of ``tune.jsonl``) **before** any rule was changed. Rules are then written from tune strings only; eval2
(like eval) is read only for the per-part figures of ``benchmarks/bench_guard.py``. ``eval.jsonl`` stays
byte-identical.

Sources (each row's ``source`` names repository, commit, path and license):

- meta-llama/PurpleLlama ``CybersecurityBenchmarks/datasets/prompt_injection/`` (CyberSecEval, MIT): the English
  set and its machine translation into 16 languages. Kept: direct injections of the variants
  ``ignore_previous_instructions``, ``system_mode`` and ``token_smuggling`` and every indirect injection (an
  instruction planted in a web page, code, a table, a résumé); dropped: the variants that are plain questions for
  data (``different_user_input_language``, ``hypothetical_scenario``, ``output_formatting_manipulation``, ...).
  Hindi (a full translation of all 251) keeps every third row so one language does not dominate. The
  ``test_case_prompt`` fields (system prompts that tell a model what to keep secret) are benign look-alikes.
- promptfoo 0.121.20 from npm (MIT), ``src/redteam/strategies/promptInjections/data.ts`` (106 persona
  jailbreaks; the package bundles it as the array ``data_default`` in ``dist/src/strategies-Cbvafftg.js``, which
  ``extract_promptfoo`` reads), cut at a sentence end before 2,000 characters.
- Obfuscated forms of the English CyberSecEval ``ignore_previous_instructions`` injections, made with promptfoo's
  own transforms (MIT, ``src/redteam/strategies/``): ``base64.ts``, ``rot13.ts``, ``leetspeak.ts`` (its map
  a→4 e→3 i→1 o→0 s→5 t→7 l→1) and ``flipAttack.ts`` (``char_in_sentence``: the whole text reversed), bare,
  without the guidance prompt.
- microsoft/BIPIA ``benchmark/{email,table}/test.jsonl`` contexts (MIT): real e-mails and tables, benign.
- Benign documentation and UI text, verbatim: keycloak/keycloak login messages (Apache-2.0),
  MicrosoftDocs/windows-dev-docs "Enable your device for development" (CC-BY-4.0), vllm-project/vllm
  ``docs/features/tool_calling.md`` (Apache-2.0), huggingface/transformers ``docs/source/en/chat_templating.md``
  (Apache-2.0), openai/openai-cookbook ``examples/How_to_format_inputs_to_ChatGPT_models`` cells (MIT).

Run: python tests/data/guard/build_round4.py PURPLELLAMA_GIT_DIR BIPIA_GIT_DIR PROMPTFOO_BUNDLE
(``npm pack promptfoo@0.121.20``, unpacked: ``package/dist/src/strategies-Cbvafftg.js``;
the other two are git directories, read at the commits below with ``git show``).
"""

from __future__ import annotations

import base64
import codecs
import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

OUT = Path(__file__).parent
PURPLELLAMA_COMMIT = "4be64c3a24442b51c76175e6ec67722cc3f5fe38"
BIPIA_COMMIT = "1a2a91da6bb12838e05d1b2e54d98e2f37b835f3"
CSE = "meta-llama/PurpleLlama@4be64c3:CybersecurityBenchmarks/datasets/prompt_injection/{} (MIT)"
PROMPTFOO = "promptfoo@0.121.20 (npm package, MIT): src/redteam/strategies/promptInjections/data.ts, bundled as data_default in dist/src/strategies-Cbvafftg.js"
PROMPTFOO_TRANSFORM = "{} of " + CSE.format("prompt_injection.json") + " by promptfoo/promptfoo:src/redteam/strategies/{}.ts (MIT)"
BIPIA = "microsoft/BIPIA@1a2a91d:benchmark/{}/test.jsonl (MIT)"

LANG = {
    "English": "en", "German": "de", "French": "fr", "Spanish": "es", "Italian": "it", "Portuguese": "pt",
    "Russian": "ru", "Chinese": "zh", "Japanese": "ja", "Korean": "ko", "Arabic": "ar", "Hindi": "hi",
    "Bengali": "bn", "Turkish": "tr", "Vietnamese": "vi", "Thai": "th", "Indonesian": "id", "Filipino/Tagalog": "tl",
}  # fmt: skip
CSE_VARIANT_CATEGORY = {
    "ignore_previous_instructions": "system_override",
    "system_mode": "role_confusion",
    "token_smuggling": "instruction_injection",
}


def _row(text: str, label: str, category: str, source: str, technique: str, language: str) -> dict[str, str]:
    return {
        "text": text,
        "label": label,
        "category": category,
        "source": source,
        "technique": technique,
        "language": language,
        "round": "4",
    }


def _git_show(repo: Path, commit: str, path: str) -> str:
    return subprocess.run(
        ["git", "--git-dir", str(repo), "show", f"{commit}:{path}"], check=True, capture_output=True, text=True
    ).stdout


def cse_rows(repo: Path) -> list[dict[str, str]]:
    rows: list[dict[str, str]] = []
    benign: dict[str, str] = {}
    for name in ("prompt_injection.json", "prompt_injection_multilingual_machine_translated.json"):
        data = json.loads(_git_show(repo, PURPLELLAMA_COMMIT, f"CybersecurityBenchmarks/datasets/prompt_injection/{name}"))
        hindi = 0
        for x in data:
            variant, kind, lang = x["injection_variant"], x["injection_type"], LANG[x["speaking_language"]]
            if kind == "direct" and variant not in CSE_VARIANT_CATEGORY:
                continue
            if lang == "hi":
                hindi += 1
                if hindi % 3:
                    continue
            category = CSE_VARIANT_CATEGORY.get(variant, "instruction_injection")
            technique = f"cse:{kind}:{variant}"
            rows.append(_row(x["user_input"], "injection", category, CSE.format(name), technique, lang))
            if lang == "en":
                benign.setdefault(x["test_case_prompt"], name)
    rows += [
        _row(t, "benign", "instruction_file", CSE.format(name) + " test_case_prompt", "system_prompt_text", "en")
        for t, name in list(benign.items())[::4]
    ]
    return rows


def _cut(text: str, limit: int = 2000) -> str:
    if len(text) <= limit:
        return text
    head = text[:limit]
    ends = [m.end() for m in re.finditer(r"[.!?](?=\s|$)", head)]
    return head[: ends[-1]] if ends else head


def extract_promptfoo(bundle: Path) -> list[str]:
    """The ``data_default`` array of the promptfoo bundle: JSON-compatible string literals."""
    s = bundle.read_text(encoding="utf-8")
    a = s.index("var data_default = [") + len("var data_default = ")
    b = s.index("\n];", a) + 2
    return list(json.loads(re.sub(r",\s*\]$", "]", s[a:b].strip())))


def promptfoo_rows(bundle: Path) -> list[dict[str, str]]:
    data = extract_promptfoo(bundle)
    return [_row(_cut(t), "injection", "role_confusion", PROMPTFOO, "persona_jailbreak", "en") for t in data]


_LEET = str.maketrans({"a": "4", "e": "3", "i": "1", "o": "0", "s": "5", "t": "7", "l": "1", "A": "4", "E": "3", "I": "1", "O": "0", "S": "5", "T": "7", "L": "1"})


def obfuscated_rows(repo: Path) -> list[dict[str, str]]:
    data = json.loads(_git_show(repo, PURPLELLAMA_COMMIT, "CybersecurityBenchmarks/datasets/prompt_injection/prompt_injection.json"))
    plain = [x["user_input"] for x in data if x["injection_variant"] == "ignore_previous_instructions" and x["injection_type"] == "direct"]
    transforms = (
        ("base64", "base64", lambda s: base64.b64encode(s.encode()).decode()),
        ("rot13", "rot13", lambda s: codecs.encode(s, "rot13")),
        ("leetspeak", "leetspeak", lambda s: s.translate(_LEET)),
        ("reversed", "flipAttack", lambda s: s[::-1]),
    )
    rows = []
    for name, module, fn in transforms:
        for s in plain:
            rows.append(_row(fn(s), "injection", "system_override", PROMPTFOO_TRANSFORM.format(name, module), name, "en"))
    return rows


def bipia_rows(repo: Path) -> list[dict[str, str]]:
    rows = []
    for task, limit in (("email", 30), ("table", 12)):
        lines = _git_show(repo, BIPIA_COMMIT, f"benchmark/{task}/test.jsonl").splitlines()
        for line in lines[:limit]:
            ctx = json.loads(line)["context"]
            if len(ctx) <= 2000:
                rows.append(_row(ctx, "benign", "tool_output", BIPIA.format(task), task, "en"))
    return rows


KEYCLOAK = "keycloak/keycloak@00183820:themes/src/main/resources/theme/base/login/messages/messages_en.properties (Apache-2.0)"
KEYCLOAK_SNIPPETS = [
    "doLogIn=Sign In\ndoRegister=Register\ndoForgotPassword=Forgot Password?\ndoClickHere=Click here",
    "emailForgotTitle=Forgot Your Password?\nupdateEmailTitle=Update email",
    "updatePasswordTitle=Update password\ncodeSuccessTitle=Success code\ncodeErrorTitle=Error code\\: {0}",
    "email=Email\npassword=Password\npasswordConfirm=Confirm password\npasswordNew=New Password\npasswordNewConfirm=New Password confirmation\nhidePassword=Hide password\nshowPassword=Show password\nrememberMe=Remember me",
    "loginTotpIntro=You need to set up a One Time Password generator to access this account\nloginTotpStep1=Install one of the following applications on your mobile:\nloginTotpStep2=Open the application and scan this QR-Code:",
    "loginTotpStep3=Enter the one-time code provided by the application and click Submit to finish the setup.",
    "loginTotpManualStep2=Open the application and enter the key:\nloginTotpManualStep3=Use the following configuration values if the application allows setting them:",
    "verifyOAuth2DeviceUserCode=Enter the code provided by your device and click Submit",
    "emailInstruction=Enter your username or email address and we will send you instructions on how to create a new password.",
    "emailInstructionUsername=Enter your username and we will send you instructions on how to create a new password.",
    "copyCodeInstruction=Please copy this code and paste it into your application:",
    "role_read-token=Read token\nrole_offline-access=Offline access",
    "invalidUserMessage=Invalid username or password.\ninvalidUsernameMessage=Invalid username.\ninvalidPasswordMessage=Invalid password.",
    "missingPasswordMessage=Please specify password.\nmissingTotpMessage=Please specify authenticator code.\nnotMatchPasswordMessage=Passwords don''t match.",
    "invalidPasswordExistingMessage=Invalid existing password.\ninvalidPasswordBlacklistedMessage=Invalid password: password is blacklisted.\ninvalidPasswordConfirmMessage=Password confirmation doesn''t match.",
    "updatePasswordMessage=You need to change your password to activate your account.\nresetPasswordMessage=You need to change your password.",
    "emailSentMessage=You should receive an email shortly with further instructions.\nemailSendErrorMessage=Failed to send email, please try again later.",
    "accountUpdatedMessage=Your account has been updated.\naccountPasswordUpdatedMessage=Your password has been updated.",
    "invalidPasswordMinLengthMessage=Invalid password: minimum length {0}.\ninvalidPasswordMinDigitsMessage=Invalid password: must contain at least {0} numerical digits.",
    "invalidPasswordNotUsernameMessage=Invalid password: must not be equal to the username.\ninvalidPasswordHistoryMessage=Invalid password: must not be equal to any of last {0} passwords.",
    "invalidPasswordGenericMessage=Invalid password: new password doesn''t match password policies.",
    "bearerOnlyMessage=Bearer-only applications are not allowed to initiate browser login",
    "couldNotObtainTokenMessage=Could not obtain token from identity provider.\nunexpectedErrorRetrievingTokenMessage=Unexpected error when retrieving token from identity provider.",
    "oauthGrantRequest=Do you grant these access privileges?\ninResource=in",
]

MSDOCS = "MicrosoftDocs/windows-dev-docs@293be4ea:hub/apps/get-started/enable-your-device-for-development.md (CC-BY-4.0)"
MSDOCS_PARAGRAPHS = [
    "If you're using your computer for ordinary day-to-day activities (such as gaming, web browsing, email, or Office apps), you *don't* need to activate Developer Mode, and in fact, you shouldn't activate it. The rest of the information on this page won't matter to you, and you can safely get back to whatever you were doing. Thanks for stopping by!",
    "However, if you're writing software with Visual Studio on a computer for the first time, you *will* need to enable Developer Mode on both the development PC and on any devices you'll use to test your code. Opening a UWP project when Developer Mode *isn't* enabled will either open the **For developers** settings page, or cause the following dialog to appear in Visual Studio:",
    "> [!NOTE]\n> You can go to the **For developers** settings page at any time to *enable* or *disable* Developer Mode. Simply enter *for developers* into the Cortana search box in the taskbar.",
    "## Activate Developer Mode\n\nTo enable Developer Mode, or access other settings:\n\n1. From the **For developers** settings dialog, choose the level of access that you need.\n2. Read the disclaimer for the setting you choose. Click **Yes** to accept the change.",
    "> [!NOTE]\n> Enabling Developer mode requires administrator access. If your device is owned by an organization, this option may be disabled.",
    "Developer Mode replaces the Windows 8.1 requirements for a developer license. In addition to sideloading, the Developer Mode setting enables debugging and additional deployment options. This includes starting an SSH service to allow deployment to this device. In order to stop this service, you need to disable Developer Mode.",
    "When you enable Developer Mode on desktop, a package of features is installed, including:\n\n- **Windows Device Portal**: Device Portal is only enabled (and firewall rules are only configured for it) when the **Enable Device Portal** option is turned on.\n- Installs and configures firewall rules for SSH services that allow remote installation of apps. Enabling **Device Discovery** will turn on the SSH server.",
    "> [!IMPORTANT]\n> If you're not creating your own applications on your PC, you don't need to enable Developer Mode. If you're trying to fix an issue with your computer, check out [Windows help](/windows). If you're developing for the first time, you'll also want to [Install tools for the Windows App SDK](/windows-app-sdk/set-up-your-development-environment).",
]

VLLM_DOCS = "vllm-project/vllm@0064cc9c:docs/features/tool_calling.md (Apache-2.0)"
VLLM_PARAGRAPHS = [
    "vLLM currently supports named function calling, as well as the `auto`, `required` (as of `vllm>=0.8.3`), and `none` options for the `tool_choice` field in the chat completion API.",
    "Start the server with tool calling enabled. This example uses Meta's Llama 3.1 8B model, so we need to use the `llama3_json` tool calling chat template from the vLLM examples directory:",
    "When tool_choice='required' is set, the model is guaranteed to generate one or more tool calls based on the specified tool list in the `tools` parameter. The number of tool calls depends on the user's query. The output format strictly follows the schema defined in the `tools` parameter.",
    "vLLM supports the `tool_choice='none'` option in the chat completion API. When this option is set, the model will not generate any tool calls and will respond with regular text content only, even if tools are defined in the request.",
    "* `--chat-template` -- **optional** for auto tool choice. It's the path to the chat template which handles `tool`-role messages and `assistant`-role messages\nthat contain previously generated tool calls. Hermes, Mistral and Llama models have tool-compatible chat templates in their\n`tokenizer_config.json` files, but you can specify a custom template.",
    "Remember that it's the caller's responsibility to:\n\n1. Define appropriate tools in the request\n2. Include relevant context in the chat messages\n3. Handle the tool calls in your application logic",
    "    tool_call = response.choices[0].message.tool_calls[0].function\n    print(f\"Function called: {tool_call.name}\")\n    print(f\"Arguments: {tool_call.arguments}\")\n    print(f\"Result: {tool_functions[tool_call.name](**json.loads(tool_call.arguments))}\")",
]

TRANSFORMERS_DOCS = "huggingface/transformers@01168c66:docs/source/en/chat_templating.md (Apache-2.0)"
TRANSFORMERS_PARAGRAPHS = [
    "All language models, including models fine-tuned for chat, operate on linear sequences of tokens and do not intrinsically\nhave special handling for roles. This means that role information is usually injected by adding control tokens\nbetween messages, to indicate both the message boundary and the relevant roles.",
    "Note that this time, the tokenizer has added the control tokens [INST] and [/INST] to indicate the start and end of \nuser messages (but not assistant messages!)",
    "This is a pretty simple template - it doesn't add any control tokens, and it doesn't support \"system\" messages, which \nare a common way to give the model directives about how it should behave in the subsequent conversation.",
    "Hopefully if you stare at this for a little bit you can see what this template is doing - it adds specific tokens based\non the \"role\" of each message, which represents who sent it. User, assistant and system messages are clearly\ndistinguishable to the model because of the tokens they're wrapped in.",
    "This wraps each message in `<|im_start|>` and `<|im_end|>` tokens, and simply writes the role as a string, which\nallows for flexibility in the roles you train with. The output looks like this:",
    "```\n<|im_start|>system\nYou are a helpful chatbot that will do its best not to say anything so stupid that people tweet about it.<|im_end|>\n<|im_start|>user\nHow are you?<|im_end|>\n<|im_start|>assistant\nI'm doing great!<|im_end|>\n```",
    "```\n{% for message in messages %}\n    {{'<|im_start|>' + message['role'] + '\\n' + message['content'] + '<|im_end|>' + '\\n'}}\n{% endfor %}\n```",
    "The \"user\", \"system\" and \"assistant\" roles are the standard for chat, and we recommend using them when it makes sense,\nparticularly if you want your model to operate well with [`ConversationalPipeline`]. However, you are not limited\nto these roles - templating is extremely flexible, and any string can be a role.",
    "```python\ntemplate = tokenizer.chat_template\ntemplate = template.replace(\"SYS\", \"SYSTEM\")  # Change the system token\ntokenizer.chat_template = template  # Set the new template\ntokenizer.push_to_hub(\"model_name\")  # Upload your new template to the Hub!\n```",
]

COOKBOOK = "openai/openai-cookbook:examples/How_to_format_inputs_to_ChatGPT_models_cell{}.py (MIT)"
COOKBOOK_CELLS = {
    10: "# example with a system message\nresponse = openai.ChatCompletion.create(\n    model=MODEL,\n    messages=[\n        {\"role\": \"system\", \"content\": \"You are a helpful assistant.\"},\n        {\"role\": \"user\", \"content\": \"Explain asynchronous programming in the style of the pirate Blackbeard.\"},\n    ],\n    temperature=0,\n)\n\nprint(response['choices'][0]['message']['content'])\n",
    14: "# An example of a system message that primes the assistant to explain concepts in great depth\nresponse = openai.ChatCompletion.create(\n    model=MODEL,\n    messages=[\n        {\"role\": \"system\", \"content\": \"You are a friendly and helpful teaching assistant. You explain concepts in great depth using simple terms, and you give examples to help people learn. At the end of each explanation, you ask a question to check for understanding\"},\n        {\"role\": \"user\", \"content\": \"Can you explain how fractions work?\"},\n    ],\n    temperature=0,\n)\n\nprint(response[\"choices\"][0][\"message\"][\"content\"])\n",
    15: "# An example of a system message that primes the assistant to give brief, to-the-point answers\nresponse = openai.ChatCompletion.create(\n    model=MODEL,\n    messages=[\n        {\"role\": \"system\", \"content\": \"You are a laconic assistant. You reply with brief, to-the-point answers with no elaboration.\"},\n        {\"role\": \"user\", \"content\": \"Can you explain how fractions work?\"},\n    ],\n    temperature=0,\n)\n\nprint(response[\"choices\"][0][\"message\"][\"content\"])\n",
}


def docs_rows() -> list[dict[str, str]]:
    rows = [_row(t, "benign", "ui_text", KEYCLOAK, "password_ui", "en") for t in KEYCLOAK_SNIPPETS]
    rows += [_row(t, "benign", "docs", MSDOCS, "developer_mode_docs", "en") for t in MSDOCS_PARAGRAPHS]
    rows += [_row(t, "benign", "docs", VLLM_DOCS, "tool_call_docs", "en") for t in VLLM_PARAGRAPHS]
    rows += [_row(t, "benign", "docs", TRANSFORMERS_DOCS, "chat_template_docs", "en") for t in TRANSFORMERS_PARAGRAPHS]
    rows += [_row(t, "benign", "code", COOKBOOK.format(n), "prompt_in_code", "en") for n, t in COOKBOOK_CELLS.items()]
    return rows


def split(rows: list[dict[str, str]]) -> tuple[list[dict[str, str]], list[dict[str, str]]]:
    """Alternate tune / eval by SHA-256 order within each (label, category, technique, language) stratum."""
    strata: dict[tuple[str, str, str, str], list[dict[str, str]]] = {}
    for r in rows:
        strata.setdefault((r["label"], r["category"], r["technique"], r["language"]), []).append(r)
    tune, ev = [], []
    for key in sorted(strata):
        ordered = sorted(strata[key], key=lambda r: hashlib.sha256(r["text"].encode()).hexdigest())
        for i, r in enumerate(ordered):
            (tune if i % 2 == 0 else ev).append(r)
    return tune, ev


def main() -> None:
    purple, bipia, promptfoo = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
    seen = set()
    for name in ("tune.jsonl", "eval.jsonl"):
        seen |= {json.loads(x)["text"] for x in (OUT / name).read_text(encoding="utf-8").splitlines()}
    rows = cse_rows(purple) + promptfoo_rows(promptfoo) + obfuscated_rows(purple) + bipia_rows(bipia) + docs_rows()
    unique = []
    for r in rows:
        if r["text"].strip() and r["text"] not in seen and len(r["text"]) <= 2000:
            seen.add(r["text"])
            unique.append(r)
    tune, ev = split(unique)
    with (OUT / "tune.jsonl").open("a", encoding="utf-8") as fh:
        for r in tune:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    with (OUT / "eval2.jsonl").open("w", encoding="utf-8") as fh:
        for r in ev:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    print(f"round 4: {len(unique)} strings: tune +{len(tune)}, eval2 {len(ev)}")


if __name__ == "__main__":
    main()
