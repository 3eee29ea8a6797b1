"""Rebuild the name gazetteer shipped in ``factdiff/extraction/data`` from Faker's name lists.

Run: ``.venv/bin/pip install faker==40.40.0 && .venv/bin/python scripts/build_name_gazetteer.py``

The offline extractor reads ``given_names.txt`` and ``family_names.txt`` (one folded name a
line, sorted) and never imports Faker: the lists are data, rebuilt by this script when the
pinned Faker version changes. Faker is MIT-licensed; its notice heads each file. Only
Latin-script names of the locales in :data:`LOCALES` are kept, and never a word of
:data:`COMMON_WORDS` (English words that are also names: ``May``, ``Will``, ``Grant``...).
"""

from __future__ import annotations

import importlib
import re
import sys
import unicodedata
from pathlib import Path

FAKER_VERSION = "40.40.0"
LOCALES = (
    "en_US", "en_GB", "en_IE", "en_IN", "en_NZ", "en_NG", "en_KE", "en_PK", "de_DE", "de_AT",
    "de_CH", "nl_NL", "nl_BE", "sv_SE", "da_DK", "no_NO", "fi_FI", "is_IS", "fr_FR", "fr_CA",
    "es_ES", "es_MX", "es_AR", "es_CO", "it_IT", "pt_BR", "pt_PT", "pl_PL", "cs_CZ", "sk_SK",
    "hu_HU", "ro_RO", "hr_HR", "sl_SI", "tr_TR", "ga_IE", "yo_NG", "ig_NG", "ha_NG", "zu_ZA",
    "tw_GH", "sw", "id_ID", "vi_VN",
)  # fmt: skip
ROMANIZED_LOCALES = ("zh_CN", "zh_TW", "ja_JP")
"""Locales whose names Faker also lists romanized (``first_romanized_names``: ``Akira``,
``Chen``): their Latin-script forms join the lists."""


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


COMMON_WORDS = _words(
    """a an and are art as at be best bill bird black brown by can case chase cook day
    dawn do faith fortune for freeman frank free friday from gang gay gift glad gold golden good
    grace grant green hall happy hill holiday honey hope house hunter in is it joy just
    king lane law little long love lucky mark may miles more moon new north of on or page
    price rich rose ross said sale san santa see she sky so son star stone story summer sun
    the to truth victory way we west white will win winter with wood young york"""
)
"""Words too common in ordinary text to start or end a name on their own."""
_NAME = re.compile(r"[^\W\d_][^\W\d_'’-]*(?:['’-][^\W\d_]+)*")
OUT = Path(__file__).resolve().parent.parent / "factdiff" / "extraction" / "data"
HEADER = (
    "# Derived by scripts/build_name_gazetteer.py from Faker {version} (MIT License,\n"
    "# Copyright (c) 2012 Daniele Faraglia); locales: {locales}.\n"
)


def _fold(name: str) -> str:
    return unicodedata.normalize("NFKC", name).casefold()


def _latin(name: str) -> bool:
    return all(not c.isalpha() or "LATIN" in unicodedata.name(c, "") for c in name) and bool(
        _NAME.fullmatch(name)
    )


def collect(attribute: str) -> list[str]:
    """Folded Latin-script names of one Faker attribute over every locale (and of its
    romanized form, ``first_romanized_names``, over :data:`ROMANIZED_LOCALES`)."""
    romanized = attribute.replace("_names", "_romanized_names")
    sources = [(locale, attribute) for locale in LOCALES]
    sources += [(locale, romanized) for locale in ROMANIZED_LOCALES]
    names: set[str] = set()
    for locale, name_list in sources:
        provider = importlib.import_module(f"faker.providers.person.{locale}").Provider
        for name in getattr(provider, name_list, ()):
            for part in str(name).split():
                if _latin(part) and len(part) > 1:
                    names.add(_fold(part))
    return sorted(names - COMMON_WORDS)


def main() -> None:
    """Write both files."""
    import faker

    if faker.VERSION != FAKER_VERSION:
        sys.exit(f"faker {faker.VERSION} installed; pin {FAKER_VERSION} or update FAKER_VERSION")
    locales = " ".join((*LOCALES, *(f"{locale} (romanized)" for locale in ROMANIZED_LOCALES)))
    header = HEADER.format(version=FAKER_VERSION, locales=locales)
    OUT.mkdir(parents=True, exist_ok=True)
    for attribute, file in (("first_names", "given_names.txt"), ("last_names", "family_names.txt")):
        names = collect(attribute)
        (OUT / file).write_text(header + "\n".join(names) + "\n", encoding="utf-8")
        print(f"{file}: {len(names)} names")


if __name__ == "__main__":
    main()
