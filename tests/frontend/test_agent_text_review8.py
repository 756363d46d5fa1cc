"""Agent text that an eighth review (312 sentences in ru, uk, tr, ar, he, hi, vi, th, id, ms, ja, ko and zh,
2026-12-03; 205 right) found read wrongly, through `normalize`: each case was wrong before."""

import pytest

from model_server.frontend import normalize

CASES = [
    # Latin letters in a code where the script is another: espeak-ng read a dotted "A.B." as the English word
    # "ab", so the letters stand apart ("A" as the letter's name); a lone letter keeps no dot (it was a stop)
    ("ru", "Код заказа AB12CD34.", "Код заказа Eigh B один два C D три четыре."),
    ("ar", "رمز الطلب AB12CD34", "رمز الطلب Eigh B واحد اثنان C D ثلاثة أربعة"),
    ("ru", "Рейс SU1234", "Рейс S U один два три четыре"),
    ("tr", "Kod 1Z999AA1", "Kod bir Z dokuz dokuz dokuz A.A. bir"),
    (
        "it",
        "IBAN IT60 X054 2811 1010.",
        "IBAN I.T. sei zero, X zero cinque quattro, due otto uno uno, uno zero uno zero.",
    ),
    # a currency's letters glued to an amount are no flight ("RM249.90" was "R.M. 2 4 9.")
    ("ms", "Harga RM249.90 sahaja.", "Harga 249 ringgit 90 sahaja."),
    # short forms, units and currencies of the Cyrillic languages
    ("ru", "Тариф 30 ГБ за 500 ₽.", "Тариф тридцать гигабайт за пятьсот рублей."),
    ("ru", "ул. Ленина, д. 5, кв. 12", "улица Ленина, дом пять, квартира двенадцать"),
    ("uk", "вул. Хрещатик, буд. 22, кв. 5", "вулиця Хрещатик, будинок двадцять два, квартира п'ять"),
    ("uk", "Зачекайте 15 хв.", "Зачекайте п'ятнадцять хвилин."),
    ("uk", "Сума 250 грн.", "Сума двісті п'ятдесят гривень."),
    # a Turkish ordinal with its dot (the dot ended the sentence)
    ("tr", "Sırada 3. kişisiniz.", "Sırada üçüncü kişisiniz."),
    # a Hebrew prefix before a Latin word is its syllable, not the letter's name
    ("he", "העדכון ל-Windows 11", "העדכון לְ Windows אחת עשרה"),
    # Japanese ranges with the wave dash, Korean representative numbers, Chinese product numbers
    ("ja", "3〜5営業日", "さん から ご エイギョービ"),
    ("ko", "대표번호 1588-1234로 전화하세요.", "대표번호 일 오 팔 팔, 일 이 삼 사 로 전화하세요."),
    ("zh", "升级到Windows 11和iPhone 15", "升级到Windows 十一 和iPhone 十五"),
    ("zh", "航班CA1831", "航班CA 幺八三幺"),  # glued to its letters: a code
    # a card's last digits after "ending with", digit by digit (they were a cardinal in ten languages)
    ("ru", "Карта, оканчивающаяся на 4821.", "Карта, оканчивающаяся на четыре восемь два один."),
    ("it", "La carta che termina con 4821.", "La carta che termina con quattro otto due uno."),
    ("it", "Il contratto termina nel 2025.", "Il contratto termina nel duemilaventicinque."),  # a year
    ("pl", "Karta kończąca się na 4821.", "Karta kończąca się na cztery osiem dwa jeden."),
    ("pt", "O cartão final 4821.", "O cartão final quatro oito dois um."),
    # address and era short forms, local-script units and the shekel's short form (espeak-ng spelled them)
    (
        "th",
        "บ้านเลขที่ 25 ถ.สุขุมวิท กทม. ระยะทาง 5 กม.",
        "บ้านเลขที่ ยี่สิบห้า ถนน สุขุมวิท กรุงเทพมหานคร ระยะทาง ห้า กิโลเมตร",
    ),  # fmt: skip
    ("th", "พ.ศ. 2567", "พุทธศักราช สองพันห้าร้อยหกสิบเจ็ด"),
    ("vi", "Địa chỉ 12 Q.1, TP.HCM", "Địa chỉ mười hai Quận một, Thành phố Hồ Chí Minh."),
    ("id", "Jl. Sudirman No. 5", "Jalan Sudirman Nomor lima"),
    # titles, as a physician's office says them; a list's "dll." at the end keeps the sentence's stop
    ("id", "Janji temu dengan dr. Sari pukul 10.", "Janji temu dengan dokter Sari pukul sepuluh."),
    ("id", "Anda dengan Dr. Budi hari Rabu.", "Anda dengan Dokter Budi hari Rabu."),
    (
        "id",
        "Jadwal drg. Rina, Bpk. Andi dan Sdr. Joko.",
        "Jadwal dokter gigi Rina, Bapak Andi dan Saudara Joko.",
    ),
    ("id", "Yth. Ibu Dewi, tgl. 5 Mei", "Yang terhormat Ibu Dewi, tanggal lima Mei"),
    ("id", "Bawa KTP, kartu BPJS, dll.", "Bawa KTP, kartu BPJS, dan lain-lain."),
    ("id", "Telp. 021 555 0142", "Telepon nol dua satu, lima lima lima, nol satu empat dua"),
    ("ms", "Temu janji dengan Dr. Ahmad", "Temu janji dengan Doktor Ahmad"),
    ("ms", "En. Ali dan Pn. Siti", "Encik Ali dan Puan Siti"),
    ("ms", "Jln. Ampang No. 5", "Jalan Ampang Nombor 5"),
    ("hi", "दूरी 5 किमी और वज़न 3 किग्रा", "दूरी 5 किलोमीटर और वज़न 3 किलोग्राम"),
    ("he", 'המחיר 50 ש"ח', "המחיר חמישים שקלים חדשים"),
    # a yuan's tenths and hundredths are 角 and 分 (it was "元 五十")
    ("zh", "总价¥1,299.50。", "总价 一千二百九十九元五角."),
    ("zh", "¥12.05", "十二元零五分"),
    ("zh", "¥0.50", "五角"),
]


@pytest.mark.parametrize(("code", "text", "expected"), CASES)
def test_agent_text_is_read_as_natives_say_it(code, text, expected):
    assert normalize(text, code) == expected
