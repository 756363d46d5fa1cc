"""Dots and dashes in the catalog languages. A day and a month with closing dots ("3.5.", "3. 5.", "03.05."), as Finnish, Danish, Norwegian, Polish and the
West and South Slavic languages write them: a date where nothing says otherwise, else what the other rules read
(`normalize_intl.scan`, `_DECLINES`). Before, "3.5." was "kolme. viisi." and "3.05." stayed in digits."""

from __future__ import annotations

import pytest

from model_server.frontend import normalize


@pytest.mark.parametrize(
    ("code", "text", "expected"),
    [
        (
            "fi",
            "Tapaaminen on 3.5. klo 14.30.",
            "Tapaaminen on kolmas toukokuuta kello neljätoista kolmekymmentä.",
        ),
        ("fi", "Toimitus 12.6. mennessä.", "Toimitus kahdestoista kesäkuuta mennessä."),
        ("fi", "Maanantaina 3.5. toimisto on kiinni.", "Maanantaina kolmas toukokuuta toimisto on kiinni."),
        ("fi", "Juna lähtee 9.5.", "Juna lähtee yhdeksäs toukokuuta."),  # its last dot also ends the sentence
        ("da", "Mødet er den 3.5. kl. 14.30.", "Mødet er den tredje maj klokken fjorten tredive."),
        ("da", "fra 1.6. til 30.6.", "fra første juni til tredivte juni."),
        ("da", "Åbent 1.12.-23.12.", "Åbent første december - treogtyvende december."),
        ("no", "Stengt 24.12. og 25.12.", "Stengt tjuefjerde desember og tjuefemte desember."),
        ("cs", "Schůzka je 3. 5. v 10 hodin.", "Schůzka je třetího května v deset hodin."),
        ("cs", "Od 1.6. do 30.6.", "Od prvního června do třicátého června."),
        ("cs", "V pondělí 3. 5. je zavřeno.", "V pondělí třetího května je zavřeno."),
        ("sk", "Dňa 3.5. bude zatvorené.", "Dňa tretieho mája bude zatvorené."),
        ("hr", "Do 15.6. se prijavite.", "Do petnaestog lipnja se prijavite."),
        ("sl", "Do 15. 6. se prijavite.", "Do petnajstega junija se prijavite."),
        ("sr", "Do 15. 6. prijavite se.", "Do petnaestog juna prijavite se."),
        ("pl", "Spotkanie 3.05. o 10:00.", "Spotkanie trzeciego maja o dziesiątej."),  # Polish pads the month
        ("pl", "Od 1.06. do 30.06.", "Od pierwszego czerwca do trzydziestego czerwca."),
    ],
)
def test_a_day_and_a_month_with_closing_dots_is_a_date(code, text, expected):
    assert normalize(text, code) == expected


@pytest.mark.parametrize(
    ("code", "text", "expected"),
    [
        # a version, a section or a clock time: what the other rules made of it before, unchanged
        ("fi", "versio 2.10. on uusin", "versio kaksi kymmenen. on uusin"),
        ("pl", "Wersja 2.10. jest gotowa.", "Wersja 2.10. jest gotowa."),
        ("fi", "kohta 2.3. sopimuksessa", "kohta kaksi. kolme. sopimuksessa"),
        ("cs", "podle článku 3.5. smlouvy", "podle článku tři. pět. smlouvy"),
        ("fi", "klo 10.12. alkaen", "kello kymmenen kaksitoista. alkaen"),
        ("fi", "Juna lähtee 9.05.", "Juna lähtee yhdeksän nolla viisi."),  # a padded minute: a clock time
        ("cs", "Aktualizujte iOS 17.4. prosím.", "Aktualizujte iOS sedmnáct. čtyři. prosím."),
        # a whole date keeps its year
        (
            "fi",
            "Maksu erääntyy 15.3.2025.",
            "Maksu erääntyy viidestoista maaliskuuta kaksituhatta kaksikymmentäviisi.",
        ),
        ("cs", "Splatnost 15. 3. 2025.", "Splatnost patnáctého března dva tisíce dvacet pět."),
        # a product's name before a day-like number: a version, in every language (it was "the 22nd of April")
        ("fi", "Asenna Ubuntu 22.04 nyt.", "Asenna Ubuntu kaksikymmentäkaksi nolla neljä nyt."),
        ("ru", "Установите Ubuntu 22.04.", "Установите Ubuntu двадцать два ноль четыре."),
    ],
)
def test_what_names_a_version_section_or_time_is_read_as_before(code, text, expected):
    assert normalize(text, code) == expected


def test_a_day_the_month_lacks_is_read_as_before():
    """February has no 31st: the numbers as the other rules read them, as before the rule."""
    assert normalize("Koodi 31.2. ei käy", "fi") == "Koodi kolmekymmentäyksi. kaksi. ei käy"


@pytest.mark.parametrize(
    ("code", "text", "expected"),
    [
        ("ru", "Танк Т-34 в музее.", "Танк Т тридцать четыре в музее."),
        ("ru", "Самолёт Ил-76 и МиГ-29.", "Самолёт Ил семьдесят шесть и МиГ двадцать девять."),
        ("pl", "Samolot F-16 leci.", "Samolot F szesnaście leci."),
        ("uk", "Вакцина від COVID-19.", "Вакцина від COVID дев'ятнадцять."),
        ("ja", "気温は-5°C", "キオンワ マイナス セッシ ゴ ド"),  # no capital, no name: the minus is read
    ],
)
def test_a_name_joined_to_its_number_by_a_dash_keeps_no_pause(code, text, expected):
    """ "Т-34" was "Т- тридцать четыре": the dash was a pause between a name and its number."""
    assert normalize(text, code) == expected
