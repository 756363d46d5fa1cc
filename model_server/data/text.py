"""Seeded generator of varied training sentences for en, es, de and fr.

Source and license: every word list and template below was written for this project (no external corpus),
so the generated text carries the project's own license. English gets a small phrase-structure grammar
(noun phrases with determiners and adjectives, many verb frames, tenses, clauses joined by conjunctions)
plus dedicated generators for the things a TTS frontend must normalize: numbers, ordinals, dates, times,
currency, percentages, phone numbers, abbreviations, questions, exclamations and comma lists. Variety
matters more than size: a model trained on few templates fails on out-of-domain text.

Sentences equal to a held-out evaluation sentence (``heldout_en.txt``, and for es/de/fr also
``heldout/<code>.txt``; compared case- and punctuation-insensitively) are never produced.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

HELDOUT_PATH = Path(__file__).with_name("heldout_en.txt")
HELDOUT_DIR = Path(__file__).with_name("heldout")  # <code>.txt: the other languages' held-out sentences
# <code>.txt: a second block, judged once after a round's pick among checkpoints (which reads the first block)
CONFIRM_DIR = HELDOUT_DIR / "confirm"
LANGUAGES = ("en", "es", "de", "fr")


def canonical(sentence: str) -> str:
    """Case- and punctuation-insensitive key used to compare sentences."""
    return " ".join(re.sub(r"[^\w\s]", " ", sentence.lower()).split())


def read_sentences(path: Path) -> list[str]:
    """The sentences of a held-out file: one a line, blank lines and '#' comment lines skipped."""
    lines = [ln.strip() for ln in path.read_text(encoding="utf-8").splitlines()]
    return [ln for ln in lines if ln and not ln.startswith("#")]


def load_heldout(path: Path | None = None) -> set[str]:
    """Canonical keys of the held-out sentences (`HELDOUT_PATH`, read at call time; '#' lines are comments)."""
    return {canonical(s) for s in read_sentences(path or HELDOUT_PATH)}


def confirm_keys(language: str) -> set[str]:
    """Canonical keys of `language`'s confirmation sentences (`CONFIRM_DIR/<code>.txt`; none without one).

    Training text skips them as it skips the held-out sentences. Only whole sentences: their words stay in the
    word sentences' draw (`text_words`), since banning them would redraw every dataset's text for its seed."""
    path = CONFIRM_DIR / f"{language}.txt"
    return {canonical(s) for s in read_sentences(path)} if path.is_file() else set()


def _w(s: str) -> list[str]:
    return s.split()


def _p(s: str) -> list[str]:
    return [x.strip() for x in s.split("|") if x.strip()]


# ------------------------------------------------------------------------------------------ English
EN_FIRST = _w(
    "Anna Ben Carla David Emma Frank Grace Henry Isabel Jack Karen Leo Maria Nathan Olivia Peter Quinn "
    "Rachel Samuel Tina Victor Wendy Xavier Yasmin Zoe Adam Bella Caleb Diana Ethan Fiona George Hannah "
    "Ivan Julia Kevin Laura Martin Nina Oscar Paula Ruth Simon Tara Umar Vera William Amelia Brandon "
    "Chloe Daniel Elena Felix Gloria Hugo Irene James Kate Lucas Mia Noah Omar Priya Ravi Sofia Thomas "
    "Ursula Vincent Walter Yuki Aaron Beatrice Connor Dorothy Edward Freya Gabriel Helen Isaac Jasmine "
    "Kenji Lily Marcus Naomi Owen Patricia Roberto Sarah Theo Valerie Wesley Zachary Ahmed Bianca Mateo"
)
EN_LAST = _w(
    "Smith Johnson Brown Taylor Miller Wilson Moore Anderson Thomas Jackson White Harris Martin Thompson "
    "Garcia Martinez Robinson Clark Lewis Walker Hall Allen Young King Wright Scott Green Baker Adams "
    "Nelson Hill Campbell Mitchell Roberts Carter Phillips Evans Turner Parker Collins Edwards Stewart "
    "Morris Murphy Cook Rogers Morgan Cooper Peterson Reed Bailey Kelly Howard Ward Cox Richardson Wood "
    "Watson Brooks Bennett Gray Hughes Price Sanders Patel Nguyen Kim Chen Okafor Novak Larsen Rossi"
)
EN_CITIES = _p(
    "London|Paris|Berlin|Madrid|Rome|Tokyo|Chicago|Boston|Seattle|Denver|Dallas|Houston|Toronto|"
    "Sydney|Dublin|Lisbon|Vienna|Prague|Oslo|Stockholm|Helsinki|Warsaw|Athens|Cairo|Nairobi|Lagos|"
    "Mumbai|Delhi|Singapore|Seoul|Shanghai|Montreal|Vancouver|Phoenix|Atlanta|Miami|Portland|Austin|"
    "Edinburgh|Manchester|Amsterdam|Brussels|Zurich|Geneva|Munich|Hamburg|Barcelona|Valencia|Naples|"
    "Istanbul|Mexico City|Buenos Aires|Lima|Santiago|New York|San Francisco|Los Angeles|Cape Town|"
    "Melbourne|Auckland|Reykjavik|Copenhagen|Budapest|Krakow|Marseille|Lyon|Osaka|Bangkok|Hanoi|Manila"
)
EN_COUNTRIES = _p(
    "France|Spain|Germany|Italy|Japan|Canada|Brazil|Mexico|India|China|Kenya|Egypt|Norway|Sweden|"
    "Poland|Greece|Ireland|Portugal|Argentina|Chile|Peru|Australia|New Zealand|Iceland|Vietnam|Turkey"
)
EN_NOUNS = _w(
    "book table window door car bicycle train bus plane ship letter message phone computer laptop "
    "screen keyboard garden kitchen bedroom office school hospital library museum station airport "
    "bridge river mountain forest beach island village city street road market shop bakery bank "
    "ticket passport suitcase umbrella jacket coat shirt hat shoe glove scarf watch clock lamp chair "
    "sofa bottle glass cup plate spoon knife fork bowl sandwich apple orange banana lemon tomato potato "
    "carrot onion bread cheese butter coffee tea juice soup salad cake cookie pizza dinner breakfast "
    "lunch meeting lecture concert movie song album painting picture photo camera map guide story "
    "report document contract invoice budget plan project problem question answer idea decision "
    "dog cat horse bird rabbit fish turtle lion tiger elephant monkey bear wolf fox owl eagle "
    "teacher doctor nurse farmer driver pilot engineer lawyer artist singer writer student neighbor "
    "friend cousin uncle aunt brother sister child baby customer manager clerk guard chef baker waiter "
    "engine battery cable signal network server update password account website email folder file "
    "storm cloud rain snow wind sunrise sunset season summer winter spring autumn weekend holiday "
    "festival parade game match team player coach score goal race prize medal trophy island lake "
    "valley desert canyon harbor tower castle palace temple church garage basement attic balcony "
    "fence gate path lawn tree flower rose tulip grass leaf branch stone rock sand shell pearl "
    "violin piano guitar drum trumpet flute radio speaker microphone candle blanket pillow mirror "
    "recipe menu receipt coupon wallet key lock drawer shelf box basket bag envelope stamp parcel"
)
EN_PLURAL_IRREG = {
    "child": "children", "knife": "knives", "shelf": "shelves", "leaf": "leaves", "wolf": "wolves",
    "fish": "fish", "person": "people", "man": "men", "woman": "women", "mouse": "mice",
}
EN_ADJ = _w(
    "big small old new young tall short long wide narrow heavy light dark bright warm cold hot cool "
    "quiet loud soft hard smooth rough clean dirty fresh stale sweet sour bitter salty spicy tasty "
    "happy sad angry calm brave shy kind rude polite clever silly funny serious strange familiar "
    "famous local foreign ancient modern simple complex cheap expensive rare common empty full busy "
    "lazy careful honest gentle proud lucky tired hungry thirsty sleepy curious nervous excited "
    "beautiful ugly pretty lovely elegant plain fancy shiny dusty wooden metal plastic golden silver "
    "red blue green yellow purple orange brown gray white black pink striped tiny huge enormous "
    "rapid slow sudden gradual early late urgent important useful useless private public secret "
    "broken fixed open closed crowded lonely distant nearby northern southern eastern western"
)
EN_ADV = _w(
    "quickly slowly carefully quietly loudly happily sadly suddenly finally usually often rarely "
    "always never sometimes already recently soon later today tonight yesterday tomorrow together "
    "easily barely nearly almost clearly gently politely honestly luckily eagerly calmly patiently"
)
# (base, third person, past, past participle, ing) for transitive verbs
EN_VERBS_T = [
    tuple(v.split(","))
    for v in _w(
        "buy,buys,bought,bought,buying sell,sells,sold,sold,selling find,finds,found,found,finding "
        "lose,loses,lost,lost,losing carry,carries,carried,carried,carrying open,opens,opened,opened,opening "
        "close,closes,closed,closed,closing paint,paints,painted,painted,painting "
        "clean,cleans,cleaned,cleaned,cleaning fix,fixes,fixed,fixed,fixing build,builds,built,built,building "
        "read,reads,read,read,reading write,writes,wrote,written,writing send,sends,sent,sent,sending "
        "bring,brings,brought,brought,bringing take,takes,took,taken,taking see,sees,saw,seen,seeing "
        "watch,watches,watched,watched,watching hear,hears,heard,heard,hearing "
        "order,orders,ordered,ordered,ordering cook,cooks,cooked,cooked,cooking bake,bakes,baked,baked,baking "
        "wash,washes,washed,washed,washing borrow,borrows,borrowed,borrowed,borrowing "
        "lend,lends,lent,lent,lending check,checks,checked,checked,checking "
        "deliver,delivers,delivered,delivered,delivering describe,describes,described,described,describing "
        "explain,explains,explained,explained,explaining forget,forgets,forgot,forgotten,forgetting "
        "remember,remembers,remembered,remembered,remembering hide,hides,hid,hidden,hiding "
        "follow,follows,followed,followed,following visit,visits,visited,visited,visiting "
        "move,moves,moved,moved,moving drop,drops,dropped,dropped,dropping pick,picks,picked,picked,picking "
        "share,shares,shared,shared,sharing print,prints,printed,printed,printing "
        "sign,signs,signed,signed,signing count,counts,counted,counted,counting "
        "catch,catches,caught,caught,catching throw,throws,threw,thrown,throwing "
        "draw,draws,drew,drawn,drawing choose,chooses,chose,chosen,choosing "
        "answer,answers,answered,answered,answering photograph,photographs,photographed,photographed,"
        "photographing repair,repairs,repaired,repaired,repairing replace,replaces,replaced,replaced,replacing "
        "prepare,prepares,prepared,prepared,preparing review,reviews,reviewed,reviewed,reviewing "
        "measure,measures,measured,measured,measuring pack,packs,packed,packed,packing "
        "weigh,weighs,weighed,weighed,weighing water,waters,watered,watered,watering "
        "feed,feeds,fed,fed,feeding recognize,recognizes,recognized,recognized,recognizing "
        "organize,organizes,organized,organized,organizing rent,rents,rented,rented,renting"
    )
]
# intransitive verbs
EN_VERBS_I = [
    tuple(v.split(","))
    for v in _w(
        "arrive,arrives,arrived,arrived,arriving leave,leaves,left,left,leaving sleep,sleeps,slept,slept,sleeping "
        "laugh,laughs,laughed,laughed,laughing smile,smiles,smiled,smiled,smiling wait,waits,waited,waited,waiting "
        "run,runs,ran,run,running walk,walks,walked,walked,walking swim,swims,swam,swum,swimming "
        "dance,dances,danced,danced,dancing sing,sings,sang,sung,singing travel,travels,traveled,traveled,"
        "traveling work,works,worked,worked,working rest,rests,rested,rested,resting "
        "agree,agrees,agreed,agreed,agreeing complain,complains,complained,complained,complaining "
        "disappear,disappears,disappeared,disappeared,disappearing shout,shouts,shouted,shouted,shouting "
        "whisper,whispers,whispered,whispered,whispering climb,climbs,climbed,climbed,climbing "
        "cry,cries,cried,cried,crying hesitate,hesitates,hesitated,hesitated,hesitating "
        "return,returns,returned,returned,returning relax,relaxes,relaxed,relaxed,relaxing "
        "improve,improves,improved,improved,improving fall,falls,fell,fallen,falling "
        "grow,grows,grew,grown,growing begin,begins,began,begun,beginning"
    )
]
EN_PREP_PLACE = _p(
    "in the kitchen|at the station|near the river|behind the old church|under the bridge|on the roof|"
    "next to the bakery|across the street|inside the museum|outside the hospital|at the airport|"
    "by the lake|in the garden|on the second floor|in the back seat|at the corner shop|in the village|"
    "along the coast|around the corner|between the two towers|at the top of the hill|in the basement|"
    "on the balcony|downtown|upstairs|at home|at work|at school|on the train|on the beach"
)
EN_TIME_PHRASE = _p(
    "this morning|last night|every Tuesday|after lunch|before dinner|on Sunday afternoon|next week|"
    "in the spring|during the storm|at dawn|at midnight|two days ago|once a month|all summer|"
    "since Monday|until Friday|by tomorrow evening|over the weekend|early in the morning|later today|"
    "right now|in a few minutes|last year|a long time ago|every other day|at the end of the month"
)
EN_CONJ = _w("and but so because although while when unless after before since")
EN_INTERJ = _p("Wow|Oh no|Great|Amazing|Hooray|Oops|Well|Look|Listen|Wait|Hey|Oh dear|Fantastic|Brilliant")
EN_ABBREV_PEOPLE = _w("Dr. Mr. Mrs. Ms. Prof.")
EN_STREETS = _p("St.|Ave.|Road|Lane|Blvd.|Drive|Street|Avenue|Way|Square")
EN_MONTHS = _w("January February March April May June July August September October November December")
EN_DAYS = _w("Monday Tuesday Wednesday Thursday Friday Saturday Sunday")
EN_UNITS = _p("kilometers|miles|meters|kilograms|pounds|liters|minutes|hours|days|weeks|degrees|people|pages")
EN_MODALS = _w("can could should would might must will")
EN_PRONOUNS = [("I", "me", "my", 1), ("you", "you", "your", 2), ("he", "him", "his", 3),
               ("she", "her", "her", 3), ("we", "us", "our", 2), ("they", "them", "their", 2)]
EN_QWORDS = _w("Where When Why How")
EN_OPINION = _p(
    "I think|I believe|It seems that|Everyone knows that|Apparently|To be honest|In my opinion|"
    "Strangely enough|As you know|Believe it or not|Of course|Frankly|Luckily|Unfortunately"
)
EN_REPLIES = _p(
    "Yes, of course.|No, thank you.|Sure, why not?|I'm not sure.|That sounds great!|Let me check.|"
    "See you soon!|Good luck!|Happy birthday!|Take care.|Not at all.|Absolutely!|Maybe later.|"
    "Excuse me, is this seat taken?|Could you repeat that, please?|Thanks a lot!|Sorry, I'm late."
)


def _plural(noun: str) -> str:
    if noun in EN_PLURAL_IRREG:
        return EN_PLURAL_IRREG[noun]
    if noun.endswith(("s", "sh", "ch", "x", "z")):
        return noun + "es"
    if noun.endswith("y") and noun[-2] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def _ordinal_suffix(n: int) -> str:
    if 10 <= n % 100 <= 20:
        return "th"
    return {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")


def _article(word: str) -> str:
    return "an" if word[0].lower() in "aeio" else "a"


class EnglishGenerator:
    """Phrase-structure grammar plus normalization-heavy generators for English."""

    def __init__(self, rng: random.Random):
        self.r = rng

    def c(self, seq):
        return self.r.choice(seq)

    # --- phrases
    def name(self) -> str:
        r = self.r.random()
        if r < 0.5:
            return self.c(EN_FIRST)
        if r < 0.8:
            return f"{self.c(EN_FIRST)} {self.c(EN_LAST)}"
        return f"{self.c(EN_ABBREV_PEOPLE)} {self.c(EN_LAST)}"

    def np(self, plural: bool | None = None) -> tuple[str, bool]:
        """Noun phrase; returns (text, is_plural)."""
        if plural is None:
            plural = self.r.random() < 0.3
        noun = self.c(EN_NOUNS)
        adjs = []
        for _ in range(self.r.choice([0, 0, 1, 1, 1, 2])):
            a = self.c(EN_ADJ)
            if a not in adjs:
                adjs.append(a)
        core = " ".join(adjs + [_plural(noun) if plural else noun])
        if plural:
            det = self.c(["the", "some", "these", "those", "many", "a few", "two", "several", "my",
                          "our", "their", str(self.r.randint(3, 99))])
        else:
            det = self.c(["the", "the", "a", "this", "that", "my", "your", "his", "her", "every",
                          "our", "one"])
            if det == "a":
                det = _article(core)
        return f"{det} {core}", plural

    def subject(self) -> tuple[str, int]:
        """Returns (text, person) with person 3 = third singular, 2 = other, 1 = I."""
        r = self.r.random()
        if r < 0.3:
            p = self.c(EN_PRONOUNS)
            return p[0], p[3]
        if r < 0.55:
            return self.name(), 3
        text, pl = self.np()
        return text, (2 if pl else 3)

    def obj(self) -> str:
        r = self.r.random()
        if r < 0.15:
            return self.c(EN_PRONOUNS)[1]
        if r < 0.25:
            return self.name()
        return self.np()[0]

    def vp(self, person: int) -> str:
        transitive = self.r.random() < 0.7
        v = self.c(EN_VERBS_T if transitive else EN_VERBS_I)
        tense = self.c(["present", "past", "past", "future", "progressive", "perfect", "modal", "negpast"])
        if tense == "present":
            verb = v[1] if person == 3 else v[0]
        elif tense == "past":
            verb = v[2]
        elif tense == "future":
            verb = f"will {v[0]}"
        elif tense == "progressive":
            be = {1: "am", 2: "are", 3: "is"}[person]
            verb = f"{be} {v[4]}"
        elif tense == "perfect":
            verb = f"{'has' if person == 3 else 'have'} {v[3]}"
        elif tense == "modal":
            verb = f"{self.c(EN_MODALS)} {v[0]}"
        else:
            verb = f"didn't {v[0]}" if self.r.random() < 0.5 else f"did not {v[0]}"
        out = verb + (" " + self.obj() if transitive else "")
        extra = self.r.random()
        if extra < 0.25:
            out += " " + self.c(EN_PREP_PLACE)
        elif extra < 0.45:
            out += " " + self.c(EN_TIME_PHRASE)
        elif extra < 0.55:
            out += " " + self.c(EN_ADV)
        return out

    def clause(self) -> str:
        s, person = self.subject()
        return f"{s} {self.vp(person)}"

    # --- sentence kinds
    def declarative(self) -> str:
        c = self.clause()
        r = self.r.random()
        if r < 0.25:
            c = f"{c}, {self.c(EN_CONJ)} {self.clause()}"
        elif r < 0.32:
            c = f"{self.c(EN_OPINION)}, {c}"
        elif r < 0.38:
            c = f"{self.c(EN_TIME_PHRASE).capitalize()}, {c}"
        return c + "."

    def question(self) -> str:
        s, person = self.subject()
        v = self.c(EN_VERBS_T)
        r = self.r.random()
        aux = "Does" if person == 3 else "Do"
        if r < 0.3:
            return f"{aux} {s} {v[0]} {self.obj()}?"
        if r < 0.55:
            return f"{self.c(EN_QWORDS)} did {s} {v[0]} {self.obj()}?"
        if r < 0.7:
            return f"Have you ever been to {self.c(EN_CITIES + EN_COUNTRIES)}?"
        if r < 0.85:
            return f"{self.c(['Could', 'Would', 'Can', 'Will'])} you {v[0]} {self.obj()}, please?"
        return f"Who {v[2]} {self.obj()}?"

    def exclamation(self) -> str:
        r = self.r.random()
        if r < 0.4:
            return f"{self.c(EN_INTERJ)}, {self.clause()}!"
        if r < 0.7:
            return f"What {_article(a := self.c(EN_ADJ))} {a} {self.c(EN_NOUNS)}!"
        return f"{self.c(EN_INTERJ)}! {self.declarative()}"

    def listing(self) -> str:
        k = self.r.randint(3, 5)
        items = []
        while len(items) < k:
            n = self.np(plural=self.r.random() < 0.5)[0]
            if n not in items:
                items.append(n)
        lst = ", ".join(items[:-1]) + ", and " + items[-1]
        s, person = self.subject()
        v = self.c(EN_VERBS_T)
        return f"{s} {v[2]} {lst}."

    def number_sentence(self) -> str:
        r = self.r.random()
        n = self.r.choice([self.r.randint(0, 20), self.r.randint(21, 999), self.r.randint(1000, 99999),
                           self.r.randint(100000, 9999999)])
        if r < 0.2:
            return f"The {self.c(EN_NOUNS)} is {n} {self.c(EN_UNITS)} away."
        if r < 0.4:
            return f"About {n:,} {_plural(self.c(EN_NOUNS))} were counted in {self.c(EN_CITIES)}."
        if r < 0.55:
            who, n = self.name(), self.r.randint(2, 20)
            self.c(["st", "nd", "rd", "th"])  # drawn and unused: keeps the seeded stream of generated datasets
            return f"{who} finished in {n}{_ordinal_suffix(n)} place."
        if r < 0.7:
            return f"The {self.c(EN_NOUNS)} weighs {self.r.randint(1, 99)}.{self.r.randint(0, 9)} kilograms."
        if r < 0.85:
            return f"Prices rose by {self.r.randint(1, 60)}% in {self.r.randint(1990, 2030)}."
        return f"Room {self.r.randint(1, 999)} is on floor {self.r.randint(1, 40)}."

    def date_sentence(self) -> str:
        m, d, y = self.c(EN_MONTHS), self.r.randint(1, 28), self.r.randint(1950, 2035)
        r = self.r.random()
        if r < 0.3:
            return f"The {self.c(EN_NOUNS)} is on {m} {d}, {y}."
        if r < 0.5:
            return f"{self.name()} was born on {d} {m} {y}."
        if r < 0.7:
            return f"We {self.c(['met', 'moved', 'left', 'arrived'])} on {self.c(EN_DAYS)}, {m} {d}."
        if r < 0.85:
            return f"The deadline is {self.r.randint(1, 12)}/{d}/{y}."
        return f"It happened in {y}, long before the {self.c(EN_NOUNS)} was {self.c(EN_VERBS_T)[3]}."

    def time_sentence(self) -> str:
        h, mnt = self.r.randint(1, 12), self.c([0, 5, 10, 15, 20, 30, 45, self.r.randint(1, 59)])
        ap = self.c(["a.m.", "p.m.", "AM", "PM", ""])
        t = f"{h}:{mnt:02d} {ap}".strip()
        r = self.r.random()
        if r < 0.35:
            end = "" if t.endswith(".") else "."  # "a.m." already ends the sentence
            return f"The {self.c(['train', 'bus', 'flight', 'meeting', 'show', 'class'])} leaves at {t}{end}"
        if r < 0.7:
            return f"Let's meet {self.c(EN_PREP_PLACE)} at {t} on {self.c(EN_DAYS)}."
        return f"{self.name()} woke up at {t} and {self.vp(3)}."

    def money_sentence(self) -> str:
        r = self.r.random()
        amount = self.c([f"${self.r.randint(1, 99)}", f"${self.r.randint(1, 999)}.{self.r.randint(0, 99):02d}",
                         f"€{self.r.randint(1, 500)}", f"£{self.r.randint(1, 300)}",
                         f"{self.r.randint(2, 90)} dollars", f"${self.r.randint(1, 9)},{self.r.randint(0, 999):03d}"])
        if r < 0.35:
            return f"The {self.np()[0].split(' ', 1)[1]} costs {amount}."
        if r < 0.65:
            return f"{self.name()} paid {amount} for {self.np()[0]}."
        return f"Can you lend me {amount} until {self.c(EN_DAYS)}?"

    def address_sentence(self) -> str:
        r = self.r.random()
        if r < 0.5:
            return (f"{self.name()} lives at {self.r.randint(1, 999)} {self.c(EN_LAST)} "
                    f"{self.c(EN_STREETS)} in {self.c(EN_CITIES)}.")
        phone = f"{self.r.randint(200, 999)}-{self.r.randint(200, 999)}-{self.r.randint(1000, 9999)}"
        return f"Call {self.c(['me', 'the office', 'us', self.c(EN_FIRST)])} at {phone}."

    def long_sentence(self) -> str:
        parts = [self.clause() for _ in range(self.r.randint(3, 4))]
        out = parts[0]
        for p in parts[1:]:
            out += f", {self.c(EN_CONJ)} {p}"
        return out + "."

    def short_sentence(self) -> str:
        r = self.r.random()
        if r < 0.4:
            return self.c(EN_REPLIES)
        if r < 0.7:
            return f"{self.c(EN_FIRST)} {self.c(EN_VERBS_I)[2]}."
        return f"{self.np()[0].capitalize()}."

    def travel_sentence(self) -> str:
        a, b = self.r.sample(EN_CITIES, 2)
        r = self.r.random()
        if r < 0.5:
            return f"The flight from {a} to {b} takes {self.r.randint(1, 14)} hours."
        return f"{self.name()} {self.c(['moved', 'flew', 'drove', 'traveled'])} from {a} to {b} {self.c(EN_TIME_PHRASE)}."

    KINDS = [("declarative", 30), ("question", 12), ("exclamation", 5), ("listing", 6), ("number_sentence", 8),
             ("date_sentence", 5), ("time_sentence", 5), ("money_sentence", 6), ("address_sentence", 4),
             ("long_sentence", 7), ("short_sentence", 6), ("travel_sentence", 6)]

    def sentence(self) -> str:
        names, weights = zip(*self.KINDS, strict=True)
        s = getattr(self, self.r.choices(names, weights)[0])()
        return s[0].upper() + s[1:]


# ------------------------------------------------------------------------------- Other languages
# Simple per-language grammar: subject + verb + object/complement + optional place/time, plus
# numbers, dates and questions. Verb forms are given per person (3rd singular, 3rd plural).
_LANG = {
    "es": {
        "names": _w("Ana Carlos Lucía Miguel Sofía Javier Elena Pablo Marta Diego Isabel Andrés Carmen Luis "
                    "Paula Jorge Rosa Manuel Laura Sergio Clara Raúl Teresa Alberto Inés Fernando"),
        "nouns_m": _w("libro coche perro gato tren árbol río pueblo mercado museo puente jardín "
                      "teléfono ordenador vaso plato pan queso café vino barco avión hotel parque"),
        "nouns_f": _w("casa mesa ventana puerta ciudad calle playa montaña escuela carta llave "
                      "manzana naranja sopa cena camisa silla lámpara película canción tienda plaza"),
        "adj": _w("nuevo viejo grande pequeño rojo azul verde blanco negro bonito rápido tranquilo "
                  "caro barato limpio famoso antiguo moderno"),
        "verbs_t": [("compra", "compran"), ("vende", "venden"), ("busca", "buscan"), ("lava", "lavan"),
                    ("abre", "abren"), ("cierra", "cierran"), ("pinta", "pintan"), ("lee", "leen"),
                    ("prepara", "preparan"), ("necesita", "necesitan"), ("mira", "miran"), ("usa", "usan")],
        "verbs_i": [("llega", "llegan"), ("duerme", "duermen"), ("trabaja", "trabajan"), ("canta", "cantan"),
                    ("corre", "corren"), ("espera", "esperan"), ("sale", "salen"), ("baila", "bailan")],
        "places": _p("en la cocina|cerca del río|en el centro|en la playa|en el mercado|en casa|"
                     "junto a la estación|detrás del museo|en el parque|en la oficina"),
        "times": _p("hoy|mañana|ayer por la tarde|cada lunes|el fin de semana|esta noche|por la mañana|"
                    "el próximo martes|en verano|a las ocho"),
        "det_m": ("el", "un", "este", "mi"), "det_f": ("la", "una", "esta", "mi"), "pl": ("los", "las"),
        "fem_adj": lambda a: a[:-1] + "a" if a.endswith("o") else a,
        "months": _w("enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre"),
        "num_t": ["{name} tiene {age} años.", "El billete cuesta {n} euros.", "Hay {n} personas en la sala.",
                  "La reunión es el {d} de {month} de {y}.", "El tren sale a las {h}:{mm}.",
                  "Vivo en la calle {name2}, número {n}."],
        "q_t": ["¿Dónde está {np}?", "¿Quién {vt} {np}?", "¿Cuándo {vi} {name}?", "¿Por qué {vi} {name}?"],
        "ex_t": ["¡Qué {adj} es {np}!", "¡Hola, {name}!", "¡Vamos {place}!"],
        "and": "y", "but": "pero",
    },
    "de": {
        "names": _w("Anna Lukas Lena Felix Marie Jonas Sophie Paul Emma Max Laura Tim Julia Jan Hannah "
                    "Leon Clara Moritz Sarah Ben Katharina Stefan Eva Tobias Greta"),
        "nouns_m": _w("Hund Tisch Zug Baum Garten Markt Apfel Kaffee Wagen Brief Schlüssel Stuhl Fluss Berg "
                      "Computer Bahnhof Park Laden"),
        "nouns_f": _w("Katze Stadt Straße Tür Lampe Schule Brücke Kirche Suppe Karte Tasche Blume Uhr Wohnung"),
        "adj": _w("neu alt groß klein rot blau grün schön schnell ruhig teuer billig sauber berühmt modern"),
        "verbs_t": [("kauft", "kaufen"), ("verkauft", "verkaufen"), ("sucht", "suchen"), ("öffnet", "öffnen"),
                    ("malt", "malen"), ("liest", "lesen"), ("braucht", "brauchen"), ("sieht", "sehen"),
                    ("repariert", "reparieren"), ("findet", "finden"), ("bringt", "bringen")],
        "verbs_i": [("kommt", "kommen"), ("schläft", "schlafen"), ("arbeitet", "arbeiten"), ("singt", "singen"),
                    ("läuft", "laufen"), ("wartet", "warten"), ("tanzt", "tanzen"), ("lacht", "lachen")],
        "places": _p("in der Küche|am Fluss|in der Stadt|am Strand|auf dem Markt|zu Hause|am Bahnhof|"
                     "hinter dem Museum|im Park|im Büro"),
        "times": _p("heute|morgen|gestern Abend|jeden Montag|am Wochenende|heute Nacht|am Morgen|"
                    "nächsten Dienstag|im Sommer|um acht Uhr"),
        "det_m": ("der", "ein", "dieser", "mein"), "det_f": ("die", "eine", "diese", "meine"), "pl": ("die", "die"),
        "acc_m": {"der": "den", "ein": "einen", "dieser": "diesen", "mein": "meinen"},
        "fem_adj": lambda a: a,
        "months": _w("Januar Februar März April Mai Juni Juli August September Oktober November Dezember"),
        "num_t": ["{name} ist {age} Jahre alt.", "Die Fahrkarte kostet {n} Euro.", "Im Saal sind {n} Personen.",
                  "Das Treffen ist am {d}. {month} {y}.", "Der Zug fährt um {h}:{mm}.",
                  "Ich wohne in der {name2}straße {n}."],
        "q_t": ["Wo ist {np}?", "Wer {vt} {np}?", "Wann {vi} {name}?", "Warum {vi} {name}?"],
        "ex_t": ["Wie {adj} ist {np}!", "Hallo, {name}!", "Los geht's {place}!"],
        "and": "und", "but": "aber",
    },
    "fr": {
        "names": _w("Camille Louis Léa Hugo Chloé Lucas Manon Jules Inès Arthur Sarah Paul Emma Nathan Alice "
                    "Théo Julie Antoine Marie Pierre Claire Julien Sophie Thomas Élise"),
        "nouns_m": _w("livre chien chat train arbre jardin marché musée pont téléphone ordinateur verre "
                      "pain fromage café vin bateau avion hôtel parc"),
        "nouns_f": _w("maison table fenêtre porte ville rue plage montagne école lettre clé pomme "
                      "soupe chemise chaise lampe chanson boutique place voiture"),
        "adj": _w("grand petit rouge noir joli rapide calme moderne célèbre propre simple tranquille"),
        "verbs_t": [("achète", "achètent"), ("vend", "vendent"), ("cherche", "cherchent"), ("lave", "lavent"),
                    ("ouvre", "ouvrent"), ("ferme", "ferment"), ("peint", "peignent"), ("lit", "lisent"),
                    ("prépare", "préparent"), ("regarde", "regardent"), ("trouve", "trouvent")],
        "verbs_i": [("arrive", "arrivent"), ("dort", "dorment"), ("travaille", "travaillent"),
                    ("chante", "chantent"), ("court", "courent"), ("attend", "attendent"), ("danse", "dansent")],
        "places": _p("dans la cuisine|près de la rivière|en ville|à la plage|au marché|à la maison|"
                     "à la gare|derrière le musée|dans le parc|au bureau"),
        "times": _p("aujourd'hui|demain|hier soir|chaque lundi|le week-end|ce soir|le matin|"
                    "mardi prochain|en été|à huit heures"),
        "det_m": ("le", "un", "ce", "mon"), "det_f": ("la", "une", "cette", "ma"), "pl": ("les", "les"),
        "fem_adj": lambda a: a if a.endswith("e") else a + "e",
        "months": _w("janvier février mars avril mai juin juillet août septembre octobre novembre décembre"),
        "num_t": ["{name} a {age} ans.", "Le billet coûte {n} euros.", "Il y a {n} personnes dans la salle.",
                  "La réunion a lieu le {d} {month} {y}.", "Le train part à {h} heures {mm}.",
                  "J'habite au {n}, rue {name2}."],
        "q_t": ["Où est {np} ?", "Qui {vt} {np} ?", "Quand {vi} {name} ?", "Pourquoi {vi} {name} ?"],
        "ex_t": ["Comme {np} est {adj} !", "Bonjour, {name} !", "Allons {place} !"],
        "and": "et", "but": "mais",
    },
}


class SimpleGenerator:
    """Smaller grammar for es, de and fr: clauses, numbers, dates, times, questions, exclamations."""

    def __init__(self, language: str, rng: random.Random):
        self.L = _LANG[language]
        self.lang = language
        self.r = rng

    def c(self, seq):
        return self.r.choice(seq)

    def np(self, accusative: bool = False) -> str:
        L = self.L
        fem = self.r.random() < 0.5
        noun = self.c(L["nouns_f"] if fem else L["nouns_m"])
        det = self.c(L["det_f"] if fem else L["det_m"])
        if accusative and not fem and "acc_m" in L:
            det = L["acc_m"][det]
        if self.r.random() < 0.35:
            adj = self.c(L["adj"])
            adj = L["fem_adj"](adj) if fem else adj
            if self.lang == "de":
                return f"{det} {noun}"  # German adjective declension is skipped rather than got wrong
            return f"{det} {noun} {adj}"
        if self.lang == "fr" and det in ("le", "la") and noun[0] in "aeiouéèhô":
            return f"l'{noun}"
        return f"{det} {noun}"

    def clause(self) -> str:
        L = self.L
        subj = self.c(L["names"]) if self.r.random() < 0.6 else self.np()
        if self.r.random() < 0.65:
            out = f"{subj} {self.c(L['verbs_t'])[0]} {self.np(accusative=True)}"
        else:
            out = f"{subj} {self.c(L['verbs_i'])[0]}"
        r = self.r.random()
        if r < 0.35:
            out += " " + self.c(L["places"])
        elif r < 0.6:
            out += " " + self.c(L["times"])
        return out

    def sentence(self) -> str:
        L = self.L
        r = self.r.random()
        fill = dict(name=self.c(L["names"]), name2=self.c(L["names"]), np=self.np(),
                    vt=self.c(L["verbs_t"])[0], vi=self.c(L["verbs_i"])[0], adj=self.c(L["adj"]),
                    place=self.c(L["places"]), month=self.c(L["months"]),
                    n=self.c([self.r.randint(2, 20), self.r.randint(21, 999), self.r.randint(1000, 9999)]),
                    age=self.r.randint(2, 99), d=self.r.randint(1, 28), y=self.r.randint(1950, 2035), h=self.r.randint(1, 23),
                    mm=f"{self.c([0, 15, 30, 45, self.r.randint(1, 59)]):02d}")
        if r < 0.45:
            s = self.clause() + "."
        elif r < 0.6:
            s = f"{self.clause()}, {self.c([L['and'], L['but']])} {self.clause()}."
        elif r < 0.75:
            s = self.c(L["num_t"]).format(**fill)
        elif r < 0.9:
            s = self.c(L["q_t"]).format(**fill)
        else:
            s = self.c(L["ex_t"]).format(**fill)
        for i, ch in enumerate(s):
            if ch.isalpha():
                return s[:i] + ch.upper() + s[i + 1:]
        return s


def generate_sentences(
    language: str, count: int, seed: int | str = 0, exclude: set[str] | None = None, word_share: float = 0.0
) -> list[str]:
    """`count` distinct sentences for `language`, deterministic for a given seed.

    Held-out evaluation sentences, confirmation sentences (`confirm_keys`) and anything in `exclude` (compared
    with `canonical`) are skipped.
    `word_share`: the fraction drawn from the language's everyday words (`text_words`) rather than its grammar
    or CLDR phrases, mixed in a seeded order; English keeps its grammar only (its voices already speak as their
    teachers do), as does a language without a word list.
    """
    if not 0.0 <= word_share <= 1.0:
        raise ValueError(f"word_share must be within [0, 1], got {word_share!r}")
    from model_server.data import text_words

    exclude = set(exclude or ()) | confirm_keys(language)

    use_words = word_share > 0 and language != "en" and text_words.has_vocabulary(language)
    n_words = round(count * word_share) if use_words else 0  # wordfreq is imported only where words are drawn
    out = _grammar_sentences(language, count - n_words, seed, exclude)
    if not n_words:
        return out
    heldout_path = HELDOUT_DIR / f"{language}.txt"
    heldout = tuple(read_sentences(heldout_path)) if heldout_path.is_file() else ()
    taken = {canonical(s) for s in out} | set(exclude or ())
    out += text_words.word_sentences(language, n_words, seed, taken, heldout)
    random.Random(f"statespeak-mix/{language}/{seed}").shuffle(out)
    return out


def _grammar_sentences(language: str, count: int, seed: int | str, exclude: set[str] | None) -> list[str]:
    if language not in LANGUAGES:
        # The other catalog languages: phrases from CLDR (data/text_intl.py), no hand-written text.
        from model_server.data import text_intl

        return text_intl.generate_sentences(language, count, seed, exclude)
    # string seeds are hashed deterministically by random.Random (not by Python's salted hash()).
    rng = random.Random(f"statespeak-text/{language}/{seed}")
    gen = EnglishGenerator(rng) if language == "en" else SimpleGenerator(language, rng)
    banned = load_heldout() | set(exclude or ())
    if language != "en":
        banned |= load_heldout(HELDOUT_DIR / f"{language}.txt")
    out: list[str] = []
    seen: set[str] = set()
    attempts = 0
    while len(out) < count:
        attempts += 1
        if attempts > count * 50 + 1000:
            raise RuntimeError(f"could not generate {count} distinct {language} sentences (got {len(out)})")
        s = gen.sentence()
        key = canonical(s)
        if key in banned or key in seen:
            continue
        seen.add(key)
        out.append(s)
    return out
