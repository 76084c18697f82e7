"""Find secrets in text, so memory never becomes a secret store.

One detector for every write path: knowledge items refuse a text that holds a secret
(`refuse_secrets`); conversation turns and tool calls are kept with each secret
replaced by a marker (`mask_secrets`), so what was masked cannot be searched, extracted,
summarised or exported afterwards.

Each rule is a shape that is a secret on its own (a provider's key prefix, a private
key block, a JWT, a card number that passes the Luhn check), or a value next to a word
that says it is one ("PIN 4821", "password: Tr0ub4dor", "api token a8f3K2m9..."). The
words alone never match: ordinary prose, dates, version numbers, commit hashes and
phone numbers are left alone (tests/core/test_secrets.py lists both sides). What people
say in words (a door code, a passphrase, "login: alex / Sommer2026!", a one-time code,
a national id number) is found by the rules in core.credentials, on the same paths.
"""

import math
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from django.core.exceptions import ValidationError

from core import credentials
from core.credentials import Rule

MARK = "[secret masked: {}]"
_MARKED = re.compile(r"\[secret masked: [^\]]{1,80}\]")


@dataclass(frozen=True)
class Secret:
    kind: str  # what it is, for people: "an AWS secret access key"
    start: int
    end: int


def _luhn(digits: str) -> bool:
    total = 0
    for index, char in enumerate(reversed(digits)):
        value = int(char)
        if index % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def _entropy(token: str) -> float:
    """Shannon entropy in bits per character."""
    counts = {c: token.count(c) for c in set(token)}
    return -sum(n / len(token) * math.log2(n / len(token)) for n in counts.values())


def _random_looking(token: str, *, min_length: int = 16) -> bool:
    """Long, mixed letters and digits, high entropy: a generated value, not a word."""
    if len(token) < min_length or not re.search(r"\d", token) or not re.search(r"[A-Za-z]", token):
        return False
    if re.fullmatch(r"[\d.\-_:/]+|v?\d+(?:[.\-]\w+)*", token):  # numbers, dates, versions
        return False
    return _entropy(token) >= (3.0 if len(token) < 24 else 3.5)


def _card(match: re.Match) -> bool:
    digits = re.sub(r"\D", "", match.group(0))
    if not 13 <= len(digits) <= 19 or digits[0] not in "23456":  # Amex, Visa, MC, Discover...
        return False
    return len(set(digits)) > 1 and _luhn(digits)


def _aws_secret(match: re.Match) -> bool:
    token = match.group("value")
    return bool(re.search(r"[A-Z]", token) and re.search(r"[a-z]", token)) and (
        _entropy(token) >= 4.0
    )


def _password(match: re.Match) -> bool:
    """A value that reads like a password, not like a word of the sentence."""
    value = match.group("value").strip("\"'`.,;:!?()")
    if match.group("value")[:1] in "\"'`":
        return len(value) >= 3
    if len(value) < 4 or value.lower() in _NOT_PASSWORDS:
        return False
    return bool(re.search(r"[^A-Za-z]", value) or (value != value.lower() != value.upper()))


def _token(match: re.Match) -> bool:
    return _random_looking(match.group("value"))


_NOT_PASSWORDS = {
    "changed", "reset", "forgotten", "expired", "required", "wrong", "correct", "strong",
    "weak", "secure", "incorrect", "invalid", "needed", "missing", "saved", "stored",
    "protected", "hidden", "redacted", "masked", "unknown", "empty", "none", "null",
    "hint", "reminder", "manager", "policy", "field", "prompt", "expiry", "rules",
}  # fmt: skip
_KEYISH = (
    r"(?:api[\s_-]?key|access[\s_-]?key|secret(?:[\s_-]?key)?|token|auth(?:entication)?|"
    r"credentials?|private[\s_-]?key|client[\s_-]?secret|bearer|apikey|key)"
)

RULES: list[Rule] = [
    Rule(
        "a private key",
        re.compile(
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----"
            r"(?:.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY(?: BLOCK)?-----|.*\Z)",
            re.S,
        ),
    ),
    Rule("an AWS access key id", re.compile(r"\b(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}\b")),
    Rule(
        "an AWS secret access key",
        re.compile(
            r"(?i:aws|secret[\s_-]?access|secret)[^\n]{0,40}?"
            r"(?<![A-Za-z0-9/+])(?P<value>[A-Za-z0-9/+]{40})(?![A-Za-z0-9/+=])"
        ),
        _aws_secret,
    ),
    Rule(
        "an API key (sk-...)", re.compile(r"\bsk-(?:proj-|ant-(?:api\d\d-)?)?[A-Za-z0-9_\-]{16,}")
    ),
    Rule("a GitHub token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,})")),
    Rule("a GitLab token", re.compile(r"\bglpat-[A-Za-z0-9_\-]{20,}")),
    Rule("a Slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}")),
    Rule("a Slack webhook", re.compile(r"https://hooks\.slack\.com/services/T\w+/B\w+/\w+")),
    Rule("a Google API key", re.compile(r"\bAIza[0-9A-Za-z_\-]{35}\b")),
    Rule("a Google OAuth client secret", re.compile(r"\bGOCSPX-[A-Za-z0-9_\-]{20,}")),
    Rule("a Stripe secret key", re.compile(r"\b(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}")),
    Rule("a Hugging Face token", re.compile(r"\bhf_[A-Za-z0-9]{30,}")),
    Rule("an npm token", re.compile(r"\bnpm_[A-Za-z0-9]{36}\b")),
    Rule("a PyPI token", re.compile(r"\bpypi-AgE[A-Za-z0-9_\-]{50,}")),
    Rule("a SendGrid key", re.compile(r"\bSG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}")),
    Rule("a DigitalOcean token", re.compile(r"\bdo[opr]_v1_[a-f0-9]{64}\b")),
    Rule("a Gaia API token", re.compile(r"\bgaia_[A-Za-z0-9_\-]{40,}")),
    Rule(
        "an Azure storage key",
        re.compile(r"(?i:AccountKey|SharedAccessKey)=(?P<value>[A-Za-z0-9+/=]{20,})"),
    ),
    Rule(
        "a JSON Web Token",
        re.compile(r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}"),
    ),
    Rule(
        "a connection string with a password",
        re.compile(
            r"\b[a-z][a-z0-9+.\-]{1,20}://[^\s:/@]{1,100}:(?P<value>[^\s@/]{1,200})@[\w.\-\[\]]",
            re.I,
        ),
        lambda m: m.group("value") not in {"***", "*", "password", "PASSWORD", "<password>"},
    ),
    Rule("a bearer token", re.compile(r"\bbearer\s+(?P<value>[A-Za-z0-9._\-~+/]{20,}=*)", re.I)),
    Rule(
        "a card number",
        re.compile(r"(?<![\d.\-/])(?:\d[ \-]?){12,18}\d(?![\d.\-/])"),
        _card,
    ),
    Rule(
        "a PIN or card security code",
        re.compile(
            # "pin" is also a verb: lower case only when the sentence says what it is
            r"(?:\bPIN\b|\b(?i:pin[\s-]?(?:code|number)|passcode|cvv2?|cvc|security\s+code)\b"
            r"|\b(?i:pin)\b(?=\s*(?:is|was|:|=)))"
            r"[^\d\n]{0,20}?(?<![\d.])(?P<value>\d{3,8})(?![\d.:/\-])"
        ),
        lambda m: len(m.group("value")) >= (3 if m.group(0)[:2].lower() in {"cv", "se"} else 4),
    ),
    Rule(
        "a password",
        re.compile(
            r"\b(?i:pass(?:word|wd|phrase)|pwd|pw)\b\s*(?:(?i:is|was|was set to|"
            r"=|:|->)\s*)*(?P<value>\"[^\"\n]{1,100}\"|'[^'\n]{1,100}'|`[^`\n]{1,100}`|\S{1,100})"
        ),
        _password,
    ),
    Rule(
        "a secret value",
        re.compile(
            r"\b[A-Z][A-Z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|PWD)[A-Z0-9_]*\s*[=:]\s*"
            r"[\"']?(?P<value>[^\s\"'$<>{}]{8,})"
        ),
        lambda m: (
            _random_looking(m.group("value"), min_length=8)
            or not re.fullmatch(r"[a-z_\-.]+", m.group("value"))
        ),
    ),
    Rule(
        "a token",
        re.compile(
            rf"(?i:\b{_KEYISH})\b[^\n]{{0,30}}?(?<![\w/+\-.:])(?P<value>[A-Za-z0-9_\-+/=.]{{16,}})"
        ),
        _token,
    ),
]


# The credentials people say in words (door codes, passphrases, logins, one-time codes,
# id numbers) follow the machine-made shapes above.
RULES += credentials.RULES


def find_secrets(text: str) -> list[Secret]:
    """The secrets in `text`, in order, without overlaps."""
    if not text:
        return []
    # What was masked before stays as it is: masking twice changes nothing.
    found = [Secret(kind="", start=m.start(), end=m.end()) for m in _MARKED.finditer(text)]
    for kind, pattern, check in RULES:
        for match in pattern.finditer(text):
            if check is not None and not check(match):
                continue
            span = match.span("value") if "value" in pattern.groupindex else match.span()
            found.append(Secret(kind=kind, start=span[0], end=span[1]))
    return [secret for secret in _without_overlaps(found) if secret.kind]


def _without_overlaps(found: list[Secret]) -> Iterator[Secret]:
    end = -1
    for secret in sorted(found, key=lambda s: (s.start, -s.end)):
        if secret.start >= end:
            yield secret
            end = secret.end


def has_secret(text: str) -> bool:
    return bool(find_secrets(text))


def mask_secrets(text: str) -> tuple[str, int]:
    """`text` with every secret replaced by a marker naming its kind, and how many."""
    secrets = find_secrets(text)
    if not secrets:
        return text, 0
    parts, cursor = [], 0
    for secret in secrets:
        parts += [text[cursor : secret.start], MARK.format(secret.kind.split(" ", 1)[1])]
        cursor = secret.end
    parts.append(text[cursor:])
    return "".join(parts), len(secrets)


def mask_json(value: Any) -> Any:
    """A JSON value with the secrets of every string in it masked (keys kept). A string
    under a key is read with its key ("password": "hunter2" reads "password = hunter2")."""
    if isinstance(value, str):
        return mask_secrets(value)[0]
    if isinstance(value, list):
        return [mask_json(v) for v in value]
    if isinstance(value, dict):
        return {k: _masked_entry(str(k), v) for k, v in value.items()}
    return value


def _masked_entry(key: str, value: Any) -> Any:
    if not isinstance(value, str):
        return mask_json(value)
    prefix = f"{key} = "
    masked, count = mask_secrets(prefix + value)
    if count and masked.startswith(prefix):
        return masked[len(prefix) :]
    return mask_secrets(value)[0]


def refuse_secrets(text: str, field: str = "content") -> None:
    """ValidationError when `text` holds a secret; the message never repeats the secret."""
    secrets = find_secrets(text)
    if secrets:
        raise ValidationError(
            {
                field: f"Refused: the text looks like it contains {secrets[0].kind}. "
                "Credentials are never stored in memory."
            },
            code="credential_refused",
        )
