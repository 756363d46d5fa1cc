"""Spanish, German, French, Italian and Portuguese agent text that a fifth review (300 sentences in new domains:
insurance, utilities, education, telecom, pharmacy, ...) found read wrongly, through `normalize`."""

import pytest

from model_server.frontend.normalize import normalize

CASES = [
    # two decimals are a number in Spanish and French; digit by digit in German and after a zero
    ("es", "Su nota es 8,25 sobre 10.", "Su nota es ocho coma veinticinco sobre diez."),
    ("fr", "Le taux est de 3,25 %.", "Le taux est de trois virgule vingt-cinq pour cent."),
    ("es", "0,05", "cero coma cero cinco"),
    ("de", "3,25", "drei Komma zwei fünf"),
    # the hour is feminine in Spanish
    ("es", "Tengo una reserva a las 21:30.", "Tengo una reserva a las veintiuna y treinta."),
    ("es", "A las 21 h.", "A las veintiuna horas."),
    # gender: feminine medicine forms, -agem plurals; a number that names its noun counts nothing after it
    ("fr", "Prenez 1 gélule et 1 ampoule.", "Prenez une gélule et une ampoule."),
    ("pt", "Recebeu 532 mensagens.", "Recebeu quinhentas e trinta e duas mensagens."),
    ("pt", "O quarto 312 fica aqui.", "O quarto trezentos e doze fica aqui."),
    ("pt", "O voo 1234 parte às 10h.", "O voo mil duzentos e trinta e quatro parte às dez horas."),
    ("es", "La habitación 21 está lista.", "La habitación veintiuno está lista."),
    # marks out of 20, 30, 110, and out of 10 after a grade's word
    ("fr", "Vous avez 14,5/20.", "Vous avez quatorze virgule cinq sur vingt."),
    ("fr", "Votre moyenne est de 12/20.", "Votre moyenne est de douze sur vingt."),
    ("it", "Ha preso 28/30.", "Ha preso ventotto su trenta."),
    ("it", "Voto 110/110.", "Voto centodieci su centodieci."),
    ("pt", "A nota é 16/20.", "A nota é dezasseis em vinte."),
    ("es", "La nota es 7/10.", "La nota es siete sobre diez."),
    ("es", "el 12/10", "el doce de octubre"),
    ("it", "Il 3/10 arriva.", "Il tre ottobre arriva."),
    # long identifiers digit by digit
    (
        "de",
        "Die IMEI lautet 356938035643809.",
        "Die IMEI lautet drei fünf sechs neun drei acht null drei fünf sechs vier drei acht null neun.",
    ),
    ("de", "Ihre Vertragsnr. 123456.", "Ihre Vertragsnummer eins zwei drei vier fünf sechs."),
    # keys
    ("es", "Pulse Ctrl+Alt+Supr.", "Pulse control más Alt más suprimir."),
    ("de", "Drücken Sie Strg+Alt+Entf.", "Drücken Sie Steuerung plus Alt plus Entfernen."),
    ("fr", "Appuyez sur Ctrl+Alt+Suppr.", "Appuyez sur contrôle plus Alt plus suppression."),
    ("it", "Prema Ctrl+Alt+Canc.", "Prema Control più Alt più Canc."),
    ("pt", "Prima Ctrl+Alt+Del.", "Prima Control mais Alt mais Del."),
    # Italian stress on -tré, money with its "e", degrees and ordinals with the degree sign
    ("it", "Il numero è 123.", "Il numero è centoventitré."),
    ("it", "Il menù costa 24,90 € IVA inclusa.", "Il menù costa ventiquattro euro e novanta IVA inclusa."),
    ("pt", "O menu custa 14,50 € com IVA.", "O menu custa catorze euros e cinquenta com IVA."),
    ("it", "Ci sono 30° all'ombra.", "Ci sono trenta gradi all'ombra."),
    ("it", "Il 21° posto.", "Il ventunesimo posto."),
    # square metres, a score after "por"
    ("it", "85 m² con 3 locali", "ottantacinque metri quadrati con tre locali"),
    ("pt", "85 m² e 3 quartos", "oitenta e cinco metros quadrados e três quartos"),
    ("pt", "O Benfica venceu o Porto por 2-1.", "O Benfica venceu o Porto por dois a um."),
    # session 24: a name joined to its number by a dash keeps no pause (it was "COVID- diecinueve"), line speeds
    ("es", "Las normas COVID-19.", "Las normas COVID diecinueve."),
    ("de", "Die A-380 landet.", "Die A dreihundertachtzig landet."),
    ("it", "Il volo AZ-610.", "Il volo AZ seicentodieci."),
    (
        "es",
        "Fibra de 600 Mbps y 1 Gb/s.",
        "Fibra de seiscientos megabits por segundo y un gigabit por segundo.",
    ),
    (
        "de",
        "Tarif mit 1 Gbps und 1 GB Daten.",
        "Tarif mit einem Gigabit pro Sekunde und einem Gigabyte Daten.",
    ),
    ("fr", "Fibre 1 Gbps ou 300 Mbps.", "Fibre un gigabit par seconde ou trois cents mégabits par seconde."),
    # an identifier shown in groups after its cue: each group digit by digit (it was one large number)
    (
        "de",
        "Ihre Steuer-ID lautet 12 345 678 901.",
        "Ihre Steuer-ID lautet eins zwei, drei vier fünf, sechs sieben acht, neun null eins.",
    ),
    (
        "de",
        "Ihre Kundennummer ist 12 345 678.",
        "Ihre Kundennummer ist eins zwei, drei vier fünf, sechs sieben acht.",
    ),
    (
        "es",
        "Su número de pedido es 123 456 789.",
        "Su número de pedido es uno dos tres, cuatro cinco seis, siete ocho nueve.",
    ),
    (
        "de",
        "Die Bevölkerung beträgt 83 000 000.",
        "Die Bevölkerung beträgt dreiundachtzig Millionen.",
    ),  # no cue
]


@pytest.mark.parametrize(("lang", "text", "expected"), CASES)
def test_agent_text_is_read_as_natives_say_it(lang, text, expected):
    assert normalize(text, lang) == expected


# A currency's sign that no amount took is said (it was dropped, and the amount's currency with it); after a
# round million, Romance languages join it with "de" / "di".
@pytest.mark.parametrize(
    ("lang", "text", "expected"),
    [
        ("fr", "Budget : 2 millions €.", "Budget: deux millions d'euros."),
        ("es", "Una inversión de 2 millones €.", "Una inversión de dos millones de euros."),
        ("de", "Ein Umsatz von 2 Mio. €.", "Ein Umsatz von zwei Millionen Euro."),
        ("de", "Alle Preise in €.", "Alle Preise in Euro."),
        ("en", "All prices in $.", "All prices in dollars."),
        ("en", "A 2 million € grant", "A two million euros grant"),
        ("it", "Un investimento di 2 milioni €.", "Un investimento di due milioni di euro."),
        ("pt", "2 milhões €", "dois milhões de euros"),
        ("ca", "2 milions €", "dos milions d'euros"),
        ("nl", "Prijzen in €.", "Prijzen in euro."),
        ("ja", "価格は€です", "カカクワ ユーロ です"),
    ],
)
def test_a_lone_currency_sign_is_said(lang, text, expected):
    assert normalize(text, lang) == expected
