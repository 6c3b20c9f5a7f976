"""Which display names a seat or an entrant may take.

A name is shown to every viewer and spoken in sentences ("Asha took a tile"), so it must be
something a person can see and must never read as the viewer's own pronoun.  The rules, on the
name with its outer spaces trimmed:

* **characters**: letters, marks, numbers, punctuation, symbols and spaces (the no-break space
  too).  Refused: control characters, line and paragraph separators, surrogates, private-use and
  unassigned code points, and format characters other than the joiners (ZWJ U+200D, ZWNJ
  U+200C) and emoji tag characters (U+E0020–U+E007F) that real names and emoji sequences use;
  so bidi overrides and zero-width spaces are refused.
* **something visible**: at least one letter, number, punctuation mark or symbol that is not
  one of the blank look-alikes (Hangul fillers U+115F, U+1160, U+3164, U+FFA0, the blank braille
  pattern U+2800, and the like in :data:`INVISIBLE`).  A name of spaces, marks or joiners alone
  is refused.
* **combining marks**: every mark follows a base character, at most :data:`MAX_MARKS` marks in
  a row (counted after NFC composition, so "é" typed as e + U+0301 is one letter): enough for
  Vietnamese, Devanagari or an emoji's variation selector, not for stacked "zalgo" text.
* **no pronoun**: a name equal (ignoring case) to a word the sentences use for "you" in any
  language (:data:`RESERVED`) is refused, so no viewer reads "You chose …" about someone else.

Every refusal is ``bad_player``, the code names always had.

Tag characters (U+E0020–U+E007F) draw nothing on their own: outside an emoji tag sequence (the
waving black flag U+1F3F4, tags, then CANCEL TAG U+E007F, as in the flag of Scotland) they can
smuggle hidden text into a name ("ASCII smuggling").  They are dropped (not refused, so a name
pasted with them still seats) wherever a name is seated: :func:`strip_stray_tags`.
"""

from __future__ import annotations

import unicodedata

from services.common import errors

MAX_PLAYER_NAME = 64
MAX_MARKS = 3
# Format characters a real name or an emoji sequence needs (👩‍💻 is woman, ZWJ, laptop).
JOINERS = frozenset({"\u200c", "\u200d"})
EMOJI_TAGS = range(0xE0020, 0xE0080)
BLACK_FLAG = "\U0001f3f4"  # the base of emoji tag sequences (subdivision flags)
CANCEL_TAG = "\U000e007f"
# Characters Unicode counts as letters or symbols that nevertheless draw nothing.
INVISIBLE = frozenset(
    "\u115f\u1160\u3164\uffa0"  # Hangul choseong/jungseong fillers, Hangul filler, halfwidth filler
    "\u2800"  # braille pattern blank
)
REFUSED_CATEGORIES = frozenset({"Cc", "Cs", "Co", "Cn", "Zl", "Zp"})
VISIBLE_CLASSES = frozenset("LNPS")  # the first letter of a general category
# What the sentences call the viewer (seeds/platform/text/*.yaml ``words.you``, and the formal
# Spanish form), case-folded; a test checks every language pack's word is here.
RESERVED = frozenset({"you", "tú", "usted"})


def _refuse(message: str) -> errors.ServiceError:
    return errors.invalid("bad_player", message)


def _allowed(char: str) -> bool:
    category = unicodedata.category(char)
    if category in REFUSED_CATEGORIES:
        return False
    if category == "Cf":
        return char in JOINERS or ord(char) in EMOJI_TAGS
    return True


def _visible(char: str) -> bool:
    return unicodedata.category(char)[0] in VISIBLE_CLASSES and char not in INVISIBLE


def _check_marks(name: str) -> None:
    """Every mark follows a base character, at most ``MAX_MARKS`` in a row."""
    run = 0
    for index, char in enumerate(unicodedata.normalize("NFC", name)):
        if unicodedata.category(char)[0] != "M":
            run = 0
            continue
        run += 1
        if index + 1 == run:
            raise _refuse("a player name may not start with a combining mark")
        if run > MAX_MARKS:
            raise _refuse(f"a player name has at most {MAX_MARKS} combining marks on one character")


def strip_stray_tags(raw: str) -> str:
    """``raw`` without tag characters, except inside emoji tag sequences (🏴 + tags + CANCEL TAG)."""
    if not any(ord(char) in EMOJI_TAGS for char in raw):
        return raw  # the common case, in one pass
    kept: list[str] = []
    index = 0
    while index < len(raw):
        char = raw[index]
        if char == BLACK_FLAG:
            end = index + 1
            while end < len(raw) and ord(raw[end]) in EMOJI_TAGS and raw[end] != CANCEL_TAG:
                end += 1
            if end > index + 1 and end < len(raw) and raw[end] == CANCEL_TAG:
                kept.append(raw[index : end + 1])  # a whole tag sequence: a subdivision flag
                index = end + 1
                continue
        if ord(char) not in EMOJI_TAGS:
            kept.append(char)
        index += 1
    return "".join(kept)


def display_name(raw: str, fallback: str) -> str:
    """``raw`` as a display name (outer spaces trimmed; empty: ``fallback``), or ``bad_player``;
    stray tag characters are dropped first (:func:`strip_stray_tags`).

    Empty with an empty ``fallback`` is ``""``: the caller decides whether a name is required.
    """
    raw = strip_stray_tags(raw)
    if not all(_allowed(char) for char in raw):
        raise _refuse("player names may only contain visible characters, spaces and joiners")
    name = raw.strip() or fallback
    if not name:
        return ""  # no name and no fallback: the caller says what it needs
    if len(name) > MAX_PLAYER_NAME:
        raise _refuse(f"player names are at most {MAX_PLAYER_NAME} characters")
    if not any(_visible(char) for char in name):
        raise _refuse("a player name needs at least one visible character")
    _check_marks(name)
    if unicodedata.normalize("NFC", name).casefold() in RESERVED:
        raise _refuse(f"{name!r} is how sentences address their reader; choose another name")
    return name
