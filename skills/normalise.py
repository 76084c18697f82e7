"""Text as a reader sees it: the form the scrubber looks at, so a detail cannot hide from
it in a form that still reads the same.

In order: Unicode compatibility forms are folded (NFKC: fullwidth `＠` and `Ｓａｒａｈ`,
superscript and circled digits, mathematical letters); invisible format characters go
(zero-width spaces and joiners, soft hyphens, bidirectional marks: category Cf, plus the
few invisible letters); accents on Latin and Greek letters go; a word that
mixes Latin with Cyrillic or Greek look-alikes, or Cyrillic with Greek, is written in
Latin letters (`Ѕаrаh` -> `Sarah`), while a word of one script stays as it is
(`петрова` is a Russian word, not `netpoba`: the allow-list scrubs it as unknown);
and letters spelled out one by one (`S a r a h`, `S.a.r.a.h`) are joined into the
word they spell.
"""

import re
import unicodedata

# Letters that read as Latin ones: Cyrillic, Greek, small capitals and IPA look-alikes.
_LOOK_ALIKES = {
    **dict(zip("аеіјорсухѕԁһԛԝӏвкмнтгпьүёї", "aeijopcyxsdhqwlbkmhtrnbyei", strict=True)),
    **dict(zip("АВЕІЈКМНОРСТХУЅԚԜҮ", "ABEIJKMHOPCTXYSQWY", strict=True)),
    **dict(zip("αβγεικνορτυχωϲϳ", "abyeiknoptuxwcj", strict=True)),
    **dict(zip("ΑΒΕΖΗΙΚΜΝΟΡΤΥΧϹ", "ABEZHIKMNOPTYXC", strict=True)),
    **dict(zip("ᴀʙᴄᴅᴇɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢɑɡıȷ", "abcdeghijklmnoprstuvwyzagij", strict=True)),
}
_FOLD = str.maketrans(_LOOK_ALIKES)
_ALWAYS = set("ᴀʙᴄᴅᴇɢʜɪᴊᴋʟᴍɴᴏᴘʀꜱᴛᴜᴠᴡʏᴢɑɡıȷ")  # Latin-script forms no text needs
_INVISIBLE = {"\u115f", "\u1160", "\u3164", "\uffa0", "\u034f", "\u180e"}
_WORD = re.compile(r"[^\W\d_]+")
_SPELLED = re.compile(r"(?<![^\W\d_])[^\W\d_](?:[ .\-_·•*][^\W\d_]){2,}(?![^\W\d_])")


def _marked_script(char: str) -> bool:
    """A letter whose accents are dropped: Latin or Greek (Cyrillic's are letters of
    their own: й is not и)."""
    return "A" <= char <= "\u024f" or "\u0370" <= char <= "\u03ff" or "\u1e00" <= char <= "\u1fff"


def _strip_accents(text: str) -> str:
    out: list[str] = []
    for char in unicodedata.normalize("NFKD", text):
        if unicodedata.combining(char) and out and _marked_script(out[-1]):
            continue
        out.append(char)
    return unicodedata.normalize("NFC", "".join(out))


def _fold_word(match: re.Match) -> str:
    word = match.group(0)
    if not any(c in _LOOK_ALIKES for c in word):
        return word
    latin = any(c.isascii() for c in word)
    cyrillic = any("\u0400" <= c <= "\u052f" for c in word)
    greek = any("\u0370" <= c <= "\u03ff" for c in word)
    if latin or (cyrillic and greek) or any(c in _ALWAYS for c in word):
        return word.translate(_FOLD)
    return word


def normalise(text: str) -> str:
    """`text` in the form the scrubber reads (see the module docstring)."""
    text = unicodedata.normalize("NFKC", text or "")
    text = "".join(c for c in text if unicodedata.category(c) != "Cf" and c not in _INVISIBLE)
    text = _strip_accents(text)
    text = _WORD.sub(_fold_word, text)
    return _SPELLED.sub(lambda m: re.sub(r"[ .\-_·•*]", "", m.group(0)), text)
