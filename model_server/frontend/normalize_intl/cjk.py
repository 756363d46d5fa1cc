"""Numbers in Chinese and Japanese, written in the language's own words before espeak-ng reads them.

espeak-ng reads Mandarin digits wrong past 9,999 ("10000" as 十千, "1000000" as 一万) and drops inner zeros
("105" as 一百五, which is 150), and it reads Japanese "10000" as "juu sen" and "3000" without its
rendaku ("san sen"). So a Chinese number is passed on as Chinese numerals (cn2an: 一百零五, 一万二千三百四十五)
and a Japanese one as its reading in hiragana (num2words: さんぜん, いちまんにせん); a Chinese year is said
digit by digit (二零二四年).

A Japanese counter changes how the number before it sounds: "3日" is みっか, not "san nichi"; "4時" よじ;
"30分" さんじゅっぷん; "2人" ふたり. `counted` reads a number with the counters a voice agent says (dates,
clock times, people, things, money, years).
"""

from __future__ import annotations

import re
from functools import cache

from num2words import num2words

from ..normalize import Segment


@cache
def _an2cn():
    from cn2an import An2Cn  # loaded with the first Chinese number

    return An2Cn().an2cn


def chinese_number(n: int, before_measure: bool = False) -> str:
    """ "105" -> 一百零五, "-3" -> 负三; two thousand and two ten-thousands are 两千, 两万 as they are said, and
    a lone 2 before a measure word (`before_measure`: "2个", "2点", "2小时") is 两."""
    if n == 2 and before_measure:
        return "两"
    said = _an2cn()(n)
    return "两" + said[1:] if said[:2] in ("二千", "二万", "二亿") else said


# Measure words after which 2 is 两 ("两个", "两点", "两天"); not 楼, 层, 号, 月, 日, where it is an ordinal.
CHINESE_MEASURES = ("万", "千", "亿", "小时", "分钟", "个", "点", "天", "人", "位", "次", "张", "件", "本", "年", "岁", "周", "元", "块",
                    "倍", "家", "台", "辆", "杯", "份", "瓶", "条")  # fmt: skip
# Words after which digits are an identifier, said one by one with 幺 for 1, as a phone or room number is
# ("房间1201" -> 幺二零幺, not 一千二百零一).
CHINESE_ID_CUES = ("房间", "房号", "航班", "号码", "电话", "手机", "订单", "订单号", "编号", "尾号", "车次", "座位", "验证码",
                   "密码", "邮编", "工号", "拨打", "致电", "热线", "单号", "账号", "卡号")  # fmt: skip
# Japanese words after which digits name something and are read one by one, as Japanese speakers read an order's
# or a booking's number ("ご注文番号は48213です" was よんまんはっせん...; 郵便番号, 会員番号 end in 番号), before は, が or
# a colon. Not コード: "このコードは3000行" counts lines of program code.
JAPANESE_ID_CUES = ("番号", "ID", "品番", "型番")
_JAPANESE_ID_LINK = re.compile(r"(?:は|が|:|：|\s)*$")


def japanese_identifier(before: str) -> bool:
    """Whether the text right before a number (`before`) ends with a Japanese identifier's name."""
    return _JAPANESE_ID_LINK.sub("", before).endswith(JAPANESE_ID_CUES)


_CHINESE_DIGITS = "零一二三四五六七八九"


def chinese_digits(digits: str) -> str:
    """ "2024" -> 二零二四: a year, read digit by digit."""
    return "".join(_CHINESE_DIGITS[int(d)] for d in digits)


def chinese_code(digits: str) -> str:
    """ "1201" -> 幺二零幺: an identifier's digits, 1 said yāo so it is not heard as 七."""
    return chinese_digits(digits).replace("一", "幺")


def decimal(text: str, language: str) -> str:
    """ "3.5" -> 三点五 / さんてんご (`text` written with a decimal point)."""
    if language == "zh":
        return _an2cn()(text)
    return num2words(float(text), lang="ja", reading=True)


# Unit names said in Chinese, where CLDR (Babel 2.17) has no long name for most of them ("5 length-kilometer").
CHINESE_UNITS = {"km": "公里", "cm": "厘米", "mm": "毫米", "m": "米", "kg": "公斤", "mg": "毫克", "g": "克",
                 "ml": "毫升", "l": "升", "h": "小时", "min": "分钟", "°C": "摄氏度", "km/h": "公里每小时",
                 "kWh": "千瓦时"}  # fmt: skip


def japanese_number(n: int) -> str:
    """The reading of `n` in hiragana: 3000 -> さんぜん, 10000 -> いちまん."""
    return num2words(n, lang="ja", reading=True)


# Days of the month (and counts of days) with a reading of their own; the others are the number and にち.
_DAYS = {1: "ついたち", 2: "ふつか", 3: "みっか", 4: "よっか", 5: "いつか", 6: "むいか", 7: "なのか", 8: "ようか",
         9: "ここのか", 10: "とおか", 14: "じゅうよっか", 20: "はつか", 24: "にじゅうよっか"}  # fmt: skip
# The native count of things with つ.
_THINGS = {1: "ひとつ", 2: "ふたつ", 3: "みっつ", 4: "よっつ", 5: "いつつ", 6: "むっつ", 7: "ななつ", 8: "やっつ",
           9: "ここのつ", 10: "とお"}  # fmt: skip
# The last digit's sound before 時 (hour), 月 (month), 年 and 円: 4時 よじ, 9月 くがつ, 4年 よねん.
_LAST_DIGIT = {
    "時": {4: "よ", 7: "しち", 9: "く"},
    "時間": {4: "よ", 9: "く"},
    "月": {4: "し", 7: "しち", 9: "く"},
    "年": {4: "よ"},
    "円": {4: "よ"},
}
# 分 is ふん after 2, 5, 7, 9 and ぷん, with a doubled consonant, after 1, 3, 4, 6, 8 and the tens.
_MINUTES_LAST = {1: "いっぷん", 3: "さんぷん", 4: "よんぷん", 6: "ろっぷん", 8: "はっぷん"}
_COUNTER_READING = {"時間": "じかん", "時": "じ", "月": "がつ", "年": "ねん", "円": "えん", "日": "にち", "人": "にん", "分": "ふん",
                    "名": "めい", "位": "い", "回": "かい", "個": "こ", "件": "けん", "階": "かい", "歳": "さい"}  # fmt: skip
COUNTERS = tuple(_COUNTER_READING) + ("つ",)  # longest first: 時間 before 時
_DOUBLING = "回個件階歳"


def _with_last_digit(n: int, last: str) -> str:
    """`n` read with its last digit said as `last`: 14 and よ -> じゅうよ."""
    return (japanese_number(n - n % 10) if n >= 10 else "") + last


def counted(n: int, counter: str, after_month: bool = False) -> str:
    """The reading of `n` followed by `counter` (one of `COUNTERS`), in hiragana. `after_month`: a day of the
    month ("3月1日" -> ついたち), where 1日 alone is a day's length (いちにち)."""
    if counter == "日" and n in _DAYS and (n != 1 or after_month):
        return _DAYS[n]
    if counter == "つ":
        return _THINGS.get(n, japanese_number(n))  # past ten the number alone ("11個" is written instead)
    if counter == "人" and n in (1, 2):
        return ("ひとり", "ふたり")[n - 1]
    if counter == "人" and n % 10 == 4:
        return _with_last_digit(n, "よ") + "にん"
    if counter == "歳" and n == 20:
        return "はたち"
    if counter == "分" and n % 10 == 0 and 0 < n < 100:
        return (japanese_number(n // 10) if n >= 20 else "") + "じゅっぷん"
    if counter == "分" and n % 10 in _MINUTES_LAST:
        return _with_last_digit(n, _MINUTES_LAST[n % 10])
    if n % 10 in _LAST_DIGIT.get(counter, {}):
        return _with_last_digit(n, _LAST_DIGIT[counter][n % 10]) + _COUNTER_READING[counter]
    if counter in _DOUBLING:
        # 1回 いっかい, 6個 ろっこ, 8歳 はっさい, 10件 じゅっけん: the number's last sound doubles the
        # counter's consonant
        if n % 10 in (1, 6, 8):
            return _with_last_digit(n, {1: "いっ", 6: "ろっ", 8: "はっ"}[n % 10]) + _COUNTER_READING[counter]
        if n % 10 == 0 and 0 < n < 100:
            return (japanese_number(n // 10) if n >= 20 else "") + "じゅっ" + _COUNTER_READING[counter]
    if counter == "階" and n % 10 == 3:
        return _with_last_digit(n, "さん") + "がい"
    return japanese_number(n) + _COUNTER_READING[counter]


def clock_time(h: int, m: int, language: str) -> str:
    """ "15:30" -> 十五点三十分 / じゅうごじさんじゅっぷん / 세 시 삼십 분 (3:30); "9:05" -> 九点零五分 / くじごふん / 아홉 시
    오 분; a Korean hour past 12 is Sino-Korean: 십사 시."""
    if language == "ko":
        hour = korean_native(h, "시") or num2words(h, lang="ko")
        return f"{hour} 시" + (f" {num2words(m, lang='ko')} 분" if m else "")
    if language == "zh":
        if not m:
            return f"{chinese_number(h)}点"
        return f"{chinese_number(h)}点{'零' if m < 10 else ''}{chinese_number(m)}分"
    return counted(h, "時") + (counted(m, "分") if m else "")


# Korean counts things, people, hours and years of age with its native numbers, in their form before a counter
# ("3개" is 세 개, "2명" 두 명, "3시" 세 시, "20살" 스무 살; minutes, dates, money and numbers past 99 stay
# Sino-Korean: 삼십 분, 삼월, 만 오천 원).
_KO_UNITS = {1: "한", 2: "두", 3: "세", 4: "네", 5: "다섯", 6: "여섯", 7: "일곱", 8: "여덟", 9: "아홉"}
_KO_TENS = {
    10: "열",
    20: "스물",
    30: "서른",
    40: "마흔",
    50: "쉰",
    60: "예순",
    70: "일흔",
    80: "여든",
    90: "아흔",
}
# (not 번, which is a count or a number: "3번 잘못" 세 번, "3번 출구" 삼 번; nor 대, an age group too: 이십 대)
KOREAN_NATIVE_COUNTERS = (
    "시간",
    "시",
    "개",
    "명",
    "살",
    "번째",
    "마리",
    "잔",
    "병",
    "권",
    "장",
    "사람",
    "가지",
    "달",
)


# Words that begin like a native counter but count in Sino-Korean (months, dollars, countries, seasons, ...).
_KOREAN_NOT_COUNTERS = ("개월", "개국", "개년", "달러", "시즌", "시리즈", "병동", "장관")


def korean_native(n: int, counter: str) -> str | None:
    """`n` (1-99) in native Korean before `counter`: 3 -> 세, 20 -> 스무, 21 -> 스물한; None past 99, and for
    an hour past 12 (the 24-hour clock is said in Sino-Korean: 십삼 시)."""
    if not 0 < n < 100 or (counter == "시" and n > 12):
        return None
    if counter == "번째" and n == 1:
        return "첫"  # "1번째" -> 첫 번째
    tens, units = n - n % 10, n % 10
    if tens == 20 and not units:
        return "스무"
    return _KO_TENS.get(tens, "") + _KO_UNITS.get(units, "")


def korean_counts(segments: list[Segment]) -> list[Segment]:
    """A number before a counter that counts in native Korean takes its native form: "3개" -> 세 개 (it was 삼 개)."""
    out = segments[:1]
    for seg in segments[1:]:
        number = out[-1]
        text = seg.original.lstrip()  # "3 개" too
        counter = next((c for c in KOREAN_NATIVE_COUNTERS if text.startswith(c)), None)
        if text.startswith(_KOREAN_NOT_COUNTERS) or (len(out) > 1 and out[-2].original.endswith("제")):
            counter = None  # 3개월, 10달러, 3시즌: words that begin like a counter; 제3장: an ordinal
        if counter and number.rule == "number" and number.original.isdigit():
            native = korean_native(int(number.original), counter)
            if native:
                out[-1] = Segment(number.original, native, number.rule)
        out.append(seg)
    return out


_JA_COUNTED = re.compile(rf"(?<!\d)(\d{{1,6}})({'|'.join(COUNTERS)})")
# Units CLDR (Babel 2.17) has no Japanese name for, said as counters: "2 h" -> にじかん.
JAPANESE_UNIT_COUNTERS = {"h": "時間", "min": "分"}
_ZH_YEAR = re.compile(r"(?<!\d)(\d{4})(?=年)")


def spell_digits_in(text: str, language: str) -> str | None:
    """`text` (a date CLDR wrote, "2024年3月15日") with its numbers said the language's way, or None for a
    language other than zh and ja."""
    if language == "zh":
        text = _ZH_YEAR.sub(lambda m: chinese_digits(m.group(1)), text)
        return re.sub(r"\d+", lambda m: chinese_number(int(m.group(0))), text)
    if language == "ja":
        text = _JA_COUNTED.sub(
            lambda m: counted(int(m.group(1)), m.group(2), text[: m.start()].endswith("月")), text
        )
        return re.sub(r"\d+", lambda m: japanese_number(int(m.group(0))), text)
    return None
