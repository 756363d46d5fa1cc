"""Text normalization: table-driven cases per language plus odd input."""

import pytest

from model_server.frontend.normalize import NormalizationError, normalize, normalize_segments

EN = [
    ("I paid $12.50 for 3 apples.", "I paid twelve dollars and fifty cents for three apples."),
    ("It costs €5 or £1.01.", "It costs five euros or one pound and one penny."),
    ("$1,000,000", "one million dollars"),
    ("$5 million", "five million dollars"),
    ("$0.99", "ninety nine cents"),
    ("We grew 12.5% in 2024.", "We grew twelve point five percent in twenty twenty four."),
    ("Born March 5, 1999.", "Born March fifth, nineteen ninety nine."),
    ("2024-03-05", "March fifth, twenty twenty four"),
    ("12/25/2024", "December twenty fifth, twenty twenty four"),
    ("Meet at 3:30 pm.", "Meet at three thirty p.m."),
    ("At 9:05 or 7:00.", "At nine oh five or seven o'clock."),
    ("Call 555-123-4567.", "Call five five five, one two three, four five six seven."),
    ("(555) 123-4567", "five five five, one two three, four five six seven"),
    ("Dr. Smith vs. Mr. Jones", "Doctor Smith versus Mister Jones"),
    ("apples, pears, etc. Then", "apples, pears, et cetera. Then"),
    ("e.g. this, i.e. that", "for example this, that is that"),
    ("St. Louis and Main St. today", "Saint Louis and Main Street today"),
    ("the 2nd and 21st", "the second and twenty first"),
    ("5 km and 1 kg", "five kilometers and one kilogram"),
    ("30°C", "thirty degrees Celsius"),
    ("3/4 cup", "three quarters cup"),
    ("the 1990s", "the nineteen nineties"),
    ("-7 and 3.14", "minus seven and three point one four"),
    ("A & B + C", "A and B plus C"),
    ("1,234 cats", "one thousand two hundred and thirty four cats"),
    ("Mail jane.doe@example.com now.", "Mail jane dot doe at example dot com now."),
    ("Visit https://www.statespeak.io/docs today.", "Visit www dot statespeak dot io slash docs today."),
    ("No. 5, but No way.", "number five, but No way."),
]

OTHER = [
    ("es", "Cuesta 12,50 €.", "Cuesta doce euros con cincuenta céntimos."),
    ("es", "El 5 de marzo de 1999.", "El cinco de marzo de mil novecientos noventa y nueve."),
    ("es", "El 12,5 % de 1.000.000", "El doce coma cinco por ciento de un millón"),
    ("es", "El Sr. García", "El señor García"),
    ("de", "Es kostet 12,50 €.", "Es kostet zwölf Euro und fünfzig Cent."),
    ("de", "um 15:30 Uhr", "um fünfzehn Uhr dreißig"),
    ("de", "z.B. 3 km", "zum Beispiel drei Kilometer"),
    ("de", "1999 kamen 21 Leute", "eintausendneunhundertneunundneunzig kamen einundzwanzig Leute"),
    ("fr", "Ça coûte 12,50 €.", "Ça coûte douze euros et cinquante centimes."),
    ("fr", "M. Dupont a 1 000 000 euros.", "Monsieur Dupont a un million euros."),
    ("fr", "le 1er mai", "le premier mai"),
    ("fr", "99 ans", "quatre-vingt-dix-neuf ans"),
]


@pytest.mark.parametrize(("text", "expected"), EN)
def test_english(text, expected):
    assert normalize(text, "en") == expected


@pytest.mark.parametrize(("lang", "text", "expected"), OTHER)
def test_other_languages(lang, text, expected):
    assert normalize(text, lang) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", ""),
        ("   ", ""),
        ("!!! ...", "!!! ..."),
        ("Hello 😀 world", "Hello world"),
        ("你好 мир", ""),
        ("Hi \x00\x07 there", "Hi there"),
        ("\u200b\u200d", ""),
        ("１２ apples at ３:３０ pm", "twelve apples at three thirty p.m."),
        ("5 km² and 3½", "five kilometers and three one half"),
        ("“quoted” – ﬁne…", '"quoted", fine...'),
    ],
)
def test_odd_input_is_skipped_not_fatal(text, expected):
    assert normalize(text, "en") == expected


def test_very_long_number_is_read_digit_by_digit():
    out = normalize("1234567890123456789012345678901234567890", "en")
    assert out.split() == "one two three four five six seven eight nine zero".split() * 4


def test_huge_but_readable_number():
    assert normalize("999999999999999", "en").startswith("nine hundred and ninety nine trillion")


def test_declined_rules_fall_back_to_plain_numbers():
    # 13/45 is neither a date nor a small fraction; 99:99 is no time.
    assert normalize("13/45", "en") == "thirteen forty five"
    assert "ninety nine" in normalize("99:99", "en")


def test_segments_keep_original_text():
    segs = normalize_segments("Pay $12.50 now.", "en")
    assert [(s.original, s.rule) for s in segs] == [
        ("Pay ", "text"),
        ("$12.50", "currency"),
        (" now.", "text"),
    ]
    assert segs[1].spoken == "twelve dollars and fifty cents"


@pytest.mark.parametrize("lang", ["xx", "EN", "", None])
def test_bad_language(lang):
    with pytest.raises(NormalizationError):
        normalize("hello", lang)


@pytest.mark.parametrize("text", [None, 5, b"bytes"])
def test_bad_type(text):
    with pytest.raises(NormalizationError, match="text must be str"):
        normalize(text, "en")


def test_random_junk_never_crashes():
    import random

    rng = random.Random(7)
    alphabet = "0123456789$€£¥%.,:;/-+()&@# abcXYZéüñß°²³½١٣１２😀你мΩ\n\t'\"!?…–—«»¿¡*_[]{}<>=~^|\\"
    for _ in range(500):
        s = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 40)))
        for lang in ("en", "es", "de", "fr"):
            out = normalize(s, lang)
            assert not any(ch.isdigit() for ch in out), (s, lang, out)
