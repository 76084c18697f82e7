"""The form the scrubber reads a text in: what reads the same is written the same."""

import pytest

from skills.normalise import normalise


@pytest.mark.parametrize(
    ("written", "read"),
    [
        ("Ｓａｒａｈ＠ｅｘａｍｐｌｅ", "Sarah@example"),  # fullwidth
        ("Sa\u200brah Ch\u00aden\u2060", "Sarah Chen"),  # zero-width, soft hyphen, joiner
        ("Ѕаrаh Dmіtri", "Sarah Dmitri"),  # Cyrillic look-alikes in Latin words
        ("Ζоqυа", "Zoqua"),  # Greek and Cyrillic look-alikes only
        ("𝐒𝐚𝐫𝐚𝐡 ᴅᴍɪᴛʀɪ Ⓢarah", "Sarah dmitri Sarah"),  # mathematical, small capitals, circled
        ("Müller Pémbry", "Muller Pembry"),  # accents on Latin letters
        ("⁺⁴⁴ ₇₉₄₆ ０２０", "+44 7946 020"),  # superscript, subscript, fullwidth digits
        ("S a r a h, P.e.m.b.r.y, W-u-n-d", "Sarah, Pembry, Wund"),  # spelled out
        ("привет, мой друг; Ελλάδα", "привет, мой друг; Ελλαδα"),  # other scripts stay
        ("петрова Петровой сестре", "петрова Петровой сестре"),  # all look-alikes, one script
        ("e.g. a b, x - y", "e.g. a b, x - y"),
    ],
)
def test_what_reads_the_same_is_written_the_same(written, read):
    assert normalise(written) == read
