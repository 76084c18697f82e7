"""The secret detector: what it finds, what ordinary text it leaves alone, how it masks."""

import pytest
from django.core.exceptions import ValidationError

from core.secrets import find_secrets, mask_json, mask_secrets, refuse_secrets

AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
CONNECTION = "a connection string with a password"
SSH_KEY = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXk\n-----END OPENSSH PRIVATE KEY-----"
AZURE = "AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq=="
SECRETS = [
    ("my aws secret access key is " + AWS_SECRET, "an AWS secret access key"),
    ("aws_secret_access_key = " + AWS_SECRET, "an AWS secret access key"),
    ("deploy with AKIAIOSFODNN7EXAMPLE please", "an AWS access key id"),
    ("My bank PIN is 4821", "a PIN or card security code"),
    ("the pin is 0000 for the garage", "a PIN or card security code"),
    ("my passcode 902114", "a PIN or card security code"),
    ("card 4111 1111 1111 1111 exp 12/27", "a card number"),
    ("the CVV is 123", "a PIN or card security code"),
    ("db is postgres://app:s3cr3tP4ss@db.internal:5432/prod", CONNECTION),
    ("mongodb+srv://admin:hunter22@cluster0.mongodb.net/test", CONNECTION),
    (
        "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9",
        "a JSON Web Token",
    ),
    (SSH_KEY, "a private key"),
    ("-----BEGIN RSA PRIVATE KEY----- abc", "a private key"),
    ("my api token is a8f3K2m9Qx7LpZ4vB1nR", "a token"),
    ("the client secret: 9fK2mQx7LpZ4vB1nRa8f3", "a token"),
    ("SECRET_KEY=django-insecure-9x8c7v6b5n4m3", "a secret value"),
    ("my key is sk-abcdefghijklmnopqrstuvwx", "an API key (sk-...)"),
    ("token ghp_abcdefghijklmnopqrstuvwxyz0123", "a GitHub token"),
    ("glpat-abcdefghij1234567890", "a GitLab token"),
    ("xoxb-123456789012-abcdefghijkl", "a Slack token"),
    ("AIzaSyA1234567890abcdefghijklmnopqrstuv", "a Google API key"),
    ("client secret GOCSPX-abcdefghijklmnopqrstuvwx", "a Google OAuth client secret"),
    ("Stripe sk_live_4eC39HqLyjWDarjtT1zdp7dc", "a Stripe secret key"),
    ("hf_abcdefghijklmnopqrstuvwxyzABCDEF1234", "a Hugging Face token"),
    (AZURE, "an Azure storage key"),
    ("Authorization: Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6", "a bearer token"),
    ("the wifi password is hunter2", "a password"),
    ("password: Tr0ub4dor&3", "a password"),
    ("use pw 'correct horse battery'", "a password"),
]  # fmt: skip
ORDINARY = [
    "I moved to Lisbon on 2024-05-01 and started on 3 June, 2023.",
    "We upgraded to Django 5.2.1 and Python 3.11.9 last week.",
    "Call me at +1 415 555 2671 or 020 7946 0958.",
    "My password was changed yesterday after the reset.",
    "The password is strong enough, says the checker.",
    "I use a password manager for everything.",
    "Deploy password hint: cat",
    "The password: reset it every 90 days.",
    "Let's pin the meeting notes; we'll pin it in 2025 planning.",
    "The key to success is patience and 10000 hours of practice.",
    "Commit 3f9a2b1 fixed the bug in release v1.2.3-beta.4.",
    "Order number 1234567890123 arrived, tracking 1Z999AA10123456784.",
    "Amazon order 112-7283746-1928374 shipped on 12/03/2024.",
    "I ran 5 km in 25:30 and my heart rate was 150.",
    "My token of appreciation was a 20 dollar gift card.",
    "The meeting is at 10:30 in room 4B, PIN code pending from facilities.",
    "Set OPENAI_API_KEY=your-api-key-here in the .env file.",
    "postgres://localhost:5432/mydb is the local database",
    "The secret ingredient is cinnamon and nutmeg.",
    "ISBN 978-0-13-468599-1 is a good book about Python.",
    "We live at 1600 Pennsylvania Avenue and have 2 kids aged 4 and 7.",
    "The API key rotation happens every 90 days per policy.",
    "Caroline went to the LGBTQ support group on 7 May 2023 at 1:56 pm.",
]


@pytest.mark.parametrize("text, kind", SECRETS, ids=[k for _, k in SECRETS])
def test_it_finds_each_kind_of_secret(text, kind):
    assert [s.kind for s in find_secrets(text)] == [kind]


@pytest.mark.parametrize("text", ORDINARY)
def test_it_leaves_ordinary_text_alone(text):
    assert find_secrets(text) == []
    assert mask_secrets(text) == (text, 0)


def test_masking_replaces_only_the_secret_and_counts_it():
    masked, count = mask_secrets("My bank PIN is 4821 and my AWS secret is " + AWS_SECRET)
    assert count == 2
    assert masked == (
        "My bank PIN is [secret masked: PIN or card security code] and my AWS secret is "
        "[secret masked: AWS secret access key]"
    )


@pytest.mark.parametrize("text, kind", SECRETS, ids=[k for _, k in SECRETS])
def test_masking_twice_changes_nothing(text, kind):
    once, _ = mask_secrets(text)
    assert mask_secrets(once) == (once, 0)


def test_a_refusal_names_the_kind_and_never_repeats_the_secret():
    with pytest.raises(ValidationError) as refused:
        refuse_secrets("aws secret " + AWS_SECRET)
    message = refused.value.message_dict["content"][0]
    assert "an AWS secret access key" in message and AWS_SECRET not in message


def test_a_long_text_is_checked_quickly_enough_to_stay_on_the_write_path():
    text = ("key token secret password pin { [ 1234 abc " * 2000)[:100_000]
    assert isinstance(find_secrets(text), list)  # finishes (no catastrophic backtracking)


def test_json_values_are_masked_with_their_keys_as_context():
    args = {"env": {"AWS_SECRET_ACCESS_KEY": AWS_SECRET, "REGION": "eu-west-1"}, "pin": "4821"}
    masked = mask_json(args)
    assert masked["env"]["AWS_SECRET_ACCESS_KEY"].startswith("[secret masked")
    assert masked["env"]["REGION"] == "eu-west-1"
    assert masked["pin"].startswith("[secret masked")
    assert mask_json(["ok", 3, None]) == ["ok", 3, None]
