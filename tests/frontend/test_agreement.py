"""Number agreement (model_server/frontend/agreement.py), through the normalizers' public `normalize`:
a number before a noun takes the noun's gender, an ordinal (a date, a year, a Polish hour) the case of its
phrase; Dutch and French clock times as those languages write them."""

import pytest

from model_server.frontend import agreement, languages, ordinals
from model_server.frontend.normalize import normalize

CASES = [
    # Spanish: un / una / veintiún / doscientas, and ordinals
    ("es", "Tengo 1 hermana y 1 perro.", "Tengo una hermana y un perro."),
    ("es", "Reservé 1 habitación para 1 noche.", "Reservé una habitación para una noche."),
    ("es", "Son 21 noches.", "Son veintiuna noches."),
    ("es", "Son 21 días.", "Son veintiún días."),
    ("es", "Cuesta 1 euro.", "Cuesta un euro."),
    ("es", "Cuesta 1 €.", "Cuesta un euro."),
    ("es", "Vinieron 200 personas.", "Vinieron doscientas personas."),
    ("es", "Vinieron 500 clientes.", "Vinieron quinientos clientes."),
    ("es", "En 1 h.", "En una hora."),
    ("es", "Llega en 1 día.", "Llega en un día."),
    ("es", "Tiene 1 problema.", "Tiene un problema."),
    ("es", "El 1º piso, la 2ª planta.", "El primer piso, la segunda planta."),
    ("es", "El 3º día.", "El tercer día."),
    ("es", "Llegó 1 de cada 3.", "Llegó uno de cada tres."),
    ("es", "Cuesta 1,5 kilos.", "Cuesta uno coma cinco kilos."),
    # Catalan: una / dues / dues-centes, ordinals 1r, 2a, 5è
    ("ca", "Tinc 1 germana i 2 cases.", "Tinc una germana i dues cases."),
    ("ca", "Arriba en 2 hores.", "Arriba en dues hores."),
    ("ca", "Són 200 persones.", "Són dues-centes persones."),
    ("ca", "Queden 21 places.", "Queden vint-i-una places."),
    ("ca", "Fa 2 nits.", "Fa dues nits."),
    # masculine nouns in -e, whose plural -es could be an -a noun's ("hores")
    ("ca", "Té 2 missatges i 2 cotxes.", "Té dos missatges i dos cotxes."),
    ("ca", "Són 22 dies.", "Són vint-i-dos dies."),
    ("ca", "Costa 1 €.", "Costa un euro."),
    ("ca", "El 1r pis, la 2a planta.", "El primer pis, la segona planta."),
    ("ca", "la 5a vegada, el 5è pis", "la cinquena vegada, el cinquè pis"),
    ("ca", "Queden 2 de 3.", "Queden dos de tres."),
    # Italian: un / una / uno, ordinals with º and ª
    ("it", "Ho 1 sorella e 1 fratello.", "Ho una sorella e un fratello."),
    ("it", "C'è 1 studente.", "C'è uno studente."),
    ("it", "Aspetti 1 ora.", "Aspetti un ora."),
    ("it", "Costa 1 €.", "Costa un euro."),
    ("it", "Il 1º maggio.", "Il primo maggio."),
    ("it", "la 2ª volta", "la seconda volta"),
    ("it", "Ha 1 problema.", "Ha un problema."),
    ("it", "Resta 1 notte.", "Resta una notte."),
    ("it", "Sono le 11.", "Sono le undici."),
    # Portuguese: um / uma, dois / duas, duzentas, ordinals
    ("pt", "Tenho 1 irmã e 2 casas.", "Tenho uma irmã e duas casas."),
    ("pt", "São 2 noites e 2 dias.", "São duas noites e dois dias."),
    ("pt", "Faltam 22 horas.", "Faltam vinte e duas horas."),
    ("pt", "Vieram 200 pessoas.", "Vieram duzentas pessoas."),
    ("pt", "Custa 1 €.", "Custa um euro."),
    # clock times written with "h": feminine hours, the "h" no longer read as a letter
    ("pt", "Suporte das 9h às 17h30.", "Suporte das nove horas às dezassete horas e trinta."),
    ("pt", "Abre às 1h.", "Abre às uma hora."),
    ("pt", "Às 21h45, tenho 2h livres.", "Às vinte e uma horas e quarenta e cinco, tenho duas horas livres."),
    ("pt", "O 1º lugar, a 2ª vez.", "O primeiro lugar, a segunda vez."),
    ("pt", "Em 2 estações.", "Em duas estações."),
    ("pt", "Há 2 problemas.", "Há dois problemas."),
    # French: une, vingt et une, première, 1 livre
    ("fr", "Dans 1 heure.", "Dans une heure."),
    ("fr", "Dans 21 minutes.", "Dans vingt et une minutes."),
    ("fr", "Pendant 1 semaine.", "Pendant une semaine."),
    ("fr", "Il a 1 chat.", "Il a un chat."),
    ("fr", "Il reste 1 place.", "Il reste une place."),
    ("fr", "Vous avez 1 nouvelle réservation.", "Vous avez une nouvelle réservation."),
    ("fr", "la 1re fois", "la première fois"),
    ("fr", "le 1er mai", "le premier mai"),
    ("fr", "Ça coûte 1 £.", "Ça coûte une livre."),
    ("fr", "En 1 h.", "En une heure."),
    ("fr", "1 sur 5", "un sur cinq"),
    # German: ein / eine, ordinal endings, ein Uhr, years in hundreds
    ("de", "Es dauert 1 Stunde.", "Es dauert eine Stunde."),
    ("de", "Das ist 1 Tag.", "Das ist ein Tag."),
    ("de", "Es dauert 1 Tag.", "Es dauert einen Tag."),
    ("de", "Sie haben noch 1 Termin.", "Sie haben noch einen Termin."),
    ("de", "Ich brauche 1 Zimmer für 1 Nacht.", "Ich brauche ein Zimmer für eine Nacht."),
    ("de", "Mit 1 Kind.", "Mit einem Kind."),
    ("de", "Nach 1 Woche.", "Nach einer Woche."),
    ("de", "Es kostet 1 €.", "Es kostet einen Euro."),
    ("de", "Nur 1 km.", "Nur ein Kilometer."),
    ("de", "In 1 h.", "In einer Stunde."),
    ("de", "Es ist 1 Uhr.", "Es ist ein Uhr."),
    ("de", "um 1:30 Uhr", "um ein Uhr dreißig"),
    ("de", "Sie haben 1 neue Nachricht.", "Sie haben eine neue Nachricht."),
    ("de", "Es gibt 1 Termin.", "Es gibt einen Termin."),
    ("de", "1 Termin ist frei.", "ein Termin ist frei."),
    ("de", "Ich zähle: 1, 2, 3.", "Ich zähle: eins, zwei, drei."),
    ("de", "von 1 bis 3", "von eins bis drei"),
    # a range's first count counts the noun after the second; German says an uninflected "ein" there
    ("de", "Für 1 oder 2 Nächte.", "Für ein oder zwei Nächte."),
    ("de", "In 1 bis 2 Tagen.", "In ein bis zwei Tagen."),
    ("de", "Wählen Sie 1 oder 2.", "Wählen Sie eins oder zwei."),
    ("es", "Por 1 o 2 noches.", "Por una o dos noches."),
    ("es", "De 1 a 3 semanas.", "De una a tres semanas."),
    ("es", "Tarda 1 o 2 días.", "Tarda uno o dos días."),
    ("fr", "Pendant 1 ou 2 nuits.", "Pendant une ou deux nuits."),
    ("pt", "Por 1 ou 2 noites.", "Por uma ou duas noites."),
    ("ca", "Per 1 o 2 nits.", "Per una o dues nits."),
    ("de", "Seit dem 1. Januar.", "Seit dem ersten Januar."),
    ("de", "Am 3. Mai 2024.", "Am dritten Mai zweitausendvierundzwanzig."),
    ("de", "bis zum 3. März", "bis zum dritten März"),
    # a menu's key: the number is no count of the noun after "für" ("ein für Rechnungen" before)
    ("de", "Drücken Sie 1 für Rechnungen.", "Drücken Sie eins für Rechnungen."),
    ("de", "Ich habe 1 neue Nachricht.", "Ich habe eine neue Nachricht."),
    # after "am Dienstag," the date is in the dative with its article; "bis spätestens" takes "zum"
    ("de", "Ihr Termin ist am Dienstag, 5. März.", "Ihr Termin ist am Dienstag, dem fünften März."),
    ("de", "Am Freitag, 7.11. geschlossen.", "Am Freitag, dem siebten November geschlossen."),
    (
        "de",
        "Bitte bis spätestens 15.12.2024 zahlen.",
        "Bitte bis spätestens zum fünfzehnten Dezember zweitausendvierundzwanzig zahlen.",
    ),
    ("de", "Montag, 3. Mai", "Montag, dritter Mai"),  # no preposition: the nominative, as before
    # "bis", "ab" and "seit" take the date's article, which writing leaves out
    ("de", "Geöffnet bis 8.10.", "Geöffnet bis zum achten Oktober."),
    ("de", "bis 3. März", "bis zum dritten März"),
    ("de", "Ab 1.5. geöffnet.", "Ab dem ersten Mai geöffnet."),
    ("de", "Seit 8.10.2025 zu.", "Seit dem achten Oktober zweitausendfünfundzwanzig zu."),
    ("de", "Gültig bis 2025-10-08.", "Gültig bis zum achten Oktober zweitausendfünfundzwanzig."),
    ("de", "Der 2. Mai ist frei.", "Der zweite Mai ist frei."),
    ("de", "Montag, 3. Mai", "Montag, dritter Mai"),
    ("de", "am 03.05.2024", "am dritten Mai zweitausendvierundzwanzig"),
    ("de", "Der 1. Platz.", "Der erste Platz."),
    ("de", "an der 3. Stelle", "an der dritten Stelle"),
    ("de", "Im Jahr 1999.", "Im Jahr neunzehnhundertneunundneunzig."),
    ("de", "am 3. Mai 1999", "am dritten Mai neunzehnhundertneunundneunzig"),
    # Russian: gender of 1 and 2, case after a preposition, dates and years as ordinals
    ("ru", "Я купил 1 книгу и 2 ручки.", "Я купил одну книгу и две ручки."),
    ("ru", "Осталась 1 минута.", "Осталась одна минута."),
    ("ru", "Это займёт 2 недели.", "Это займёт две недели."),
    ("ru", "Это займёт 2 часа.", "Это займёт два часа."),
    ("ru", "Свободно 1 место.", "Свободно одно место."),
    ("ru", "Ждите 1 день.", "Ждите один день."),
    ("ru", "Всего 21 минута.", "Всего двадцать одна минута."),
    ("ru", "Посылка придёт в течение 5 рабочих дней.", "Посылка придёт в течение пяти рабочих дней."),
    ("ru", "от 3 до 5 дней", "от трёх до пяти дней"),
    ("ru", "Стоит 2 ₽.", "Стоит два рубля."),
    ("ru", "Стоит 1 €.", "Стоит одно евро."),
    ("ru", "Встреча 1 мая в 2020 году.", "Встреча первого мая в две тысячи двадцатом году."),
    ("ru", "С 1 января 2024 года.", "С первого января две тысячи двадцать четвёртого года."),
    ("ru", "Сегодня 8 марта.", "Сегодня восьмое марта."),
    ("ru", "1 мая", "первое мая"),
    ("ru", "К 5 мая.", "К пятому мая."),
    ("ru", "Это было в 1999 г.", "Это было в тысяча девятьсот девяносто девятом году."),
    ("ru", "Заказ от 1 марта 2024 г.", "Заказ от первого марта две тысячи двадцать четвёртого года."),
    ("ru", "2024-03-15", "пятнадцатое марта две тысячи двадцать четвёртого года"),
    ("ru", "Итого 1 234 рубля.", "Итого одна тысяча двести тридцать четыре рубля."),
    ("ru", "В 2024 году было 11 заказов.", "В две тысячи двадцать четвёртом году было одиннадцать заказов."),
    # Polish: dates, years and hours are ordinals in the case of their phrase
    ("pl", "Pociąg odjeżdża o 17:20.", "Pociąg odjeżdża o siedemnastej dwadzieścia."),
    ("pl", "Jest 2:05.", "Jest druga zero pięć."),
    ("pl", "o 0:30", "o zero trzydzieści"),
    ("pl", "Dnia 3 maja 2024 r.", "Dnia trzeciego maja dwa tysiące dwudziestego czwartego roku."),
    ("pl", "Dziś jest 3 maja.", "Dziś jest trzeci maja."),
    ("pl", "W 2020 r. Ósmy raz.", "W dwa tysiące dwudziestym roku. Ósmy raz."),  # a capital of any script
    # after a preposition that takes the genitive, 1 takes the genitive's gender and 2 its one genitive
    ("pl", "Od 1 godziny.", "Od jednej godziny."),
    ("pl", "Do 2 dni.", "Do dwóch dni."),
    ("pl", "Z 1 miastem.", "Z jednym miastem."),
    ("cs", "Do 1 týdne.", "Do jednoho týdne."),
    ("cs", "Během 1 hodiny.", "Během jedné hodiny."),
    ("cs", "Do 2 dnů.", "Do dvou dnů."),
    ("sk", "Počas 1 hodiny.", "Počas jednej hodiny."),
    ("sk", "Do 2 dní.", "Do dvoch dní."),
    ("sl", "Do 1 ure.", "Do ene ure."),
    ("sl", "Od 1 dneva.", "Od enega dneva."),
    ("sl", "Do 2 dni.", "Do dveh dni."),
    ("sr", "Posle 1 nedelje.", "Posle jedne nedelje."),
    ("sr", "Do 1 sata.", "Do jednog sata."),
    ("uk", "До 1 години.", "До однієї години."),
    ("uk", "До 2 годин.", "До двох годин."),
    ("uk", "З 1 людиною.", "З один людиною."),
    ("uk", "Від 1 порції.", "Від однієї порції."),
    ("cs", "Od 1 počítače.", "Od jednoho počítače."),
    ("pl", "Z 2 tygodni.", "Z dwóch tygodni."),
    ("pl", "Z 2 dziećmi.", "Z dwoma dziećmi."),
    ("sr", "Do 2 nedelje.", "Do dve nedelje."),
    # Czech and Slovak counts decline word by word after a genitive preposition, amounts of money too
    ("cs", "Bez 1 Kč.", "Bez jedné koruny."),
    ("cs", "Do 42 dnů, od 250 Kč.", "Do čtyřiceti dvou dnů, od dvou set padesáti korun."),
    ("cs", "Do 2000 Kč.", "Do dvou tisíc korun."),
    ("sk", "Vrátime do 10 dní.", "Vrátime do desiatich dní."),
    ("sk", "Do 25 minút, od 1 € do 5 €.", "Do dvadsiatich piatich minút, od jedného eura do piatich eur."),
    ("sk", "Do 21 dní.", "Do dvadsaťjeden dní."),  # a 1 in a one-word compound is not covered
    ("es", "Hay 1 o 2 habitaciones.", "Hay una o dos habitaciones."),
    # a day written with an ordinal dot is an ordinal, in the genitive in cs/sk/sl/sr/hr
    ("cs", "Přijďte 3. května.", "Přijďte třetího května."),
    ("cs", "Do 21. června 2025.", "Do dvacátého prvního června dva tisíce dvacet pět."),
    ("cs", "Termín je 2024-05-03.", "Termín je třetího května dva tisíce dvacet čtyři."),
    ("cs", "Máme 45. května", "Máme čtyřicet pět. května"),  # no day: a number, as before
    ("sk", "Príďte 3. mája.", "Príďte tretieho mája."),
    ("sk", "Od 11. júla.", "Od jedenásteho júla."),
    ("sl", "Pridite 3. maja.", "Pridite tretjega maja."),
    ("sl", "Rok je 2024-05-03.", "Rok je tretjega maja dva tisoč štiriindvajset."),
    ("sr", "Dođite 3. maja.", "Dođite trećeg maja."),
    ("sr", "Do 22. jula.", "Do dvadeset drugog jula."),
    ("hr", "Dođite 3. svibnja.", "Dođite trećeg svibnja."),
    # a month in the nominative takes the nominative ordinal; ranges; a capital starts a sentence
    ("cs", "Je to 3. květen.", "Je to třetí květen."),
    ("sk", "Dnes je 1. máj.", "Dnes je prvý máj."),
    ("sr", "Praznik je 1. maj.", "Praznik je prvi maj."),
    ("sl", "Izid je 3. maj.", "Izid je tretji maj."),
    ("hr", "Dobili smo 3. studeni.", "Dobili smo treći studeni."),
    ("cs", "Od 3. do 5. května.", "Od třetího do pátého května."),
    ("no", "Fra 3. til 5. mai.", "Fra tredje til femte mai."),
    ("cs", "Máme 5. Květen bude.", "Máme pět. Květen bude."),
    ("no", "Den 13. mai.", "Den trettende mai."),  # num2words writes "trettførste"
    # Danish, Norwegian and Dutch years before 2000 in hundreds, after a month or a cue
    ("da", "Født 1985-03-15.", "Født femtende marts nitten hundrede femogfirs."),
    ("da", "Jeg er født i 1985.", "Jeg er født i nitten hundrede femogfirs."),
    ("da", "Det koster 1500 kroner.", "Det koster et tusind fem hundrede kroner."),
    ("no", "Født i 1985.", "Født i nitten hundre og åttifem."),
    ("nl", "Geboren op 15 maart 1985.", "Geboren op vijftien maart negentienhonderdvijfentachtig."),
    ("nl", "Dat kost 1985 euro.", "Dat kost duizendnegenhonderdvijfentachtig euro."),
    ("nl", "Sinds 2024.", "Sinds tweeduizendvierentwintig."),
    ("da", "Ring til 1813.", "Ring til et tusind otte hundrede og tretten."),  # a hotline, no year
    ("da", "Sendes i 1799 København.", "Sendes i et tusind syv hundrede og nioghalvfems København."),
    ("nl", "Bel voor 1700 uur.", "Bel voor duizendzevenhonderd uur."),
    ("fi", "Tule 3. toukokuuta.", "Tule kolmas toukokuuta."),
    ("da", "Kom den 31. maj.", "Kom den enogtredivte maj."),
    ("no", "Kom 3. mai.", "Kom tredje mai."),
    ("no", "Fristen er 2024-05-03.", "Fristen er tredje mai to tusen og tjuefire."),
    ("pl", "W 2024 roku.", "W dwa tysiące dwudziestym czwartym roku."),
    ("pl", "Od 2020 r. do dziś.", "Od dwa tysiące dwudziestego roku do dziś."),
    ("pl", "2024-03-15", "piętnastego marca dwa tysiące dwudziestego czwartego roku"),
    ("pl", "Zapłać 5 zł.", "Zapłać pięć złotych."),
    ("pl", "Kosztuje 150 złotych.", "Kosztuje sto pięćdziesiąt złotych."),  # no "zł" inside "złotych"
    # German: a second conjunct takes the first one's case
    ("de", "Ich komme mit einem Kind und 1 Hund.", "Ich komme mit einem Kind und einem Hund."),
    ("de", "Es gibt 1 Tisch und 1 Stuhl.", "Es gibt einen Tisch und einen Stuhl."),
    ("de", "Ein Mann und 1 Frau kamen.", "Ein Mann und eine Frau kamen."),
    ("de", "Der Hund und 1 Katze schlafen.", "Der Hund und eine Katze schlafen."),
    ("de", "Ich wohne in Berlin und 1 Freund wohnt hier.", "Ich wohne in Berlin und ein Freund wohnt hier."),
    ("de", "Ich habe Zeit und 1 Freund kommt.", "Ich habe Zeit und ein Freund kommt."),
    ("de", "mit einem kleinen Kind und 1 Hund", "mit einem kleinen Kind und einem Hund"),
    # Polish counts: jeden / jedna / jedno / jedną, dwa / dwie
    ("pl", "Mam 1 siostrę i 2 godziny.", "Mam jedną siostrę i dwie godziny."),
    ("pl", "Została 1 godzina.", "Została jedna godzina."),
    ("pl", "Wolne jest 1 miejsce.", "Wolne jest jedno miejsce."),
    ("pl", "Czekaj 1 dzień albo 2 dni.", "Czekaj jeden dzień albo dwa dni."),
    ("pl", "Przyjdą 22 osoby.", "Przyjdą dwadzieścia dwie osoby."),
    ("pl", "Przyszło 21 osób.", "Przyszło dwadzieścia jeden osób."),
    ("pl", "Jest 1 wiadomość i 2 wiadomości.", "Jest jedna wiadomość i dwie wiadomości."),
    ("pl", "Kosztuje 1 zł lub 2 zł.", "Kosztuje jeden złoty lub dwa złote."),
    ("pl", "Kosztuje 1 €.", "Kosztuje jedno euro."),
    ("pl", "Mam 2 pokoje.", "Mam dwa pokoje."),
    ("pl", "Wygrał 1 z 3.", "Wygrał jeden z trzy."),  # the genitive of "z trzech" is not covered
    ("pl", "Mam 1 kota.", "Mam jednego kota."),  # a masculine animate accusative, not a feminine -a
    ("pl", "Do 1 roku.", "Do jednego roku."),  # after a genitive preposition: num2words' form, no feminine
    # an adjective between the count and its noun: the noun says the gender ("nowe" fits every gender)
    ("pl", "Ma pan 2 nowe wiadomości.", "Ma pan dwie nowe wiadomości."),
    ("pl", "Mam 2 wolne pokoje i 3 nowe oferty.", "Mam dwa wolne pokoje i trzy nowe oferty."),
    ("pl", "Z 2 nowymi osobami.", "Z dwiema nowymi osobami."),
    ("pl", "Mam 2 linie.", "Mam dwie linie."),  # "-ie" is a noun's ending too: not read as an adjective
    # Czech counts: jeden / jedna / jedno / jednu, dva / dvě
    ("cs", "Mám 1 sestru a 2 hodiny.", "Mám jednu sestru a dvě hodiny."),
    ("cs", "Zbývá 1 minuta.", "Zbývá jedna minuta."),
    ("cs", "Trvá to 1 den nebo 2 dny.", "Trvá to jeden den nebo dva dny."),
    ("cs", "Máme 1 auto a 2 auta.", "Máme jedno auto a dvě auta."),
    ("cs", "Přijde za 22 minuty.", "Přijde za dvacet dvě minuty."),
    ("cs", "Stojí 1 Kč.", "Stojí jedna koruna."),
    ("cs", "Stojí 2 Kč.", "Stojí dvě koruny."),
    ("cs", "Stojí 2 €.", "Stojí dvě eura."),
    ("cs", "Je to 1 noc.", "Je to jedna noc."),
    ("cs", "Počítám 1 a 2.", "Počítám jedna a dva."),
    ("cs", "Za 42 dní.", "Za čtyřicet dva dní."),
    ("cs", "Mám 1 syna a 2 děti.", "Mám jednoho syna a dvě děti."),
    ("cs", "Během 1 roku.", "Během jednoho roku."),  # after a genitive preposition: num2words' form
    ("cs", "Zbývá 21 minut.", "Zbývá dvacet jedna minut."),  # 1 inflects only alone
    ("cs", "Máte 2 nové zprávy a 1 nové auto.", "Máte dvě nové zprávy a jedno nové auto."),
    ("cs", "Zbývá 1 volná minuta.", "Zbývá jedna volná minuta."),
    # Slovak counts: jeden / jedna / jedno / jednu, dva / dve
    ("sk", "Mám 1 hodinu a 2 minúty.", "Mám jednu hodinu a dve minúty."),
    ("sk", "Zostáva 1 minúta.", "Zostáva jedna minúta."),
    ("sk", "Trvá to 1 deň alebo 2 dni.", "Trvá to jeden deň alebo dva dni."),
    ("sk", "Máme 1 auto a 2 autá.", "Máme jedno auto a dve autá."),
    ("sk", "Stojí 1 € alebo 2 €.", "Stojí jedno euro alebo dve eurá."),
    ("sk", "Je to 1 noc.", "Je to jedna noc."),
    ("sk", "Prídu 2 osoby.", "Prídu dve osoby."),
    ("sk", "Bolo ich 21.", "Bolo ich dvadsaťjeden."),
    ("sk", "Sú 2 miesta.", "Sú dve miesta."),
    ("sk", "Máte 2 nové správy.", "Máte dve nové správy."),
    # Croatian counts: Serbian's rules in ijekavian forms (its numbers were digits for espeak-ng: "dva nove")
    ("hr", "Imate 2 nove poruke.", "Imate dvije nove poruke."),
    ("hr", "Imam 1 sestru i 2 brata.", "Imam jednu sestru i dva brata."),
    ("hr", "Poslije 1 tjedna, za 22 minute.", "Poslije jednog tjedna, za dvadeset dvije minute."),
    (
        "hr",
        "Košta 1000 €, 2000 € ili 250 €.",
        "Košta tisuću eura, dvije tisuće eura ili dvjesto pedeset eura.",
    ),
    ("hr", "Polijeće u 14:20.", "Polijeće u četrnaest dvadeset."),
    ("sk", "Stojí 2 eurá mesačne.", "Stojí dve eurá mesačne."),  # "-á" is a noun's ending too
    # Slovenian counts: en / ena / eno, dva / dve (the dual's -i)
    ("sl", "Imam 1 uro in 2 minuti.", "Imam eno uro in dve minuti."),
    ("sl", "Počakajte 1 dan ali 2 dneva.", "Počakajte en dan ali dva dneva."),
    ("sl", "Stane 1 € ali 2 €.", "Stane en evro ali dva evra."),
    ("sl", "Prosto je 1 mesto.", "Prosto je eno mesto."),
    ("sl", "Ostala je 1 minuta.", "Ostala je ena minuta."),
    ("sl", "Imamo 2 mesti.", "Imamo dve mesti."),
    ("sl", "Še 21 dni.", "Še enaindvajset dni."),
    ("sl", "Štejem 1 in 2.", "Štejem ena in dve."),
    ("sl", "Imam 1 brata.", "Imam enega brata."),
    ("sl", "Ostala je 1 noč.", "Ostala je ena noč."),
    ("sl", "Čez 2 dni.", "Čez dva dni."),
    # Serbian counts: jedan / jedna / jedno / jednu, dva / dve (the paucal's -e), 21 and 22 too
    ("sr", "Imam 1 sat i 2 minute.", "Imam jedan sat i dve minute."),
    ("sr", "Ostala je 1 minuta.", "Ostala je jedna minuta."),
    ("sr", "Još 21 minuta.", "Još dvadeset jedna minuta."),
    ("sr", "Dolaze 22 osobe.", "Dolaze dvadeset dve osobe."),
    ("sr", "Čekajte 2 dana.", "Čekajte dva dana."),
    ("sr", "Košta 1 € ili 2 €.", "Košta jedan evro ili dva evra."),
    ("sr", "Za 1 minutu.", "Za jednu minutu."),
    ("sr", "Slobodno je 1 mesto.", "Slobodno je jedno mesto."),
    ("sr", "Imam 1 brata.", "Imam jednog brata."),
    ("sr", "Došla su 2 kolege.", "Došla su dva kolege."),
    # Ukrainian counts: один / одна / одне / одну, два / дві, 21 as 1
    ("uk", "Залишилась 1 хвилина.", "Залишилась одна хвилина."),
    ("uk", "Зачекайте 2 години.", "Зачекайте дві години."),
    ("uk", "У вас 1 замовлення.", "У вас одне замовлення."),
    ("uk", "Це коштує 2 ₴.", "Це коштує дві гривні."),
    ("uk", "Ще 21 хвилина.", "Ще двадцять одна хвилина."),
    ("uk", "Минуло 1 день і 2 роки.", "Минуло один день і два роки."),
    ("uk", "Коштує 1 €.", "Коштує одне євро."),
    ("uk", "Приїде за 1 годину.", "Приїде за одну годину."),
    ("uk", "Залишилось 11 хвилин.", "Залишилось одинадцять хвилин."),
    ("uk", "Вільне 1 місце.", "Вільне одне місце."),
    ("uk", "Протягом 1 дня.", "Протягом одного дня."),  # after a genitive preposition: num2words' form
    ("uk", "Маю 1 сина.", "Маю одного сина."),
    # Ukrainian dates, years and hours: ordinals in the case of the phrase (they were cardinals: "до три
    # грудня", "о вісімнадцять сорок п'ять")
    ("uk", "До 3 грудня.", "До третього грудня."),
    ("uk", "Сьогодні 3 грудня.", "Сьогодні третє грудня."),
    (
        "uk",
        "Зустріч 03.12.2024 о 10:00.",
        "Зустріч третього грудня дві тисячі двадцять четвертого року о десятій.",
    ),
    (
        "uk",
        "Доставка 3 грудня 2024 р. Потім",
        "Доставка третього грудня дві тисячі двадцять четвертого року. Потім",
    ),
    ("uk", "У 2024 році ціни зросли.", "У дві тисячі двадцять четвертому році ціни зросли."),
    ("uk", "У 2024 р. ми відкрилися.", "У дві тисячі двадцять четвертому році ми відкрилися."),
    ("uk", "З 2020 р. працюємо.", "З дві тисячі двадцятого року працюємо."),
    ("uk", "Це 2024 рік.", "Це дві тисячі двадцять четвертий рік."),
    ("uk", "Працюємо з 9:00 до 18:00.", "Працюємо з дев'ятої до вісімнадцятої."),
    ("uk", "Потяг о 18:45.", "Потяг о вісімнадцятій сорок п'ять."),
    ("uk", "Зараз 17:20.", "Зараз сімнадцята двадцять."),
    ("uk", "Рейс 21:05.", "Рейс двадцять один п'ять."),  # no case cue: the hour stays a cardinal
    ("pl", "Dnia 03.12.2024 roku.", "Dnia trzeciego grudnia dwa tysiące dwudziestego czwartego roku."),
    # Dutch and French clock times as they are written there
    ("nl", "Om 14.30 uur.", "Om veertien uur dertig."),
    ("nl", "vanaf 8:30", "vanaf acht uur dertig"),
    ("nl", "Om 9:00 uur.", "Om negen uur."),
    ("nl", "Het kost 14.300 euro.", "Het kost veertienduizenddriehonderd euro."),
    ("fr", "Le rendez-vous est à 14h30.", "Le rendez-vous est à quatorze heures trente."),
    ("fr", "à 9 h 05", "à neuf heures cinq"),
    ("fr", "Il est 1h15.", "Il est une heure quinze."),
    # Swedish, Danish, Norwegian "one" in its noun's gender; Romanian one and two; Hungarian two before a noun
    ("sv", "Inom 1 vecka, 1 timme och 1 år.", "Inom en vecka, en timme och ett år."),
    ("sv", "Du har 1 meddelande.", "Du har ett meddelande."),
    ("sv", "1 av 3 kunder", "ett av tre kunder"),  # no noun after it: num2words' form
    ("da", "Om 1 dag eller 1 minut.", "Om en dag eller et minut."),
    ("no", "Om 1 dag eller 1 år.", "Om en dag eller et år."),
    ("ro", "Peste 1 zi, 2 ore și 2 ani.", "Peste o zi, două ore și doi ani."),
    ("ro", "Costă 2 lei pentru 1 an, de 2 ori.", "Costă doi lei pentru un an, de două ori."),
    ("ro", "Peste 12 luni.", "Peste douăsprezece luni."),
    ("hu", "2 alma és 12 óra.", "két alma és tizenkét óra."),
]


@pytest.mark.parametrize(("lang", "text", "expected"), CASES)
def test_number_agrees_with_its_noun_and_phrase(lang, text, expected):
    assert normalize(text, lang) == expected


def test_every_inflecting_language_has_cases():
    for lang in ("es", "ca", "it", "pt", "fr", "de", "ru", "pl", "cs", "sk", "sl", "sr", "uk"):
        assert sum(1 for case in CASES if case[0] == lang) >= 8, lang


@pytest.mark.parametrize(
    ("word", "lang", "gender"),
    [
        ("noches", "es", "f"),
        ("días", "es", "m"),
        ("veces", "es", "f"),
        ("habitación", "es", "f"),
        ("problema", "it", "m"),
        ("notte", "it", "f"),
        ("estações", "pt", "f"),
        ("dias", "pt", "m"),
        ("hores", "ca", "f"),
        ("dies", "ca", "m"),
        ("heures", "fr", "f"),
        ("musée", "fr", "m"),
        ("Stunde", "de", "f"),
        ("Termin", "de", "m"),
        ("Mädchen", "de", "n"),
        ("Zimmer", "de", "n"),
        ("stunde", "de", None),  # lower case: no German noun
        ("42", "es", None),
        ("", "fr", None),
        ("house", "en", None),
    ],
)
def test_noun_gender(word, lang, gender):
    assert agreement.noun_gender(word, lang) == gender


@pytest.mark.parametrize(
    ("word", "lang", "one"),
    [
        ("horas", "es", "hora"),
        ("clases", "es", "clase"),
        ("calles", "es", "calle"),
        ("meses", "es", "mes"),
        ("habitaciones", "es", "habitación"),
        ("veces", "es", "vez"),
        ("ciudades", "es", "ciudad"),
        ("dólares", "es", "dólar"),
        ("mujeres", "es", "mujer"),
        ("hora", "es", "hora"),  # no plural
        ("heures", "fr", "heure"),
        ("journaux", "fr", "journal"),
        ("mois", "fr", "mois"),  # the same in the singular
        ("fois", "fr", "fois"),
        ("hours", "en", "hours"),  # English and German are left alone
        ("Stunden", "de", "Stunden"),
    ],
)
def test_singular(word, lang, one):
    assert agreement.singular(word, lang) == one


def test_count_form_of_nothing_is_nothing():
    assert agreement.count_form("", 1, "kot", "pl") == ""


def test_agreement_never_changes_english_or_decimals():
    assert normalize("1 night and 21 days", "en") == "one night and twenty one days"
    assert normalize("1,5 Stunden", "de") == "eins Komma fünf Stunden"


@pytest.mark.parametrize("lang", sorted(ordinals.DAY_ORDINAL_LANGUAGES))
def test_day_ordinals_are_distinct_words(lang):
    days = [ordinals.day_ordinal(d, lang) for d in range(1, 32)]
    assert len(set(days)) == 31
    assert all(w.isalpha() for day in days for w in day.split())


@pytest.mark.parametrize(("day", "lang"), [(0, "cs"), (32, "fi"), (3, "en"), (3, "pl")])
def test_day_ordinal_rejects_what_it_cannot_say(day, lang):
    with pytest.raises(ValueError, match="no day ordinal"):
        ordinals.day_ordinal(day, lang)


@pytest.mark.parametrize("lang", sorted(ordinals.DAY_ORDINAL_LANGUAGES))
def test_every_day_of_every_month_is_an_ordinal(lang):
    """Each day 1-31 before each ISO month is said in words, and so is an impossible day (as a number)."""
    for month in range(1, 13):
        spoken = normalize(f"2024-{month:02d}-01", lang)
        month_name = spoken.split()[1]
        for day in (1, 2, 3, 11, 22, 31):
            out = normalize(f"{day}. {month_name}", lang)
            assert not any(ch.isdigit() for ch in out) and "." not in out, (lang, day, month_name, out)
        if languages.get(lang).num2words:  # Croatian numbers are left to espeak-ng
            assert not any(ch.isdigit() for ch in normalize(f"45. {month_name}", lang))
