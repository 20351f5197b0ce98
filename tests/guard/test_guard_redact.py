import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from contextfold import redact_secrets
from contextfold._guard import _secrets

CASES = [
    ("key AKIAIOSFODNN7EXAMPLE here", "aws-access-key"),
    ("token ghp_" + "a" * 36, "github-token"),
    ("glpat-" + "x" * 20, "gitlab-token"),
    ("xoxb-1234567890-abcdefghij", "slack-token"),
    ("sk-proj-" + "A1b2" * 8, "openai-key"),
    ("sk-ant-api03-" + "z" * 30, "anthropic-key"),
    ("eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "jwt"),
    ("-----BEGIN RSA PRIVATE KEY-----\nMIIEow\nabc\n-----END RSA PRIVATE KEY-----", "private-key"),
    ("DB_PASSWORD=hunter22", "password"),
    ('api_key: "abcdef1234567890"', "api-key"),
    ("postgres://bob:s3cr3t@db.example.com/app", "connection-password"),
    ("sha " + "ab" * 40, "hex"),
    ('"value": "' + "Eby8vdM02xNO" * 7 + "Ab==" + '"', "base64-key"),
    # other services' documented token shapes
    ("HF_TOKEN=hf_AbCdEfGhIjKlMnOpQrStUvWxYz01234567", "huggingface-token"),
    ("SG.AbCdEfGhIjKlMnOpQrStUv.AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEfG", "sendgrid-key"),
    ("password = pypi-AgEIcHlwaS5vcmcCJGE0ZDQ1ZjQ3LWI1YjYtNDg2Yy1hYjQ5LWE0ZjI4YjU0ZGRhZQACKlsz", "pypi-token"),
    ("shpat_0123456789abcdef0123456789abcdef", "shopify-token"),
    ("dop_v1_" + "ab12" * 16, "digitalocean-token"),
    ("dapi0123456789abcdef0123456789abcdef-2", "databricks-token"),
    ("bot 1234567890:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsawq ok", "telegram-bot-token"),
    ("lin_api_" + "Ab1" * 13 + "x", "linear-key"),
    ("ntn_" + "Ab1x" * 11 + "Zz", "notion-token"),
    ("ATATT3xFfGF0" + "Ab1_" * 45, "atlassian-token"),
    ("glsa_" + "Ab12" * 8 + "_0a1b2c3d", "grafana-token"),
    ("NRAK-A1B2C3D4E5F6G7H8I9J0K1L2M3N", "newrelic-key"),
    ("DOPPLER_TOKEN dp.st.dev." + "Ab1_" * 10, "doppler-token"),
    ("AGE-SECRET-KEY-1" + "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"[:29] * 2, "age-secret-key"),
    ("hvs.CAESIJ1cR0b0nUbWk3Yx2zQ9pL0kVb7nAsDfGhJkLqWeRtYu", "vault-token"),
    ("abcdEFGHijklmn.atlasv1." + "Ab1-" * 17, "terraform-token"),
    ("PMAK-0a1b2c3d4e5f6a7b8c9d0e1f-0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e", "postman-key"),
    ("GOCSPX-" + "Ab1_" * 7, "google-oauth"),
    ("access ya29.a0AfH6SMBx" + "Ab1-" * 10, "google-oauth"),
    ("gsk_" + "Ab1x" * 13, "groq-key"),
    ("r8_" + "Ab1" * 12 + "x", "replicate-token"),
    ("xai-" + "Ab1x" * 20, "xai-key"),
    ("pplx-" + "Ab1x" * 12, "perplexity-key"),
    ("sbp_" + "0a1b" * 10, "supabase-token"),
    ("sntryu_" + "0a1b" * 16, "sentry-token"),
    ("EAAA" + "Ab1_" * 15, "square-token"),
    ("AZURE_CLIENT_SECRET abc8Q~" + "Ab1_.-~x" * 4, "azure-client-secret"),
    ("xapp-1-A0123456789-1234567890123-" + "0a1b" * 16, "slack-token"),
    # credentials in the shapes commands and config files print them
    ("machine api.github.com login octocat password ghs_notreally1234", "password"),
    ("machine example.com\n  login bob\n  password hunter2secret\n", "password"),
    ("PGPASSWORD=s3cretPass psql -h db", "password"),
    ("SMTP_PASS=s3cretPass", "password"),
    ("mysql -u root -ps3cretPass -h db", "password"),
    ("curl -u admin:s3cretPass https://example.com", "password"),
    ("--password s3cretPass1", "password"),
    ("gh auth login --token abcDEF123ghiJKL456mno", "api-key"),
    ('{"auths": {"https://index.docker.io/v1/": {"auth": "Ym9iOnMzY3JldFBhc3N3b3Jk"}}}', "registry-auth"),
    ("APP_KEY=base64:AbCdEfGhIjKlMnOpQrStUvWxYz0123456789AbCdEf=", "api-key"),
    ("https://discord.com/api/webhooks/123456789012345678/" + "AbCd1234_-" * 7, "discord-webhook"),
]


@pytest.mark.parametrize(("text", "kind"), CASES)
def test_each_kind_is_redacted(text: str, kind: str) -> None:
    result = redact_secrets(text)
    assert f"[redacted:{kind}" in result.text
    assert [r.kind for r in result.redactions] == [kind]
    r = result.redactions[0]
    assert 0 <= r.start < r.end <= len(text)


def test_data_uri_marker_has_media_type_and_size() -> None:
    payload = "QUJD" * 100  # 300 bytes
    result = redact_secrets(f'<img src="data:image/png;base64,{payload}">')
    assert result.text == '<img src="[redacted:data-uri image/png 300 bytes]">'


def test_connection_string_keeps_user_and_host() -> None:
    assert (
        redact_secrets("mysql://root:pw12@localhost/x").text
        == "mysql://root:[redacted:connection-password]@localhost/x"
    )


_AZURE_KEY = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="

# Secrets that leaked before (issue 14): each came through unredacted or only partly redacted.
LEAKED = [
    ("STRIPE_KEY=rk_live_51H8xYzAbCdEfGhIjKlMnOpQrStUvWx", "STRIPE_KEY=[redacted:stripe-key]"),
    ("stripe.api_key: rk_test_4eC39HqLyjWDarjtT1zdp7dc", "stripe.api_key: [redacted:stripe-key]"),
    (
        "maps?key=AIzaSyA1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q&callback=init",
        "maps?key=[redacted:google-api-key]&callback=init",
    ),
    (
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey="
        + "Ab1+" * 21
        + "Ab==;EndpointSuffix=core.windows.net",
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=[redacted:azure-key];EndpointSuffix=core.windows.net",
    ),
    (
        "https://acct.blob.core.windows.net/c/b.txt?sv=2021-08-06&sp=r&sig=abcDEF123%2Bghi456%2Fjkl789mnoPQR%3D",
        "https://acct.blob.core.windows.net/c/b.txt?sv=2021-08-06&sp=r&sig=[redacted:url-signature]",
    ),
    (
        "//registry.npmjs.org/:_authToken=npm_abcdefghijklmnopqrstuvwxyz0123456789",
        "//registry.npmjs.org/:_authToken=[redacted:npm-token]",
    ),
    ("NPM_TOKEN npm_abcdefghijklmnopqrstuvwxyz0123456789 set", "NPM_TOKEN [redacted:npm-token] set"),
    (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAu1SU1LfVLPHCozMxH2Mo4lgOEePzNm0tRgeLezV6ffAt0gun\n"
        "VTLw7onLRnrq0/IzW7yWR7QkrmBL7jTKEn5u+qKhbwKfBstIs+bMY2Zkp18gnTxK\n\n[output truncated]",
        "[redacted:private-key]\n\n[output truncated]",
    ),
    (
        '{"private_key": "-----BEGIN PRIVATE KEY-----\\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC\\nBKcwggSjAgEAAoIBAQC7\\n", '
        '"client_email": "x@y.iam.gserviceaccount.com"}',
        '{"private_key": "[redacted:private-key]\\n", "client_email": "x@y.iam.gserviceaccount.com"}',
    ),
    (
        "REDIS_URL=redis://:s3cr3tpassw0rd@cache.internal:6379/0",
        "REDIS_URL=redis://:[redacted:connection-password]@cache.internal:6379/0",
    ),
    ("postgres://app:p@ss:w0rd@db.internal/app", "postgres://app:[redacted:connection-password]@db.internal/app"),
    (
        "curl -H 'Authorization: Bearer 0123456789abcdef0123456789abcdef01234567' https://api.example.com",
        "curl -H 'Authorization: Bearer [redacted:bearer-token]' https://api.example.com",
    ),
    ("Authorization: Bearer 0123456789abcdef0123456789abcdef01234567", "Authorization: Bearer [redacted:bearer-token]"),
    (
        "SECRET_KEY=django-insecure-k3$^x(a)b7#w!z9@qv(1r)e+h&m%u_p=t8y*l0o-s2d4f6g\nDEBUG=1",
        "SECRET_KEY=[redacted:api-key]\nDEBUG=1",
    ),
    # Azure storage keys outside a connection string: a longer setting name, the CLI's flags, and the JSON that
    # ``az storage account keys list`` prints.
    (f'AZURE_STORAGE_ACCOUNT_KEY="{_AZURE_KEY}"', 'AZURE_STORAGE_ACCOUNT_KEY="[redacted:azure-key]"'),
    (
        f"az storage blob list --account-key {_AZURE_KEY} --account-name acct",
        "az storage blob list --account-key [redacted:azure-key] --account-name acct",
    ),
    (
        'az storage blob upload --sas-token "sv=2021-06-08&ss=b&sig=abcDEF123%2Bghi456" -f x',
        'az storage blob upload --sas-token "[redacted:azure-key]" -f x',
    ),
    (
        f'[{{"keyName": "key1", "permissions": "FULL", "value": "{_AZURE_KEY}"}}]',
        '[{"keyName": "key1", "permissions": "FULL", "value": "[redacted:base64-key]"}]',
    ),
]


@pytest.mark.parametrize(("text", "expected"), LEAKED)
def test_secrets_that_leaked_are_redacted(text: str, expected: str) -> None:
    result = redact_secrets(text)
    assert result.text == expected
    assert redact_secrets(result.text).text == result.text  # idempotent


@pytest.mark.parametrize(
    "text",
    [
        "password = self.password",
        "git sha 4b825dc642cb6eb9a060e54bf8d69288fbee4904",
        "PASSWORD=$DB_PASS",
        "token: <your token>",
        "Authorization: Bearer $TOKEN",
        "Send a Bearer token in the Authorization header.",
        "token = get_token(user)",
        "id = models.AutoField(primary_key=True)",
        "http://localhost:8080/static/logo@2x.png",
        "AccountKey=<your-account-key>",
        "sudo: ubuntu : TTY=pts/0 ; PWD=/home/ubuntu ; USER=root ; COMMAND=/bin/ls",
        f'"integrity": "sha512-{_AZURE_KEY}"',
        "if total == expected and " + "=" * 90,
        "x" * 86 + "==",
        "hf_hub_download(repo_id=repo)  # hf_hub_download_with_retries_for_the_model",
        "Keys start with SG. and tokens with dp.st. or ya29. (see the docs)",
        "The secret has the form xxx8Q~ followed by 31 characters.",
        "url = 'https://example.com/api/v1/users/1234567890:AAH'",
        "      --token string   Bearer token for authentication to the API server",
        "  --password-stdin    Take the password from stdin",
        "--token $GITHUB_TOKEN",
        "enter your password twice",
        "CACHE_BYPASS=true",
        "first pass: tokenize the input",
        "mysql -p -u root",
        "curl -u $USER:$PASS https://example.com",
        "machine learning password reset",
        '"auth": "none", "grant": {"auth": "authorization_code"}',
        "OLDPWD=/home/me",
        "doForgotPassword=Forgot Password?\nhidePassword=Hide password",
    ],
)
def test_lookalikes_are_kept(text: str) -> None:
    assert redact_secrets(text).text == text


_secretish = st.one_of(
    st.text(max_size=40),
    st.sampled_from(
        [c[0] for c in CASES] + ["data:image/png;base64," + "QUJD" * 10, "password=", "://a:b@", "[redacted:x]"]
    ),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_secretish, max_size=8).map(" ".join))
def test_redaction_is_idempotent_and_deterministic(text: str) -> None:
    once = redact_secrets(text)
    assert redact_secrets(once.text).text == once.text
    assert redact_secrets(text) == once
    for r in once.redactions:
        assert 0 <= r.start < r.end <= len(text)


def test_redaction_is_linear_on_adversarial_input() -> None:
    import time

    for unit in ["-----BEGIN PRIVATE KEY-----", "a" * 63 + " ", "password=", "x://a:", "eyJaaaaaaaaa."]:
        text = unit * (1_000_000 // len(unit))
        t0 = time.perf_counter()
        redact_secrets(text)
        assert time.perf_counter() - t0 < 10.0


def _full_candidates(text: str) -> set[tuple[str, int, int]]:
    """Reference: every redaction rule over the whole text (no gates, no windows)."""
    out = set()
    for kind, pattern, group in _secrets._RULES:
        for m in pattern.finditer(text):
            if group is None:
                out.add((kind, *m.span()))
                continue
            span = _secrets._value_span(kind, m, group)
            if span is not None:
                out.add((kind, *span))
    return out


@settings(max_examples=300, deadline=None)
@given(st.lists(_secretish, max_size=8).map(" ".join))
def test_gated_redaction_equals_full_scan(text: str) -> None:
    assert {(r.kind, r.start, r.end) for r in _secrets._candidates(text)} == _full_candidates(text)


def test_multi_segment_credential_names_are_redacted() -> None:
    text = "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY\nmy_monkey = 12345678"
    result = redact_secrets(text)
    assert result.text == "aws_secret_access_key = [redacted:api-key]\nmy_monkey = 12345678"
    assert redact_secrets(result.text).text == result.text


# Text made of gate literals, their pieces and glue: literals overlap, nest ("sk-" in "sk-ant-") and abut.
_gate_pieces = st.sampled_from([lit.decode() for lit in _secrets._GATE_LITS] + ["k", "_", "-", "s", "ë", "\n"])


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(_gate_pieces, st.text(max_size=6)), max_size=20).map("".join))
def test_gate_prefilter_finds_exactly_the_literals_that_occur(text: str) -> None:
    # One RE2 set pass stands for one ``find`` per gate literal: it must report exactly the literals present.
    low = text.encode("ascii", "replace").lower()
    assert _secrets._present(low) == {lit for lit in _secrets._GATE_LITS if lit in low}


@pytest.mark.parametrize(("text", "kind"), CASES)
@pytest.mark.parametrize("tail", ["", "x", "Ab1_-" * 3, " tail", "~.Q"])
def test_gated_windows_see_as_far_as_each_rule(text: str, kind: str, tail: str) -> None:
    # A window must reach one character past a rule's longest match, or a lookahead at its end would accept a
    # longer token cut short: the gated scan gives what every rule over the whole text gives.
    for variant in (text + tail, "pre " + text + tail, tail + text):
        assert {(r.kind, r.start, r.end) for r in _secrets._candidates(variant)} == _full_candidates(variant)
