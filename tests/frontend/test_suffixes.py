"""Numbers with an ending written after them (model_server/frontend/suffixes.py), through `normalize`."""

import random

import pytest

from model_server.frontend import suffixes
from model_server.frontend.normalize import normalize

CASES = [
    # Finnish: the ending names a case, num2words inflects the number (and ordinals) in it
    ("fi", "Soita 3:lle.", "Soita kolmelle."),
    ("fi", "Maksoin 5:llä eurolla.", "Maksoin viidellä eurolla."),
    ("fi", "Kello 10:een asti.", "Kello kymmeneen asti."),
    ("fi", "Yli 24:ään maahan.", "Yli kahteenkymmeneenneljään maahan."),
    ("fi", "Hinta 1:n euron.", "Hinta yhden euron."),
    ("fi", "Odota 2:ta tuntia.", "Odota kahta tuntia."),
    ("fi", "3:nnella kerralla", "kolmannella kerralla"),
    ("fi", "3:s kerta", "kolmas kerta"),
    ("fi", "2:ssa päivässä", "kahdessa päivässä"),
    ("fi", "klo 14:30", "kello neljätoista kolmekymmentä"),
    # Hungarian: the ending joins the number, stems change before a vowel; days after a month
    ("hu", "Találkozzunk 10-kor.", "Találkozzunk tízkor."),
    ("hu", "Kérek 3-at.", "Kérek hármat."),
    ("hu", "Gyere 7-re.", "Gyere hétre."),
    ("hu", "Gyere május 3-án.", "Gyere május harmadikán."),
    ("hu", "Május 1-jén zárva.", "Május elsején zárva."),
    ("hu", "május 2-án", "május másodikán"),
    ("hu", "május 4-étől", "május negyedikétől"),
    ("hu", "Nyitva május 21-ig.", "Nyitva május huszonegyedikéig."),
    ("hu", "A május 3-i ülés.", "A május harmadikai ülés."),
    ("hu", "2024. május 3.", "kétezer-huszonnégy május harmadika."),
    ("hu", "Ma 2024. május 3. van.", "Ma kétezer-huszonnégy május harmadika van."),
    ("hu", "Időpont: 2024-05-10.", "Időpont: kétezer-huszonnégy május tizedike."),
    ("hu", "május 45.", "május negyvenöt."),
    ("hu", "Nyitva 8-tól 17-ig.", "Nyitva nyolctól tizenhétig."),
    ("hu", "3-ért és 1000-ig", "háromért és ezerig"),
    ("hu", "Találkozzunk 15-én.", "Találkozzunk tizenötödikén."),
    ("hu", "1-jén fizet.", "elsején fizet."),
    ("hu", "A 2-es busz.", "A kettes busz."),
    ("hu", "12-szer", "tizenkétszer"),
    ("hu", "A 3-ik emelet.", "A harmadik emelet."),
    ("hu", "1-gyel több.", "eggyel több."),
    ("hu", "10-et kérek.", "tizet kérek."),
    # Turkish writes the ending as said
    ("tr", "Saat 3'te gel.", "Saat üçte gel."),
    ("tr", "Saat 10'da.", "Saat onda."),
    # Swedish ordinal marks
    ("sv", "den 3:e maj", "den tredje maj"),
    ("sv", "Vi kom 1:a.", "Vi kom första."),
    ("sv", "Den 20:e maj.", "Den tjugonde maj."),
    ("sv", "Den 2:dra.", "Den andra."),
    # Russian and Ukrainian: the ending is the last letters of the form said (slavic_endings)
    ("ru", "Мы живём на 3-м этаже.", "Мы живём на третьем этаже."),
    ("ru", "Сыграли с 3-м составом.", "Сыграли с третьим составом."),
    ("ru", "Это 2-й подъезд.", "Это второй подъезд."),
    ("ru", "В 3-й раз.", "В третий раз."),
    ("ru", "На 3-й линии метро.", "На третьей линии метро."),
    ("ru", "Встреча 1-го мая.", "Встреча первого мая."),
    ("ru", "к 5-му числу", "к пятому числу"),
    ("ru", "3-я очередь", "третья очередь"),
    ("ru", "на 3-ю неделю", "на третью неделю"),
    ("ru", "3-е место", "третье место"),
    ("ru", "в 2020-м году", "в две тысячи двадцатом году"),
    ("ru", "Это было в 90-х годах.", "Это было в девяностых годах."),
    ("ru", "Доставка до 2-х часов.", "Доставка до двух часов."),
    ("ru", "Звоните с 9-ти до 18-ти.", "Звоните с девяти до восемнадцати."),
    ("ru", "до 7-ми дней", "до семи дней"),
    ("ru", "с 3-мя друзьями", "с тремя друзьями"),
    ("ru", "с 5-ю друзьями", "с пятью друзьями"),
    ("ru", "Это 5-летний договор.", "Это пятилетний договор."),
    ("ru", "2-комнатная квартира", "двухкомнатная квартира"),
    ("ru", "1-комнатная квартира", "однокомнатная квартира"),
    ("ru", "100-процентная гарантия", "стопроцентная гарантия"),
    ("ru", "24-часовая поддержка", "двадцатичетырёхчасовая поддержка"),
    ("uk", "Живемо на 3-му поверсі.", "Живемо на третьому поверсі."),
    ("uk", "Це 2-й під'їзд.", "Це другий під'їзд."),
    ("uk", "3-я черга", "третя черга"),
    ("uk", "1-го травня", "першого травня"),
    ("uk", "у 90-х роках", "у дев'яностих роках"),
    ("uk", "до 2-х годин", "до двох годин"),
    ("uk", "з 2-ма друзями", "з двома друзями"),
    ("uk", "5-річний контракт", "п'ятирічний контракт"),
    ("uk", "2-кімнатна квартира", "двокімнатна квартира"),
    # a capital after the mark starts something new
    ("sv", "Steg 1:Öppna appen.", "Steg ett :Öppna appen."),
    ("fi", "Vaihe 1:Avaa.", "Vaihe yksi :Avaa."),
]


@pytest.mark.parametrize(("lang", "text", "expected"), CASES)
def test_number_and_its_ending_are_one_word(lang, text, expected):
    assert normalize(text, lang) == expected


@pytest.mark.parametrize("lang", sorted(suffixes.SEPARATORS))
def test_random_endings_never_crash_and_leave_no_digits(lang):
    rng = random.Random(3)
    sep = suffixes.SEPARATORS[lang]
    letters = "аеийлмостуххюяєіїгь" if lang in ("ru", "uk") else "aäeéiklnorstuáő"
    for _ in range(300):
        ending = "".join(rng.choice(letters) for _ in range(rng.randint(1, 6)))
        n = rng.choice([0, 1, 2, 3, 5, 7, 10, 21, 100, 1000, 123456])
        out = normalize(f"x {n}{sep}{ending} y", lang)
        assert not any(ch.isdigit() for ch in out), (lang, n, ending, out)


@pytest.mark.parametrize("day", range(1, 32))
def test_every_hungarian_day_takes_the_possessive_and_the_ending(day):
    base = suffixes.hungarian_day(day)
    assert base.endswith(("a", "e")) and " " not in base
    assert (
        suffixes.hungarian_day(day, "án" if base.endswith("a") else "én")
        == base[:-1] + base[-1].replace("a", "á").replace("e", "é") + "n"
    )
