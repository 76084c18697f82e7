"""Credentials people say in words (core.credentials): the table of what is a credential
and what is ordinary text that only sounds like one."""

import pytest
from django.core.exceptions import ValidationError

from core.secrets import find_secrets, mask_secrets, refuse_secrets

DOOR = "a door or alarm code"
ONE_TIME = "a one-time code"
PASSPHRASE = "a passphrase"
LOGIN = "a login and password"
NATIONAL_ID = "a national id number"

# (text, what it is, the part that is masked)
CREDENTIALS = [
    ("The garage door code is 4821", DOOR, "4821"),
    ("alarm code: 1-9-8-4", DOOR, "1-9-8-4"),
    ("Gate code for grandma's house is #4821", DOOR, "#4821"),
    ("The code for the front door is 4821", DOOR, "4821"),
    ("the safe combination is 12-34-56", DOOR, "12-34-56"),
    ("Keypad code 0912*", DOOR, "0912*"),
    ("The door code changed to 7731 last week.", DOOR, "7731"),
    ("The alarm system code is 9 9 1 2", DOOR, "9 9 1 2"),
    ("the passphrase is correct horse battery staple", PASSPHRASE, "correct horse battery staple"),
    ("The password is correct horse battery staple", PASSPHRASE, "correct horse battery staple"),
    (
        "My wallet's seed phrase: witch collapse practice feed shame open despair creek road",
        PASSPHRASE,
        "witch collapse practice feed shame open despair creek road",
    ),
    ("Login for the bank site: alex / Sommer2026!", LOGIN, "alex / Sommer2026!"),
    ("my Netflix login is alex@ex.com / Blue-Whale-77", LOGIN, "alex@ex.com / Blue-Whale-77"),
    ("credentials: deploy:Xk9#mP2q", LOGIN, "deploy:Xk9#mP2q"),
    ("Your verification code is 482913", ONE_TIME, "482913"),
    ("OTP: 739 201", ONE_TIME, "739 201"),
    ("the 2FA backup code is 8842-1930", ONE_TIME, "8842-1930"),
    ("The 2FA code 123456 expires in 30 seconds", ONE_TIME, "123456"),
    ("recovery codes: k3f9-x82m-q7tz", ONE_TIME, "k3f9-x82m-q7tz"),
    ("My SSN is 123-45-6789", NATIONAL_ID, "123-45-6789"),
    ("social security number 123 45 6789", NATIONAL_ID, "123 45 6789"),
    ("my personnummer is 19850312-1234", NATIONAL_ID, "19850312-1234"),
    ("Fødselsnummer: 01017012345", NATIONAL_ID, "01017012345"),
    ("National insurance number QQ 12 34 56 C", NATIONAL_ID, "QQ 12 34 56 C"),
    ("passport number 34NM57521", NATIONAL_ID, "34NM57521"),
    ("Tax ID number 12-3456789", NATIONAL_ID, "12-3456789"),
    ("Garage: code 4821", DOOR, "4821"),
    ("The code to get into the building is 1234#", DOOR, "1234#"),
    ("Lockbox at the cabin: 0417", DOOR, "0417"),
    ("Bike lock combination 3-7-1-9", DOOR, "3-7-1-9"),
    ("The door code at my mum's is 1990, her birth year", DOOR, "1990"),
    ("user: alex pass: Sommer2026!", LOGIN, "Sommer2026!"),
    ("Your Google verification code is G-482913", ONE_TIME, "G-482913"),
    ("Use code 482913 to sign in", ONE_TIME, "482913"),
    ("482913 is your Microsoft verification code", ONE_TIME, "482913"),
    ("The SMS code was 554 221", ONE_TIME, "554 221"),
    ("My social security number is 078051120", NATIONAL_ID, "078051120"),
    ("My fødselsnummer er 01017012345", NATIONAL_ID, "01017012345"),
    ("Mitt personnummer är 850312-1234", NATIONAL_ID, "850312-1234"),
]  # fmt: skip

ALLOWED = [
    "My password was changed yesterday",
    "The password is the same as the wifi one",
    "The password is written on a sticky note",
    "The passphrase is stored in the password manager.",
    "The passphrase is correct and it works.",
    "The recovery phrase is written on paper in the safe.",
    "the meeting code is in the invite",
    "The access code for the webinar is in the calendar invite",
    "The door code changed last week, ask Ana for it.",
    "The gate code changed on 2024-05-01",
    "The lock code changed on 12/03/2024",
    "The alarm code is 4 digits long",
    "The safe code is my birthday",
    "The verification code never arrived, I asked for a new one.",
    "the backup code was used on 2024-03-01",
    "Call me at +47 912 34 567",
    "My phone number is 555-12-3456",
    "Zip code 0150 Oslo, postal code 10001",
    "Area code 415 is San Francisco",
    "Error code 404 on the login page",
    "Use discount code SUMMER20 for 20% off",
    "Room 4821 on floor 3",
    "Train 4821 leaves from platform 6",
    "The flat costs 12,500 NOK a month",
    "I paid 1,250.00 for the alarm system installation",
    "Meeting on 2026-12-03 at 19:00",
    "The alarm goes off at 6:30 every weekday.",
    "Order 112-7283746-1928374 shipped",
    "Invoice INV-2024-0042 is paid",
    "Flight SK4421 lands at 19:05",
    "The doctor said my blood pressure is 120/80",
    "Passport expires on 2027-03-01",
    "I renewed my passport and my driver's license last week",
    "My SSN card arrived in the mail",
    "The login page is at https://bank.example.com/login",
    "Login hours: 9:00/17:00",
    "Sign in with Google / Apple",
    "My login is my email address",
    "login: see the vault / ask IT",
    "My login for the bank is the usual one.",
    "The account number is 12345678 at DNB",
    "I set the thermostat to 21 degrees",
    "The gate opens at 07:00",
    "Our building code compliance review is in 2025",
    "The code review is on Friday at 10:00",
    "Bus 4821 to the airport",
    "My locker is number 214",
    "The one-time fee was 250 NOK",
    "The backup ran at 02:00 and took 45 minutes",
    "I set my password last week, it's long.",
    "Login was slow today, took 30 seconds",
    "Sign-in: 2 attempts failed",
    "Her passport number ends in 42",
    "My ID card expires in 2030",
    "The garage door opener battery is a CR2032",
    "Call the alarm company at 800-555-0199",
    "The alarm code changed to 4 digits",
    "The key box is 100 m away from the door",
    "The alarm code is 100 percent new",
]


@pytest.mark.parametrize("text, kind, value", CREDENTIALS, ids=[t for t, _, _ in CREDENTIALS])
def test_it_finds_each_credential_said_in_words(text, kind, value):
    found = find_secrets(text)
    assert [(s.kind, text[s.start : s.end]) for s in found] == [(kind, value)]


@pytest.mark.parametrize("text, kind, value", CREDENTIALS, ids=[t for t, _, _ in CREDENTIALS])
def test_masking_hides_the_value_and_keeps_the_sentence(text, kind, value):
    masked, count = mask_secrets(text)
    assert count == 1 and value not in masked
    assert masked == text.replace(value, f"[secret masked: {kind.split(' ', 1)[1]}]")
    assert mask_secrets(masked) == (masked, 0)


@pytest.mark.parametrize("text", ALLOWED)
def test_ordinary_text_that_sounds_like_a_credential_is_left_alone(text):
    assert find_secrets(text) == []


def test_a_refusal_names_what_was_found_and_not_the_value():
    with pytest.raises(ValidationError) as refused:
        refuse_secrets("Login for the bank site: alex / Sommer2026!")
    message = refused.value.message_dict["content"][0]
    assert "a login and password" in message and "Sommer2026" not in message


def test_long_texts_full_of_the_words_are_checked_in_linear_time():
    for text in (
        "the door code for the front door is " * 3000,
        "passphrase is " + "word " * 20000,
        "login: " + "a/" * 50000,
        "SSN " + "1-" * 50000,
    ):
        assert isinstance(find_secrets(text[:100_000]), list)
