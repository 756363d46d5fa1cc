"""Text normalization for the catalog languages beyond en/es/de/fr (see `languages.CATALOG`).

`normalize.normalize_segments` hands every language it has no hand-written rules for to
`normalize_segments` here; en/es/de/fr keep their own rules in the normalize package. One left-to-right scan
with a few rules, each in the language's own conventions from CLDR (Babel) and num2words:

* dates in digits (2024-03-15, and 15/03/2024, 15.03.2024, 15. 3. 2024 day first, as every catalog locale
  that starts its short date with a number writes them): CLDR's long date format ("15 marca 2024",
  "2024年3月15日"), numbers spoken; "15.03" without a year where the locale writes dates with dots.
* dates whose day is an ordinal: Russian and Polish "3 мая" / "3 maja" in the phrase's case, a day with an
  ordinal dot before a month ("3. května" -> "třetího května", `ordinals.day_ordinal`), Hungarian "május 3-án".
* numbers with an ending written after them ("3:lle", "10-kor", "3'te", "3:e"): one word (`suffixes`).
* times (14:30, and 9.30 where the dot is no decimal symbol): hour and minutes as numbers (a Russian one in
  the case its preposition takes).
* amounts with a currency symbol or ISO code (12,50 €, $5, 100 EUR): the amount, then CLDR's currency
  name in the plural form for that amount ("dwanaście euro pięćdziesiąt"); less than one in the minor unit
  ("cinquanta centesimi").
* ranges (2-3 dias -> "dois a três dias") where the language says a word for the dash (`RANGE_LINKS`).
* percentages (42 %): the number and CLDR's long unit name for percent ("42 procent").
* amounts with a unit symbol (5 km, 2 h, 21 °C): the number and CLDR's long unit name in its plural form
  for that amount ("pięć kilometrów", "dwie godziny").
* numbers, grouped and separated the locale's way (CLDR decimal and group symbols; "1 234 567", "3,5").

Integers are spelt with num2words where it has the language (`Language.num2words`; Croatian with Serbian's
words in Croatian forms, `amounts.croatian_cardinal`); elsewhere, and for
decimals (num2words gets several languages' decimals wrong), the number is passed on as plain digits with
the locale's decimal symbol, and espeak-ng's language rules read it (it reads "42" as one number in
every catalog language: tests/frontend/test_languages.py checks that). Chinese and Japanese numbers are the
exception (`cjk`): espeak-ng reads their digits wrong past 9,999, so they are written in Chinese numerals
(cn2an) and in the Japanese reading (num2words), with a Japanese or Korean counter's sound changes.

Japanese: espeak-ng reads kana only (it spells a kanji out as "Chinese letter"), so the spoken text of
every Japanese segment is rewritten in katakana as pronounced (`japanese`: Janome's IPADIC pronunciation
field, 今日は -> キョーワ); words the dictionary does not know stay as written.

Characters that cannot be spoken (emoji, symbols) are skipped; letters of every script and their combining
marks are kept (Devanagari vowel signs, Thai tone marks), and CJK, Arabic and Indic sentence punctuation
is folded into . , ? ! so the frontend finds clause and sentence ends.

The package: `amounts` (numbers, currencies, percentages, units), `dates` (dates, times, years, fractions),
`patterns` (ordinals, ranges, addresses, phone numbers, dotted numbers, numeric dates), `cjk` (Chinese,
Japanese and Korean numbers in their own words, and the counters that change them), `japanese` (kana for
espeak-ng) and `scan` (one pattern of all rules per language, the handler of a match, the pass over the text).
Names with a leading underscore are internal to the package.
"""

from .amounts import spell_number
from .scan import normalize_segments

__all__ = ["normalize_segments", "spell_number"]
