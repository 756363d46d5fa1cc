"""Years in hundreds in Hindi, Marathi and Bengali ("उन्नीस सौ सैंतालीस", "উনিশশো পঁচানব্বই"; they were read
"one thousand nine hundred ..."), and the words around a number in scripts that write vowels as combining
marks, which the cues before and after a number must see whole."""

import pytest

from model_server.frontend import agreement, normalize

CASES = [
    ("hi", "15 अगस्त 1947 को भारत आज़ाद हुआ।", "15 अगस्त उन्नीस सौ 47 को भारत आज़ाद हुआ."),
    ("hi", "सन् 1995 में", "सन् उन्नीस सौ 95 में"),
    ("hi", "वर्ष 1900 में", "वर्ष उन्नीस सौ में"),
    ("hi", "1947 ई. में", "उन्नीस सौ 47 ईस्वी में"),
    ("hi", "15/08/1947", "15 अगस्त उन्नीस सौ 47"),
    ("hi", "2024 में", "2024 में"),  # two thousand and twenty four: the cardinal
    ("hi", "1947 में", "उन्नीस सौ 47 में"),  # any number from 1100 to 1999, a year or not
    ("hi", "1990 के दशक में", "उन्नीस सौ 90 के दशक में"),
    ("hi", "1500 रुपये", "पंद्रह सौ रुपये"),  # a price is said so too
    ("hi", "ऑर्डर नंबर 1987", "ऑर्डर नंबर 1987"),  # a number that names something is not
    ("hi", "आपका OTP 1987 है", "आपका OTP 1 9 8 7 है"),
    ("hi", "ई. मेल", "ई. मेल"),  # the era's short form only after a number
    ("mr", "15 ऑगस्ट 1947", "15 ऑगस्ट एकोणीसशे 47"),
    ("mr", "सन 1995 मध्ये", "सन एकोणीसशे 95 मध्ये"),
    ("bn", "১৯৯৫ সালে", "উনিশশো পঁচানব্বই সালে"),
    ("bn", "১৫ আগস্ট ১৯৪৭", "পনের আগস্ট উনিশশো সাতচল্লিশ"),
    ("bn", "১৫০০ টাকা", "পনেরশো টাকা"),
    ("bn", "১৯৭১ খ্রি.", "উনিশশো একাত্তর খ্রিস্টাব্দ."),
    # a case ending after a hyphen joins the number ("উনিশশো একাত্তর -এ" before)
    ("bn", "১৯৭১-এ", "উনিশশো একাত্তরে"),
    ("bn", "১৯৯০-এর দশকে", "উনিশশো নব্বইয়ের দশকে"),
    ("bn", "১০-তে", "দশতে"),
    ("mr", "इ.स. 1995 मध्ये", "इसवी सन एकोणीसशे 95 मध्ये"),
    ("da", "i 1985", "i nitten hundrede femogfirs"),  # the Nordic rule it extends is unchanged
]


@pytest.mark.parametrize(("code", "text", "expected"), CASES)
def test_years_are_said_in_hundreds(code, text, expected):
    assert normalize(text, code) == expected


@pytest.mark.parametrize(
    ("text", "pos", "expected"),
    [
        ("वर्ष 1900", 5, ["वर्ष"]),  # the virama and the vowel sign are inside the word
        ("আজ ১৯৯৫ সালে", 3, ["আজ"]),
        ("ปี 2567", 3, ["ปี"]),
        ("día y año 5", 10, ["día", "y", "año"]),
    ],
)
def test_words_keep_their_combining_marks(text, pos, expected):
    assert agreement.previous_words(text, pos) == expected


def test_the_next_word_keeps_its_marks():
    assert agreement.next_word("1995 সালে হয়", 4) == "সালে"
