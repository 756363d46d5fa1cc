"""Text normalization: table-driven cases per language plus odd input."""

import re

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

# Issue 16: text read as people say it. One exact spoken form per case, grouped by class; the rules for
# ambiguous classes are in the normalize package's docstrings and docs/model.md (Text normalization).
SPOKEN_FORMS: dict[str, list[tuple[str, str]]] = {
    "phone": [
        ("555-0142", "five five five, zero one four two"),
        ("Call 555-123-4567.", "Call five five five, one two three, four five six seven."),
        ("(555) 123-4567", "five five five, one two three, four five six seven"),
        ("+1 555 123 4567", "plus one, five five five, one two three, four five six seven"),
        # an international number's groups of any length ("plus forty nine thirty twelve million ..." before)
        (
            "For Germany, call +49 30 12345678.",
            "For Germany, call plus four nine, three zero, one two three four five six seven eight.",
        ),
        (
            "In India, call +91 98765 43210.",
            "In India, call plus nine one, nine eight seven six five, four three two one zero.",
        ),
        # written as one run of ten digits (it was "five billion ..."); eleven with the country's 1
        ("Call me at 5551234567.", "Call me at five five five, one two three, four five six seven."),
        ("Dial 18005551234.", "Dial one, eight hundred, five five five, one two three four."),
        (
            "The number is 555 1234.",
            "The number is five five five, one two three four.",
        ),  # after a phone's cue
        ("We sold 2000000000 units.", "We sold two billion units."),  # round: an amount
        ("+1 (555) 123-4567", "plus one, five five five, one two three, four five six seven"),
        ("1-800-555-0199", "one, eight hundred, five five five, zero one nine nine"),
        ("555.867.5309", "five five five, eight six seven, five three zero nine"),
        (
            "Call 555-123-4567 ext. 89",
            "Call five five five, one two three, four five six seven, extension eight nine",
        ),
        ("555-123-4567 x204", "five five five, one two three, four five six seven, extension two zero four"),
        ("+44 20 7946 0958", "plus four four, two zero, seven nine four six, zero nine five eight"),
        ("dial 555-0100, extension 12", "dial five five five, zero one zero zero, extension one two"),
    ],
    # numbers joined by dots that are no decimal: versions, sections and network addresses
    "vanity": [
        # toll-free numbers with letters, read as they are advertised
        ("Call 1-800-FLOWERS today.", "Call one, eight hundred, flowers today."),
        ("Call 1-800-GOT-JUNK.", "Call one, eight hundred, got junk."),
        ("Dial 1-888-FEDEX.", "Dial one, eight eight eight, fedex."),
        ("Call 1-800-555-TAXI now.", "Call one, eight hundred, five five five, taxi now."),
        ("Call 1-800-CVS-1234.", "Call one, eight hundred, C.V.S., one two three four."),
        ("Call +1 800 FLOWERS", "Call plus one, eight hundred, flowers"),
        ("Call 1-877-KARS4KIDS.", "Call one, eight seven seven, kars four kids."),
        ("Code 800-ABC1", "Code eight zero zero, A.B.C. one"),  # after an identifier's cue: a code
    ],
    "dotted": [
        ("Visit www.example.com/help.", "Visit www dot example dot com slash help."),  # the sentence's dot
        ("Python 3.12.1 is out.", "Python three point twelve point one is out."),
        ("Update to version 2.10 today.", "Update to version two point ten today."),
        ("See section 4.12.", "See section four point twelve."),
        ("Firmware 1.2.03", "Firmware one point two point zero three"),
        ("Connect to 192.168.1.1 now.", "Connect to one nine two dot one six eight dot one dot one now."),
        ("It costs 2.10 a share.", "It costs two point one zero a share."),  # no cue: a decimal
    ],
    "digits": [
        ("0987", "zero nine eight seven"),
        ("PIN 0042", "Pin zero zero four two"),
        ("Agent 007", "Agent zero zero seven"),
        ("code 0", "code zero"),
        ("extension 0301", "extension zero three zero one"),
        ("Your number is 05", "Your number is zero five"),
    ],
    "code": [
        ("Call 911.", "Call nine one one."),
        ("Dial 411 for help", "Dial four one one for help"),
        ("911 calls", "nine one one calls"),
        ("ZIP 90210", "Zip nine zero two one zero"),
        ("zip code 02139", "zip code zero two one three nine"),
        ("Springfield, IL 62704", "Springfield, Illinois six two seven zero four"),  # the state said in full
        ("4111 1111 1111 1111", "four one one one, one one one one, one one one one, one one one one"),
        ("4111-1111-1111-1111", "four one one one, one one one one, one one one one, one one one one"),
        ("card ending in 4242", "card ending in four two four two"),
        ("Card ending 4242.", "Card ending four two four two."),  # "in" left out, as agents often say it
        ("the Visa that ends 0045", "the Visa that ends zero zero four five"),
        ("The sale ends 2025.", "The sale ends twenty twenty five."),  # no card before it: a year
        ("order #A1B2-339", "order number Eigh one B two, three three nine"),
        ("order number 12345", "order number one two three four five"),
        ("order 12345", "order one two three four five"),
        ("I'd like to order 12 pizzas", "I'd like to order twelve pizzas"),
        ("order #12", "order number twelve"),  # one or two digits are said as a number (a seventh review)
        ("confirmation code X7Q9", "confirmation code X seven Q nine"),
        ("Your confirmation number is 7G4K2.", "Your confirmation number is seven G four K two."),
        ("tracking number 1Z999", "tracking number one Z nine nine nine"),
        ("reference: 884213", "reference: eight eight four two one three"),
        ("seat 14C", "seat fourteen C"),  # a seat or a gate: its number and its letter, as said
        ("Your flight departs from Gate B22.", "Your flight departs from Gate B twenty two."),
        ("a 3D model", "a three D model"),
        ("COVID-19", "Covid nineteen"),
        ("ticket #AB-1234", "ticket number A.B., one two three four"),
        ("account 0012345678", "account zero zero one two three four five six seven eight"),
    ],
    "time": [
        # an hour alone shares the am/pm of the next ("one two, one P.M." before)
        ("Lunch is 12-1pm.", "Lunch is twelve to one p.m."),
        ("From noon–1pm.", "From noon to one p.m."),  # "noon, one p.m." before
        ("Please call back Mon.–Fri.", "Please call back Monday to Friday."),  # "Monday, Friday" before
        ("M-F 9-5", "Monday to Friday nine to five"),
        ("Delivery window: 2:00-4:00 PM.", "Delivery window: two to four p.m."),  # not "two o'clock to"
        # falling hours after the days or the hours they are ("nine - five" before)
        ("Our team is available Mon-Fri 9-5.", "Our team is available Monday to Friday nine to five."),
        ("Our hours are 9-5.", "Our hours are nine to five."),
        ("The score was 3-1.", "The score was three to one."),  # a score is said "to"
        ("It's 15-7 in the sum.", "It's fifteen - seven in the sum."),  # a falling pair keeps its dash
        # hours and minutes written short ("two hours forty five meters" before)
        ("The flight takes about 2h 45m.", "The flight takes about two hours forty five minutes."),
        ("It takes 1h30.", "It takes one hour thirty."),
        ("9:30 am", "nine thirty a.m."),
        ("9:30 a.m.", "nine thirty a.m."),
        ("10:05", "ten oh five"),
        ("at 10:05 PM", "at ten oh five p.m."),
        ("7:00", "seven o'clock"),
        ("noon", "noon"),
        ("12:00 noon", "twelve noon"),
        ("Is it 12 noon?", "Is it twelve noon?"),
        ("9am", "nine a.m."),
        ("at 5 pm", "at five p.m."),
        ("at 3 p.m. Now", "at three p.m. Now"),
        ("14:30", "fourteen thirty"),
        ("11:45 P.M.", "eleven forty five p.m."),
        ("0:30", "zero thirty"),
    ],
    "date": [
        # a month and a day after a date cue ("on", "by", "until", a weekday...); otherwise a fraction
        ("It was released on 3/4.", "It was released on March fourth."),
        ("Call us by 5/12 at the latest.", "Call us by May twelfth at the latest."),
        ("Starting Monday 6/15 we close.", "Starting Monday June fifteenth we close."),
        ("Add 3/4 cup.", "Add three quarters cup."),
        ("Cut it by 1/3.", "Cut it by one third."),  # "by" also goes before amounts
        ("2024-03-05", "March fifth, twenty twenty four"),
        ("12/25/2024", "December twenty fifth, twenty twenty four"),
        ("3/4/24", "March fourth, twenty twenty four"),
        ("12-25-2024", "December twenty fifth, twenty twenty four"),
        ("March 5, 1999", "March fifth, nineteen ninety nine"),
        ("Mar. 5", "March fifth"),
        ("Sept 30th", "September thirtieth"),
        ("5 March 2024", "March fifth, twenty twenty four"),
        ("the 5th of March", "the fifth of March"),
        ("June 2024", "June twenty twenty four"),
        ("Mon., Mar. 5", "Monday, March fifth"),
        ("Jan. 1st, 2000", "January first, two thousand"),
    ],
    "year": [
        ("in 2024", "in twenty twenty four"),
        ("since 1999", "since nineteen ninety nine"),
        ("2024 calls", "two thousand and twenty four calls"),
        ("We made 1500 sales", "We made one thousand five hundred sales"),
        ("the 2024 election", "the twenty twenty four election"),
        ("Born 1984.", "Born nineteen eighty four."),
        ("1984 was", "one thousand nine hundred and eighty four was"),
        ("in the 1990s", "in the nineteen nineties"),
        ("the '90s", "the nineties"),
    ],
    "ordinal": [
        ("1st", "first"),
        ("22nd", "twenty second"),
        ("the 3rd floor", "the third floor"),
        ("the 101st time", "the one hundred and first time"),
        ("11th", "eleventh"),
        ("the 2nd and 21st", "the second and twenty first"),
    ],
    "currency": [
        # an amount before the noun it qualifies is a compound adjective
        ("A $5 fee applies.", "A five dollar fee applies."),
        ("The price is C$49.99.", "The price is forty nine Canadian dollars and ninety nine cents."),
        ("It's US$20.", "It's twenty U.S. dollars."),
        ("The annual fee is $95 USD.", "The annual fee is ninety five dollars."),  # the currency said once
        ("Salary is $85K/yr.", "Salary is eighty five thousand dollars per year."),
        ("Budget: $10k-$15k.", "Budget: ten to fifteen thousand dollars."),  # "- fifteen thousand" before
        ("It's $38/bottle.", "It's thirty eight dollars per bottle."),
        # a minus before the amount or its sign is said (it was a pause, "- twenty three dollars")
        ("Your balance is -$23.17.", "Your balance is minus twenty three dollars and seventeen cents."),
        ("Your balance is $-23.17.", "Your balance is minus twenty three dollars and seventeen cents."),
        # cents before the currency's name ("twelve point five zero dollars" before)
        ("It's 12.50 dollars.", "It's twelve dollars and fifty cents."),
        ("$5", "five dollars"),
        ("$1", "one dollar"),
        ("$12.50", "twelve dollars and fifty cents"),
        ("$0.99", "ninety nine cents"),
        ("$0.05", "five cents"),
        ("50¢", "fifty cents"),
        ("€20", "twenty euros"),
        ("€1.50", "one euro and fifty cents"),
        ("£3.50", "three pounds and fifty pence"),
        ("£1.01", "one pound and one penny"),
        ("$1.5M", "one point five million dollars"),
        ("$3bn", "three billion dollars"),
        ("$5 million", "five million dollars"),
        ("$1,299.99", "one thousand two hundred and ninety nine dollars and ninety nine cents"),
        ("¥500", "five hundred yen"),
        ("$2.5 billion", "two point five billion dollars"),
    ],
    "unit": [
        # inch and foot marks (dropped or read as quotes before), singular before the noun they qualify
        ('The pizza is 16".', "The pizza is sixteen inches."),
        ('A 65" TV.', "A sixty five inch TV."),
        ("He's 6'2\".", "He's six foot two."),
        ("The table is 6' long.", "The table is six feet long."),
        ('He said "5" times.', 'He said " five " times.'),  # a quoted number is no length
        ("3 days/week", "three days a week"),
        ("A 1/2 lb burger.", "A half pound burger."),  # the article is said once ("A a half" before)
        ("Add a 2L soda.", "Add a two liter soda."),
        ("It's about a 15-min drive.", "It's about a fifteen minute drive."),
        ("The room is about 350 sq ft.", "The room is about three hundred and fifty square feet."),
        (
            "Tire pressure should be 35 psi.",
            "Tire pressure should be thirty five P.S.I.",
        ),  # espeak said "sigh"
        ("in 2 wks", "in two weeks"),
        ("Your blood pressure was 120/80.", "Your blood pressure was one twenty over eighty."),
        (
            "Your APR is 19.99%-29.99%.",
            "Your A.P.R. is nineteen point nine nine to twenty nine point nine nine percent.",
        ),
        ("5 km", "five kilometers"),
        ("1 kg", "one kilogram"),
        ("65 mph", "sixty five miles per hour"),
        ("12.5%", "twelve point five percent"),
        ("100%", "one hundred percent"),
        ("72°F", "seventy two degrees Fahrenheit"),
        ("30°C", "thirty degrees Celsius"),
        ("3 oz", "three ounces"),
        ("2 L", "two liters"),
        ("500 mL", "five hundred milliliters"),
        ("6 ft", "six feet"),
        ("10 min", "ten minutes"),
        ("2 hrs", "two hours"),
        ("100 km/h", "one hundred kilometers per hour"),
        ("16 GB", "sixteen gigabytes"),
        ("2.4 GHz", "two point four gigahertz"),
        ("5 kWh", "five kilowatt hours"),
    ],
    "range": [
        ("3-5 business days", "three to five business days"),
        ("open 9-5", "open nine to five"),
        ("10–20%", "ten to twenty percent"),
        ("2-3 kg", "two to three kilograms"),
        ("every 4-6 hours", "every four to six hours"),
        ("from 1990-1995", "from nineteen ninety to nineteen ninety five"),
        ("the 2024-25 season", "the twenty twenty four to twenty five season"),
        ("the 2024-2025 season", "the twenty twenty four to twenty twenty five season"),
        ("Between 2-3 pm", "Between two and three p.m."),
        ("We are open 9-5", "We are open nine to five"),
        ("Call us between 9-5.", "Call us between nine and five."),  # falling hours after a span's word
        ("We answer from 10-4 on Saturdays.", "We answer from ten to four on Saturdays."),
        ("The score was 9-5.", "The score was nine to five."),
        ("from 15-7", "from fifteen - seven"),  # not hours (15 > 12): the dash stays a pause
        # spans of times, amounts, decimals and weekdays: the dash is "to", never "minus" or a pause
        ("We're open 9am-5pm, Monday-Friday.", "We're open nine a.m. to five p.m., Monday to Friday."),
        ("Open Mon–Fri, 9 a.m. - 5 p.m.", "Open Monday to Friday, nine a.m. to five p.m."),
        ("Hours: 8:30am–6pm.", "Hours: eight thirty a.m. to six p.m."),
        ("from 10:30-11:30am", "from ten thirty to eleven thirty a.m."),
        ("between 9am-5pm", "between nine a.m. and five p.m."),
        ("the night shift is 10pm-2am", "the night shift is ten p.m. to two a.m."),
        ("It costs $10-$20.", "It costs ten to twenty dollars."),
        ("$5-10 per month", "five to ten dollars per month"),
        ("$5-10 million", "five to ten million dollars"),
        ("$10.50-$20", "ten dollars and fifty cents to twenty dollars"),
        ("Add 2.5-3 kg of flour.", "Add two point five to three kilograms of flour."),
        ("1,000-2,000 people", "one thousand to two thousand people"),
        ("support 24/7", "support twenty four seven"),
        # not ranges: identifiers, phone numbers, scores, sums, year-months keep digits or their dash
        ("invoice 2.5-3", "invoice two point five - three"),
        ("$20-$10", "twenty dollars - ten dollars"),
        ("Sun-dried tomatoes", "Sun-dried tomatoes"),
        ("Mon-Wed-Fri classes", "Mon-Wed-Fri classes"),  # a chain of days, not a range
        ("$1.5-2M", "one point five to two million dollars"),
        ("$1,000-2,000", "one thousand to two thousand dollars"),
        # an en dash between words is still a pause ("Adam" ends in "am" but is no time)
        ("Ask for Adam – 3rd floor.", "Ask for Adam, third floor."),
        ("2019–present", "twenty nineteen, present"),
        ("5–star service", "five, star service"),
        ("We close at 5 p.m. – 2 hours early", "We close at five p.m., two hours early"),
        ("9 a.m.–5 p.m.", "nine a.m. to five p.m."),
        ("your code is 4829-1173", "your code is four eight two nine, one one seven three"),
        ("Invoice 2024-0012", "Invoice two zero two four, zero zero one two"),
        ("Call 555-1234", "Call five five five, one two three four"),
        ("The score was 3-1", "The score was three to one"),
        ("They won 21-14 last night.", "They won twenty one to fourteen last night."),
        ("10-5=5", "ten - five equals five"),
        ("Room 5-201", "Room five - two hundred and one"),
    ],
    "per": [
        ("€3.50/month", "three euros and fifty cents per month"),
        ("$20/hr", "twenty dollars per hour"),
        ("$99/night", "ninety nine dollars per night"),
        ("$12/user/month", "twelve dollars per user per month"),
        ("£8/hour", "eight pounds per hour"),
    ],
    "address": [
        # street types without their period, compass points, units (espeak read "St" as Saint, "Ave" ah-vay)
        ("88 Lake St, Chicago.", "eighty eight Lake Street, Chicago."),
        ("1600 Pennsylvania Ave NW, Washington", "sixteen hundred Pennsylvania Avenue Northwest, Washington"),
        ("500 W. Madison St., Chicago.", "five hundred West Madison Street, Chicago."),
        ("Apt #12 and Suite #200.", "Apartment twelve and Suite two hundred."),
        ("We're located at 9 St. Mark's Place.", "We're located at nine Saint Mark's Place."),
        ("I love St Louis.", "I love St Louis."),  # no street type: left as written
        ("Our store is in Chicago, IL.", "Our store is in Chicago, Illinois."),
        ("It's IN the box.", "It's IN the box."),
        ("That's fine, OK.", "That's fine, okay."),  # no city before the comma: no state
    ],
    "abbr": [
        # flight and room numbers in pairs whatever follows, plans, fiscal years, versions, thousands, times
        ("Your flight UA 1234 departs at noon.", "Your flight U.A. twelve thirty four departs at noon."),
        ("Room 405 is ready.", "Room four oh five is ready."),
        ("Your 401(k) grew.", "Your four oh one K grew."),
        ("Our FY2024 revenue grew.", "Our F.Y. twenty twenty four revenue grew."),
        ("Firmware v3.0.4 is out.", "Firmware version three point zero point four is out."),
        ("a 10K steps goal", "a ten K steps goal"),
        ("It's 1.5x faster.", "It's one point five times faster."),
        ("The box is 12 x 10 x 8 inches.", "The box is twelve by ten by eight inches."),
        ("See you at 0900.", "See you at oh nine hundred."),
        ("Acme™ and Acme® are ours.", "Acme and Acme are ours."),
        ("Dr. Smith", "Doctor Smith"),
        ("Elm Dr.", "Elm Drive."),
        ("Call Dr. Smith at 12 Elm Dr. Then go.", "Call Doctor Smith at twelve Elm Drive. Then go."),
        ("St. Louis", "Saint Louis"),
        ("Main St.", "Main Street."),
        ("Mr. and Mrs. Jones", "Mister and Missus Jones"),
        ("Ms. Lee", "Miz Lee"),
        ("apples, pears, etc.", "apples, pears, et cetera."),
        ("Apt. 4", "Apartment four"),
        ("Ste. 200", "Suite two hundred"),
        ("e.g. this", "for example this"),
        ("Prof. Xavier", "Professor Xavier"),
        ("Smith Jr.", "Smith Junior."),
    ],
    "fraction": [
        # one half or quarter before a noun is "a half"; after an article its "one" is not said
        ("It takes 1/2 hour.", "It takes a half hour."),
        ("A 1/4 mile away.", "A quarter mile away."),
        ("Run the 1/2 marathon.", "Run the half marathon."),
        ("Add 1/3 cup.", "Add one third cup."),
        ("Save on 1/2 of the items.", "Save on one half of the items."),
        # a whole number and a vulgar fraction
        ("It is 2½ miles.", "It is two and a half miles."),
        ("Wait 1¼ hours.", "Wait one and a quarter hours."),
        ("About 3¾ cups.", "About three and three quarters cups."),
        # and written with a slash, as recipes do ("one a half cups" before), with a unit said in full
        ("Add 1 1/2 cups of flour.", "Add one and a half cups of flour."),
        ("It takes 2 3/4 hours.", "It takes two and three quarters hours."),
        ("Add 1 1/3 cups.", "Add one and a third cups."),
        ("Cut 2 5/8 inches.", "Cut two and five eighths inches."),
        ("It is 1 1/2 km away.", "It is one and a half kilometers away."),
        ("Add 1½ kg of flour.", "Add one and a half kilograms of flour."),
        # a fraction of a unit: the unit in full and in the singular (it was "a half kg")
        ("Add 1/2 kg of sugar.", "Add a half kilogram of sugar."),
        ("It is 3/4 mi away.", "It is three quarters of a mile away."),
        ("Add 1/3 oz.", "Add one third of an ounce."),
        ("Wait 3/4 h.", "Wait three quarters of an hour."),
    ],
    "date_or_score": [
        # a card's expiry: month and year ("August twenty seventh" before); an offer's date stays a day
        ("The card expires 08/27.", "The card expires August twenty twenty seven."),
        ("Your card is valid thru 12/28.", "Your card is valid thru December twenty twenty eight."),
        ("The offer is valid through 12/31.", "The offer is valid through December thirty first."),
        ("The offer expires 12/25.", "The offer expires December twenty fifth."),
        # days of a range ("December twentieth - twenty three" before)
        ("Your stay: Dec 20-23.", "Your stay: December twentieth to twenty third."),
        ("Estimated delivery: Nov 7 - Nov 9.", "Estimated delivery: November seventh to November ninth."),
        # a weekday written short before a date, a time or another day (espeak read "Fri" as "fry")
        ("Check-in: Fri, Dec 20.", "Check-in: Friday, December twentieth."),
        ("Tue/Thu only.", "Tuesday and Thursday only."),
        ("See you Mon at 9.", "See you Monday at nine."),
        ("Your appt. is confirmed.", "Your appointment is confirmed."),
        ("We're open Sat & Sun.", "We're open Saturday and Sunday."),
        ("Sun-dried tomatoes", "Sun-dried tomatoes"),  # no day
        # a month and a day no fraction is written as are a date without a cue (they were "three fourteen")
        ("Appointment date: 3/14.", "Appointment date: March fourteenth."),
        ("We're closed on 12/25 and 1/1.", "We're closed on December twenty fifth and January first."),
        ("The deadline is 3/31.", "The deadline is March thirty first."),
        ("Add 3/4 cup.", "Add three quarters cup."),  # what a fraction is written as stays one
        # a score out of 5, 10 or 100 ("four point five five stars" before)
        ("Rated 4.5/5 stars.", "Rated four point five out of five stars."),
        ("Your score is 98/100.", "Your score is ninety eight out of one hundred."),
        ("A 9/10 rating.", "A nine out of ten rating."),
    ],
    "phone_key": [
        # a key on its own is named as voice menus do (it was "number", and "*" was dropped)
        ("Press # to repeat this menu or * to return.", "Press pound to repeat this menu or star to return."),
        ("Press 9 then #.", "Press nine then pound."),
        ("Enter your PIN followed by the # key.", "Enter your Pin followed by the pound key."),
        ("We're # 1 in town.", "We're number one in town."),  # before a number it is "number"
        ("### Next steps", "Next steps"),  # a markdown heading's marks are not said
        ("Options:\n* Refund\n* Credit", "Options: Refund Credit"),  # nor a bullet's "*" (no "star")
        ("Call *67 first.", "Call star six seven first."),  # a service code after its key
    ],
    "one_time_code": [
        # codes, passcodes and a card's last digits are said digit by digit (they were cardinals)
        ("Your one-time passcode is 482913.", "Your one-time passcode is four eight two nine one three."),
        ("Your verification code is 482913.", "Your verification code is four eight two nine one three."),
        ("Your account number ends in 6789.", "Your account number ends in six seven eight nine."),
        ("The card ending with 4321.", "The card ending with four three two one."),
        ("Text HELP to 12345.", "Text HELP to one two three four five."),
        ("Use promo code SAVE20.", "Use promo code save twenty."),  # a promo code is a word and a number
        ("Enter code SPRING15.", "Enter code spring fifteen."),
        ("Your confirmation code is ABC123.", "Your confirmation code is A.B.C. one two three."),
        ("You can text us at 55555.", "You can text us at five five five five five."),
        ("Your OTP is 739 204.", "Your O.T.P. is seven three nine, two zero four."),  # a code in groups
        ("The crisis line is 988.", "The crisis line is nine eight eight."),
        ("The offer ends in 2025.", "The offer ends in twenty twenty five."),  # no card or account: a year
    ],
    "compound": [
        # a number joined to words by hyphens: a compound adjective (it was read as a code, "four, D.I.G.I.T.")
        ("Please enter your 4-digit PIN.", "Please enter your four digit Pin."),
        ("You have a 30-day free trial.", "You have a thirty day free trial."),
        ("Our 24-hour hotline.", "Our twenty four hour hotline."),
        ("a 10-year-old child", "a ten year old child"),
        ("Get 2-for-1 tickets.", "Get two for one tickets."),
        ("A 5-star hotel.", "A five star hotel."),
        ("Code 4-ABC.", "Code four, A.B.C."),  # capitals: a code
    ],
    "initialism": [
        ("FBI", "F.B.I."),
        ("the USA", "the U.S.A."),
        ("an API", "an A.P.I."),
        ("the ETA is 5 min", "the E.T.A. is five minutes"),
        ("NASA", "Nasa"),
        ("NATO", "Nato"),
        ("the CEO", "the C.E.O."),
        ("OK", "okay"),
        ("I LOVE THIS", "I LOVE THIS"),
        ("World War II", "World War two"),
        ("the IRS and the DMV", "the I.R.S. and the D.M.V."),
        ("SQL", "S.Q.L."),
        ("ASAP", "A.S.A.P."),
    ],
}

OTHER = [
    ("es", "Cuesta 12,50 €.", "Cuesta doce euros con cincuenta céntimos."),
    ("es", "Tarda 1-2 días.", "Tarda uno a dos días."),
    ("es", "Llame al 555-1234.", "Llame al cinco cinco cinco, uno dos tres cuatro."),
    # nine digits from 6 to 9, in one run or, after a phone's cue, in groups of three (they were millions)
    ("es", "Mi móvil es 612345678.", "Mi móvil es seis uno dos, tres cuatro cinco, seis siete ocho."),
    ("es", "Llámenos al 912 345 678.", "Llámenos al nueve uno dos, tres cuatro cinco, seis siete ocho."),
    (
        "es",
        "Hay 612 345 678 habitantes.",
        "Hay seiscientos doce millones trescientos cuarenta y cinco mil seiscientos setenta y ocho habitantes.",
    ),
    ("de", "Von 100-1000 Euro.", "Von einhundert bis eintausend Euro."),
    ("de", "Bayern gewann 3-1.", "Bayern gewann drei zu eins."),  # a score (it kept its dash)
    ("de", "Von 2020-2024.", "Von zweitausendzwanzig bis zweitausendvierundzwanzig."),
    ("es", "Por 1-2 noches, 80 €/noche.", "Por una a dos noches, ochenta euros por noche."),
    ("de", "Für 1-2 Nächte.", "Für ein bis zwei Nächte."),
    ("de", "Es kostet 3,50 €/Monat.", "Es kostet drei Euro und fünfzig Cent pro Monat."),
    ("fr", "Pour 1-2 nuits, 20 €/nuit.", "Pour une à deux nuits, vingt euros par nuit."),
    ("es", "El 5 de marzo de 1999.", "El cinco de marzo de mil novecientos noventa y nueve."),
    ("es", "El 12,5 % de 1.000.000", "El doce coma cinco por ciento de un millón"),
    ("es", "El Sr. García", "El señor García"),
    ("de", "Es kostet 12,50 €.", "Es kostet zwölf Euro und fünfzig Cent."),
    ("de", "um 15:30 Uhr", "um fünfzehn Uhr dreißig"),
    ("de", "z.B. 3 km", "zum Beispiel drei Kilometer"),
    # a German year up to 1999 in hundreds (no noun after it); a count stays a cardinal
    ("de", "1999 kamen 21 Leute", "neunzehnhundertneunundneunzig kamen einundzwanzig Leute"),
    ("de", "Er zahlt 1999 Euro.", "Er zahlt eintausendneunhundertneunundneunzig Euro."),
    ("fr", "Ça coûte 12,50 €.", "Ça coûte douze euros et cinquante centimes."),
    ("fr", "M. Dupont a 1 000 000 euros.", "Monsieur Dupont a un million euros."),
    # amounts grouped with a space or CLDR's narrow no-break space (these raised ValueError)
    ("fr", "Le total est 12 500,50 €.", "Le total est douze mille cinq cents euros et cinquante centimes."),
    ("fr", "Total 1\u202f000,50 £", "Total mille livres et cinquante pence"),
    ("fr", "le 1er mai", "le premier mai"),
    ("fr", "99 ans", "quatre-vingt-dix-neuf ans"),
    ("es", "Código 0987", "Código cero nueve ocho siete"),
    ("de", "PIN 0042", "PIN null null vier zwei"),
    ("fr", "Code 007", "Code zéro zéro sept"),
    # spans: times, amounts, weekdays, days of a month ("moins" read a French time span as a subtraction)
    ("fr", "Ouvert de 9h-17h.", "Ouvert de neuf heures à dix-sept heures."),
    ("fr", "lun.-ven. 9h30-18h", "lundi au vendredi neuf heures trente à dix-huit heures"),
    ("fr", "entre 9h-17h", "entre neuf heures et dix-sept heures"),
    ("fr", "du 3-5 mai", "du trois au cinq mai"),
    ("fr", "10-20 €", "dix à vingt euros"),
    ("fr", "1,5-2 kg", "un virgule cinq à deux kilos"),
    ("es", "del 3-5 de mayo", "del tres al cinco de mayo"),
    ("es", "de lunes-viernes", "de lunes a viernes"),
    ("es", "lun-vie 9:00-18:00 h", "lunes a viernes nueve en punto a dieciocho en punto"),
    ("es", "1-2 €", "uno a dos euros"),
    ("de", "vom 3.-5. Mai", "vom dritten bis fünften Mai"),
    ("de", "3.-5. Mai 2025", "dritter bis fünfter Mai zweitausendfünfundzwanzig"),
    ("de", "Mo.-Fr. 9:00-18:00 Uhr", "Montag bis Freitag neun Uhr bis achtzehn Uhr"),
    ("de", "Geöffnet Mo-Fr.", "Geöffnet Montag bis Freitag."),
    ("de", "1-2 €", "ein bis zwei Euro"),
    ("de", "Mo.–Fr. geöffnet", "Montag bis Freitag geöffnet"),
    ("fr", "Lun.–Ven. 9h–17h", "lundi au vendredi neuf heures à dix-sept heures"),
    ("fr", "Du 9h-17h", "Du neuf heures à dix-sept heures"),  # "du" contracts days, not hours
    ("de", "rund um die Uhr, 24/7", "rund um die Uhr, vierundzwanzig sieben"),
    # times written with a dot before "Uhr" / "h" (the dot had ended a sentence: "vierzehn. dreißig Uhr")
    ("de", "um 14.30 Uhr", "um vierzehn Uhr dreißig"),
    ("de", "Mo.-Fr. 8.30-17.00 Uhr.", "Montag bis Freitag acht Uhr dreißig bis siebzehn Uhr."),
    ("de", "Es kostet 9.000 Euro.", "Es kostet neuntausend Euro."),  # a group of thousands, no time
    ("es", "a las 9.30 h", "a las nueve y treinta"),
    # a day and a month with their dots and no year ("Am vierundzwanzig. zwölfte")
    ("de", "Am 24.12. haben wir zu.", "Am vierundzwanzigsten Dezember haben wir zu."),
    ("de", "vom 1.3. bis 5.3. geschlossen", "vom ersten März bis zum fünften März geschlossen"),
    ("de", "Bis zum 15.12.", "Bis zum fünfzehnten Dezember."),
    # versions and addresses: a dot that is no decimal point ("Version zwei. zehn" ended a sentence)
    ("de", "Version 2.10 ist da.", "Version zwei Punkt zehn ist da."),
    ("de", "Kapitel 2.10.", "Kapitel zwei Punkt zehn."),
    (
        "de",
        "Die IP ist 192.168.1.1.",
        "Die IP ist eins neun zwei Punkt eins sechs acht Punkt eins Punkt eins.",
    ),
    ("es", "La versión 3.12.1 ya está.", "La versión tres punto doce punto uno ya está."),
    ("fr", "La version 17.4 est sortie.", "La version dix-sept point quatre est sortie."),
    (
        "de",
        "1.234.567 Menschen",
        "eine Million zweihundertvierunddreißigtausendfünfhundertsiebenundsechzig Menschen",
    ),
    # phone numbers: an area code with its zero, then one group; pairs said as numbers in French and Spanish
    (
        "de",
        "Rufen Sie 030 1234567 an.",
        "Rufen Sie null drei null, eins zwei drei vier fünf sechs sieben an.",
    ),
    ("de", "Tel. 030/1234567", "Tel. null drei null, eins zwei drei vier fünf sechs sieben"),
    (
        "fr",
        "Appelez le 01 23 45 67 89.",
        "Appelez le zéro un, vingt-trois, quarante-cinq, soixante-sept, quatre-vingt-neuf.",
    ),
    ("fr", "Au 01.23.45.67.89", "Au zéro un, vingt-trois, quarante-cinq, soixante-sept, quatre-vingt-neuf"),
    (
        "es",
        "Llame al 91 123 45 67.",
        "Llame al noventa y uno, uno dos tres, cuarenta y cinco, sesenta y siete.",
    ),
    # ISO currency codes are the currency's name
    ("de", "Das kostet 12,50 EUR.", "Das kostet zwölf Euro und fünfzig Cent."),
    ("de", "Das kostet EUR 12,50.", "Das kostet zwölf Euro und fünfzig Cent."),
    ("fr", "Ça fait 30 EUR par mois.", "Ça fait trente euros par mois."),
    ("es", "Son 15 USD.", "Son quince dólares."),
    # identifiers after their cue, digit by digit; a short number after a bare noun stays a count
    (
        "de",
        "Ihre Bestellnummer ist 12345678.",
        "Ihre Bestellnummer ist eins zwei drei vier fünf sechs sieben acht.",
    ),
    ("de", "Die PLZ ist 10115.", "Die PLZ ist eins null eins eins fünf."),
    ("de", "Bestellung 3 Pizzen, Zimmernummer 12.", "Bestellung drei Pizzen, Zimmernummer zwölf."),
    (
        "es",
        "Su pedido 12345 llega el 3 de mayo.",
        "Su pedido uno dos tres cuatro cinco llega el tres de mayo.",
    ),
    ("es", "Código postal 28001.", "Código postal dos ocho cero cero uno."),
    ("es", "Habitación número 12.", "Habitación número doce."),
    (
        "fr",
        "Votre numéro de commande est le 12345.",
        "Votre numéro de commande est le un deux trois quatre cinq.",
    ),
    ("fr", "Commande 2 pizzas.", "Commande deux pizzas."),
    ("de", "Die Rechnung über 1200 Euro.", "Die Rechnung über eintausendzweihundert Euro."),
    # fractions ("drei vier der Kunden"); a Spanish or French day and month after an article or "hasta"
    ("de", "Das sind 3/4 der Kunden.", "Das sind drei Viertel der Kunden."),
    ("de", "5/8 Zoll", "fünf Achtel Zoll"),
    ("es", "3/4 de los clientes.", "tres cuartos de los clientes."),
    ("fr", "Environ 2/3 des clients.", "Environ deux tiers des clients."),
    ("fr", "1/2 litre", "un demi litre"),
    # one part agrees with the noun it measures, and drops its "one" after an article
    ("de", "Das dauert 1/2 Stunde.", "Das dauert eine halbe Stunde."),
    ("de", "In 1/2 Stunde bin ich da.", "In einer halben Stunde bin ich da."),
    ("de", "Ein 1/2 Liter Milch.", "Ein halber Liter Milch."),
    ("de", "1/2 Kilo", "ein halbes Kilo"),
    ("de", "Das dauert 1/4 Stunde.", "Das dauert eine Viertel Stunde."),
    ("de", "Es fehlt 1/2 der Stimmen.", "Es fehlt die Hälfte der Stimmen."),
    ("de", "Es fehlt 1/3 der Stimmen.", "Es fehlt ein Drittel der Stimmen."),
    ("es", "Faltan 1/2 hora.", "Faltan media hora."),
    ("es", "Una 1/2 hora.", "Una media hora."),
    ("es", "1/2 kilo de pan.", "medio kilo de pan."),
    ("es", "Un 1/3 de los votos.", "Un tercio de los votos."),
    ("fr", "1/2 heure", "une demi heure"),
    ("fr", "Une 1/2 heure.", "Une demi heure."),
    ("fr", "Les 2/3 des votants.", "Les deux tiers des votants."),
    # a whole number and a vulgar fraction: after the noun in Spanish and French, agreeing with it
    ("de", "Es dauert 2½ Stunden.", "Es dauert zweieinhalb Stunden."),
    ("es", "Son 2½ horas.", "Son dos horas y media."),
    ("es", "Son 3½ kilos.", "Son tres kilos y medio."),
    ("fr", "Il faut 2½ heures.", "Il faut deux heures et demie."),
    ("fr", "2½ kilos de pommes", "deux kilos et demi de pommes"),
    # one and a part: the noun in the singular ("uno y medio horas" before), German "eineinhalb" ("einseinhalb")
    ("es", "Son 1½ horas de viaje.", "Son una hora y media de viaje."),
    ("es", "Llegará en 1 1/2 horas.", "Llegará en una hora y media."),
    ("es", "Un viaje de 1½ meses.", "Un viaje de un mes y medio."),
    ("fr", "Il faut 1½ heures.", "Il faut une heure et demie."),
    ("fr", "Pendant 1½ mois.", "Pendant un mois et demi."),
    ("de", "Es dauert 1½ Stunden.", "Es dauert eineinhalb Stunden."),
    ("de", "Es dauert 101½ Tage.", "Es dauert einhunderteineinhalb Tage."),
    # a day and a month no fraction is written as are a date without a cue ("catorce tercios" before)
    ("es", "Su cita es el lunes 14/03.", "Su cita es el lunes catorce de marzo."),
    ("es", "Su cita es el 14/03 de 2025.", "Su cita es el catorce de marzo de dos mil veinticinco."),
    ("fr", "Le rendez-vous est mardi 14/03.", "Le rendez-vous est mardi quatorze mars."),
    # a negative amount keeps its currency (it was "menos veintitrés coma uno siete"), and cents before the
    # currency's name are cents
    (
        "es",
        "Tiene un saldo de -23,17 €.",
        "Tiene un saldo de menos veintitrés euros con diecisiete céntimos.",
    ),
    (
        "de",
        "Ihr Kontostand beträgt -23,17 €.",
        "Ihr Kontostand beträgt minus dreiundzwanzig Euro und siebzehn Cent.",
    ),
    (
        "fr",
        "Votre solde est de -23,17 €.",
        "Votre solde est de moins vingt-trois euros et dix-sept centimes.",
    ),
    ("es", "Son 29,99 euros al mes.", "Son veintinueve euros con noventa y nueve céntimos al mes."),
    (
        "de",
        "Das kostet 29,99 Euro im Monat.",
        "Das kostet neunundzwanzig Euro und neunundneunzig Cent im Monat.",
    ),
    (
        "fr",
        "Cela fait 29,99 euros par mois.",
        "Cela fait vingt-neuf euros et quatre-vingt-dix-neuf centimes par mois.",
    ),
    ("es", "Abrimos de lunes a viernes 9-2.", "Abrimos de lunes a viernes nueve a dos."),
    ("de", "Geöffnet Mo.-Fr. 9-5.", "Geöffnet Montag bis Freitag neun bis fünf."),
    (
        "de",
        "Unsere Nummer ist +49 30 12345678.",
        "Unsere Nummer ist plus vier neun, drei null, eins zwei drei vier fünf sechs sieben acht.",
    ),
    # codes of letters and digits, character by character (the digits were cardinals); names keep theirs
    ("es", "Su código de confirmación es ABC123.", "Su código de confirmación es A B C uno dos tres."),
    ("de", "Ihr Bestätigungscode ist ABC123.", "Ihr Bestätigungscode ist A B C eins zwei drei."),
    (
        "fr",
        "Votre numéro de suivi est 6A12345678901.",
        "Votre numéro de suivi est six A un deux trois quatre cinq six sept huit neuf zéro un.",
    ),
    (
        "de",
        "Ihre IBAN lautet DE89 3704 0044 0532 0130 00.",
        "Ihre IBAN lautet D E acht neun, drei sieben null vier, null null vier vier, null fünf drei zwei, null eins drei "
        "null, null null.",
    ),
    ("es", "La cumbre del G20.", "La cumbre del G veinte."),
    (
        "fr",
        "Nous sommes ouverts 24h/24 et 7j/7.",
        "Nous sommes ouverts vingt-quatre heures sur vingt-quatre et sept jours sur sept.",
    ),
    ("de", "Der Preis beträgt 1.299,- €.", "Der Preis beträgt eintausendzweihundertneunundneunzig Euro."),
    ("de", "Das sind 3 x 10 Minuten.", "Das sind drei mal zehn Minuten."),
    (
        "de",
        "Etwa 10 Min. zu Fuß, das dauert 1,5 Std.",
        "Etwa zehn Minuten zu Fuß, das dauert eins Komma fünf Stunden.",
    ),
    ("de", "Am Di. um 9 Uhr.", "Am Dienstag um neun Uhr."),
    ("es", "Está en el asiento 23A.", "Está en el asiento veintitrés A."),  # a seat: its number and letter
    # units, ordinals and abbreviations the audit found read wrong
    ("es", "Tome 500 mg cada 8 horas.", "Tome quinientos miligramos cada ocho horas."),
    ("de", "Nehmen Sie 500 mg zweimal täglich.", "Nehmen Sie fünfhundert Milligramm zweimal täglich."),
    ("fr", "Prenez 500 mg deux fois par jour.", "Prenez cinq cents milligrammes deux fois par jour."),
    ("es", "Es el 1.er piso.", "Es el primer piso."),
    ("es", "Usted es el 3.er cliente.", "Usted es el tercer cliente."),
    ("fr", "N° de commande : 45821", "numéro de commande: quatre cinq huit deux un"),
    ("de", "In den 90er Jahren.", "In den neunziger Jahren."),
    ("de", "Die 80er-Jahre.", "Die achtziger Jahre."),
    # German "Fr." before a date is Friday, not "Frau"
    (
        "de",
        "Ihr Termin wurde auf Fr., 7.11. verschoben.",
        "Ihr Termin wurde auf Freitag, siebter November verschoben.",
    ),
    ("de", "Fr. Müller ist da.", "Frau Müller ist da."),
    ("de", "Geöffnet Sa. 10–14 Uhr.", "Geöffnet Samstag zehn bis vierzehn Uhr."),
    # phone keys, and codes after their cue
    (
        "es",
        "Pulse # para repetir o * para volver.",
        "Pulse almohadilla para repetir o asterisco para volver.",
    ),
    ("de", "Drücken Sie # oder *.", "Drücken Sie Raute oder Stern."),
    ("fr", "Appuyez sur la touche # ou sur *.", "Appuyez sur la touche dièse ou sur étoile."),
    (
        "es",
        "Su código de verificación es 482913.",
        "Su código de verificación es cuatro ocho dos nueve uno tres.",
    ),
    ("es", "Su tarjeta terminada en 1234.", "Su tarjeta terminada en uno dos tres cuatro."),
    ("de", "Ihr Einmalcode lautet 482913.", "Ihr Einmalcode lautet vier acht zwei neun eins drei."),
    ("de", "Ihre Karte mit der Endung 1234.", "Ihre Karte mit der Endung eins zwei drei vier."),
    (
        "fr",
        "Votre code de vérification est 482913.",
        "Votre code de vérification est quatre huit deux neuf un trois.",
    ),
    ("fr", "Votre carte se terminant par 1234.", "Votre carte se terminant par un deux trois quatre."),
    # German joins a number to its adjective ("vier -stellige" before)
    ("de", "Geben Sie Ihre 4-stellige PIN ein.", "Geben Sie Ihre vierstellige PIN ein."),
    ("de", "Ein 30-minütiges Gespräch.", "Ein dreißigminütiges Gespräch."),
    ("de", "Eine 3-Zimmer-Wohnung.", "Eine drei Zimmer-Wohnung."),
    # a fraction of a unit (the unit was spelled: "medio kg", "ein halb kg")
    ("es", "Añada 1/2 kg de azúcar.", "Añada medio kilo de azúcar."),
    ("es", "Está a 3/4 km.", "Está a tres cuartos de kilómetro."),
    ("es", "Espere 1/2 h.", "Espere media hora."),
    ("de", "Geben Sie 1/2 kg Zucker dazu.", "Geben Sie ein halbes Kilogramm Zucker dazu."),
    ("de", "Noch 1/2 l.", "Noch ein halber Liter."),
    ("de", "Es sind 3/4 km.", "Es sind drei Viertel Kilometer."),
    ("fr", "Ajoutez 1/4 l de lait.", "Ajoutez un quart de litre de lait."),
    ("fr", "Attendez 3/4 h.", "Attendez trois quarts d'heure."),
    ("fr", "Attendez 1/2 h.", "Attendez une demi heure."),
    # with a slash, and before a unit
    ("es", "Tarda 2 1/2 horas.", "Tarda dos horas y media."),
    ("es", "Pesa 1½ kg.", "Pesa un kilo y medio."),
    ("es", "Agregue 2 1/3 tazas.", "Agregue dos tazas y un tercio."),
    ("de", "Es sind 1 1/2 km.", "Es sind eineinhalb Kilometer."),
    ("fr", "Un trajet de 2 1/2 km.", "Un trajet de deux kilomètres et demi."),
    ("fr", "Il faut 1 1/3 tasses.", "Il faut une tasse et un tiers."),
    ("es", "Su cita es el 3/4.", "Su cita es el tres de abril."),
    ("es", "Hasta el 15/12.", "Hasta el quince de diciembre."),
    ("fr", "Jusqu'au 15/12 inclus.", "Jusqu'au quinze décembre inclus."),
]


@pytest.mark.parametrize(("text", "expected"), EN)
def test_english(text, expected):
    assert normalize(text, "en") == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param(text, spoken, id=f"{cls}:{text}")
        for cls, cases in SPOKEN_FORMS.items()
        for text, spoken in cases
    ],
)
def test_spoken_form(text, expected):
    assert normalize(text, "en") == expected


def test_at_least_100_spoken_form_cases_across_the_classes():
    assert sum(len(c) for c in SPOKEN_FORMS.values()) >= 100
    assert all(len(c) >= 5 for c in SPOKEN_FORMS.values())


@pytest.mark.parametrize(
    ("text", "rule"),
    [
        ("555-0142", "phone"),
        ("0987", "leading_zero"),
        ("911", "n11"),
        ("X7Q9", "code"),
        ("9am", "time_hour"),
        ("FBI", "initialism"),
        ("Dr.", "doctor_drive"),
        ("3.12.1", "dotted"),
        ("2½", "mixed_fraction"),
        ("1-800-FLOWERS", "vanity"),
    ],
)
def test_each_new_class_is_its_own_rule(text, rule):
    assert [s.rule for s in normalize_segments(text, "en")] == [rule]


def test_a_range_is_its_first_number_and_the_dash_then_the_second_by_its_own_rule():
    assert [s.rule for s in normalize_segments("3-5 kg", "en")] == ["range", "unit"]
    assert [s.rule for s in normalize_segments("9am-5pm", "en")] == ["time_range", "time_hour"]
    assert [s.rule for s in normalize_segments("2.5-3 kg", "en")] == ["number_range", "unit"]
    # an amount span is one segment: the currency is named once, after the second amount
    assert [s.rule for s in normalize_segments("$5-10", "en")] == ["currency_range"]
    assert [s.rule for s in normalize_segments("Mon-Fri", "en")] == ["weekday_range"]
    assert [s.rule for s in normalize_segments("555-0142", "en")] == ["phone"]


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
        ("5 km² and 3½", "five square kilometers and three and a half"),
        ("“quoted” – ﬁne…", '"quoted", fine...'),
    ],
)
def test_odd_input_is_skipped_not_fatal(text, expected):
    assert normalize(text, "en") == expected


def test_very_long_number_is_read_digit_by_digit():
    out = normalize("1234567890123456789012345678901234567890", "en")
    assert out.split() == "one two three four five six seven eight nine zero".split() * 4


def test_huge_but_readable_number():
    assert normalize("999,999,999,999,999", "en").startswith("nine hundred and ninety nine trillion")
    assert normalize("1000000000000", "en") == "one trillion"  # round: an amount


def test_nine_or_more_ungrouped_digits_are_an_identifier():
    # an IMEI, a PUK, a tax number: digit by digit, in every language (they were "trillion", "billones")
    assert normalize("Your IMEI is 356938035643809.", "en").split()[3:6] == ["three", "five", "six"]
    assert normalize("El IMEI es 356938035643809.", "es").split()[3:6] == ["tres", "cinco", "seis"]
    assert normalize("Votre numéro fiscal est 1234567890123.", "fr").split()[4:6] == ["un", "deux"]
    assert normalize("Il codice IMEI è 356938035643809.", "it").split()[4:6] == ["tre", "cinque"]
    assert normalize("Population 12,345,678,901", "en").startswith("Population twelve billion")


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
        for lang in (
            "it",
            "pt",
            "ru",
            "pl",
            "cs",
            "sk",
            "sl",
            "sr",
            "uk",
            "hr",
            "fi",
            "da",
            "no",
            "nl",
        ):  # CLDR rules, agreement: no exception
            assert isinstance(normalize(s, lang), str)


@pytest.mark.parametrize(
    ("lang", "text", "expected"),
    [
        # amounts after words that also name identifiers stay amounts
        ("es", "La cuenta es 1500 pesos.", "La cuenta es mil quinientos pesos."),
        ("es", "El número de asistentes es 1200.", "El número de asistentes es mil doscientos."),
        ("de", "Die Bestellung ist 1500 Euro.", "Die Bestellung ist eintausendfünfhundert Euro."),
        ("fr", "L'hôtel compte 1200 chambres.", "L'hôtel compte mille deux cents chambres."),
        # a month and a year, and a time after "um", are no phone number and no date
        ("de", "Gültig bis 03/2026.", "Gültig bis null drei zweitausendsechsundzwanzig."),
        ("de", "Der Zug fährt um 8.10.", "Der Zug fährt um acht Uhr zehn."),
        ("de", "Von 9.30 bis 17.00.", "Von neun Uhr dreißig bis siebzehn Uhr."),
        ("es", "Son las 10.30.", "Son las diez y treinta."),
        ("fr", "Il est à 10.30.", "Il est à dix heures trente."),
        # fractions stay fractions before "of", a plural noun, "de"/"des"; 9/11 is a name
        ("en", "It works on 9/10 devices.", "It works on nine out of ten devices."),
        ("en", "Save on 1/2 of the items.", "Save on one half of the items."),
        ("en", "Since 9/11 things changed.", "Since nine eleven things changed."),
        ("es", "Llegó 1/3 de los invitados.", "Llegó un tercio de los invitados."),
        ("fr", "Le 1/3 des participants.", "Le tiers des participants."),
        # a version cue before an amount or a size
        ("en", "We'll update 1.25 million records.", "We'll update one point two five million records."),
        ("en", "Download firmware 2.5 MB.", "Download firmware two point five megabytes."),
        # catalog languages: grouped amounts keep their currency, unit or percent; spans and counts stay
        (
            "pl",
            "Stojí 1 234 567 €.",
            "Stojí milion dwieście trzydzieści cztery tysiące pięćset sześćdziesiąt siedem euro.",
        ),
        ("pl", "1 250 000 zł", "milion dwieście pięćdziesiąt tysięcy złotych"),
        (
            "it",
            "1.234.567,89 €",
            "un milione e duecentotrentaquattromilacinquecentosessantasette euro e ottantanove",
        ),
        ("pl", "Otwarte 08-16.", "Otwarte osiem - szesnaście."),
        ("pl", "Temperatura +20-25 stopni.", "Temperatura dwadzieścia - dwadzieścia pięć stopni."),
        ("ru", "в 09 часов", "в девять часов"),
        ("uk", "Запишіться на 3 грудня.", "Запишіться на третє грудня."),
        ("uk", "Запис на 10:00.", "Запис на десяту."),
        ("uk", "000 рік", "нуль рік"),
    ],
)
def test_what_a_review_found_read_as_numbers_amounts_times_and_fractions(lang, text, expected):
    assert normalize(text, lang) == expected


@pytest.mark.parametrize("lang", ["en", "es", "de", "fr", "it", "pl", "ru", "uk", "ja", "zh", "hi"])
def test_thousands_of_digits_are_read_not_raised(lang):
    # int() refuses strings of more than 4300 digits; these raised ValueError in some languages
    for text in (
        "1" + " 234" * 1500,
        "1" + ".234" * 1500,
        "0" + "1" * 5000,
        "1" * 5000 + " km",
        "€" + "1" * 5000,
    ):
        assert normalize(text, lang)


@pytest.mark.parametrize(
    ("lang", "text", "expected"),
    [
        (
            "ru",
            "Это стоит 123 456 789 012 345 678 рублей.",
            "Это стоит один два три четыре пять шесть семь восемь девять ноль один два три четыре пять шесть семь"
            " восемь рублей.",
        ),
        (
            "pt",
            "1.234.567.890.123.456.789",
            "um dois três quatro cinco seis sete oito nove zero um dois três quatro cinco seis sete oito nove",
        ),
        (
            "ja",
            "1,234,567,890,123,456",
            "いち に さん よん ご ろく なな はち きゅう ゼロ いち に さん よん ご ろく",
        ),
        ("zh", "1,234,567,890,123,456", "幺 二 三 四 五 六 七 八 九 零 幺 二 三 四 五 六"),
    ],
)
def test_a_grouped_number_past_any_quantity_is_read_digit_by_digit(lang, text, expected):
    # it was left as one digit string ("123456789012345678"), of which espeak-ng read a few digits and dropped
    # the rest: a 600-character sentence of such groups gave 135 phones
    assert normalize(text, lang) == expected


@pytest.mark.parametrize("lang", ["ru", "pl", "pt", "sv", "cs", "uk", "it", "ja", "zh", "ar", "tr", "vi"])
def test_no_number_past_any_quantity_is_left_in_digits_where_the_language_has_number_words(lang):
    from model_server.frontend.normalize_intl.amounts import spell_number

    assert not re.search(r"\d", spell_number(10**20 + 7, lang))
    assert not re.search(r"\d", normalize(" ".join(["123"] * 10), lang))


@pytest.mark.parametrize(
    ("lang", "text", "expected"),
    [
        # amounts beside a currency in the other convention, and pence
        ("en", "There is a $2.50 convenience fee.", "There is a two dollar and fifty cent convenience fee."),
        ("en", "a £2.50 fee", "a two pound fifty fee"),
        (
            "en",
            "The total is €1.250,00 today.",
            "The total is one thousand two hundred and fifty euros today.",
        ),
        ("en", "Only $.99 per song.", "Only ninety nine cents per song."),
        ("en", "It costs 99p, or 1p more.", "It costs ninety nine pence, or one penny more."),
        ("en", "Watch it in 720p.", "Watch it in seven two zero P."),
        ("es", "El total es $45.99.", "El total es cuarenta y cinco dólares con noventa y nueve centavos."),
        ("es", "El precio es $1.250.", "El precio es mil doscientos cincuenta dólares."),
        ("de", "Das kostet 1.25 €.", "Das kostet einen Euro und fünfundzwanzig Cent."),
        # clinical units
        (
            "en",
            "Your glucose was 110 mg/dL and potassium 4.1 mmol/L.",
            "Your glucose was one hundred and ten milligrams per deciliter and potassium four point one"
            " millimoles per liter.",
        ),
        ("de", "Der Wert ist 95 mg/dl.", "Der Wert ist fünfundneunzig Milligramm pro Deziliter."),
        # phone numbers: a German extension, a French number in threes, a trunk zero in brackets
        (
            "de",
            "Rufen Sie 030 12345-678 an.",
            "Rufen Sie null drei null, eins zwei drei vier fünf, sechs sieben acht an.",
        ),
        (
            "fr",
            "Appelez le 0 800 123 456.",
            "Appelez le zéro, huit cents, cent vingt-trois, quatre cent cinquante-six.",
        ),
        ("fr", "+1 555 123 4567", "plus un, cinq cinq cinq, un deux trois, quatre cinq six sept"),
        (
            "en",
            "Call +44 (0)20 7946 0958 today.",
            "Call plus four four, two zero, seven nine four six, zero nine five eight today.",
        ),
        # addresses
        (
            "de",
            "Wir sind in der Goethestr. 12, 10115 Berlin.",
            "Wir sind in der Goethestraße zwölf, eins null eins eins fünf Berlin.",
        ),
        ("de", "Karl-Marx-Str. 5a", "Karl-Marx-Straße fünf a"),
        ("de", "Ich wohne in der Hauptstr. Sie ist schön.", "Ich wohne in der Hauptstraße. Sie ist schön."),
        ("de", "Es kamen 12, 10115 Menschen.", "Es kamen zwölf, zehntausendeinhundertfünfzehn Menschen."),
        (
            "es",
            "Vivo en la Av. de la Constitución n.º 5, 3º B izq.",
            "Vivo en la avenida de la Constitución número cinco, tercero B izquierda.",
        ),
        ("es", "Es el 3º piso.", "Es el tercer piso."),
        ("en", "We are at 12 Elm St. Apt. 4B.", "We are at twelve Elm Street Apartment four B."),
        ("en", "Go to 500 Main St. NW, then turn.", "Go to five hundred Main Street Northwest, then turn."),
        ("en", "It is on Elm St. Every day we walk.", "It is on Elm Street. Every day we walk."),
        # weekdays written short with their dot
        ("es", "Horario: lun.-vie. de 9 a 18 h.", "Horario: lunes a viernes de nueve a dieciocho horas."),
        ("fr", "Ouvert lun.-ven.", "Ouvert lundi au vendredi."),
        # letters joined by "&", and acronyms said as words
        ("en", "Call AT&T about your FICO score.", "Call A.T. and T about your Fico score."),
        ("en", "Join the Q&A.", "Join the Q and Eigh."),
        ("en", "I like M&M's.", "I like M and M's."),
        ("en", "WE & YOU", "WE and YOU"),
        # a list of dates: its first item is a date too, unless the list is of fractions
        ("en", "Dates: 3/10, 3/12 and 3/15.", "Dates: March tenth, March twelfth and March fifteenth."),
        ("en", "Add 1/2, 3/4 or 12/5 of it.", "Add one half, three quarters or twelve fifths of it."),
    ],
)
def test_what_the_audit_found_in_amounts_phone_numbers_and_addresses(lang, text, expected):
    assert normalize(text, lang) == expected


@pytest.mark.parametrize(
    ("lang", "text", "expected"),
    [
        # Portuguese amounts grouped with dots (Brazil's way, common in Portugal), reais, phone numbers
        (
            "pt",
            "O saldo é de 1.284,37 €.",
            "O saldo é de mil duzentos e oitenta e quatro euros e trinta e sete.",
        ),
        ("pt", "Tem 12.500 pontos.", "Tem doze mil e quinhentos pontos."),
        ("pt", "O valor é de R$ 50.", "O valor é de cinquenta reais brasileiros."),
        ("pt", "Ligue para o 912 345 678.", "Ligue para o nove um dois, três quatro cinco, seis sete oito."),
        ("pt", "0.001", "zero. zero zero um"),
        (
            "it",
            "255.255.255.255",
            "due cinque cinque punto due cinque cinque punto due cinque cinque punto due cinque cinque",
        ),
        # a sentence's end after a short street type or weekday; and the address going on
        ("en", "Turn onto Oak Rd. Then left.", "Turn onto Oak Road. Then left."),
        ("en", "Call us on Mon. We'll be open.", "Call us on Monday. We'll be open."),
        (
            "en",
            "The office is at 1600 Pennsylvania Ave. NW.",
            "The office is at sixteen hundred Pennsylvania Avenue Northwest.",
        ),
        ("de", "Ihr Flug hat 45 Min. Verspätung.", "Ihr Flug hat fünfundvierzig Minuten Verspätung."),
        (
            "de",
            "Die Fahrt dauert 45 Min. Bitte kommen Sie.",
            "Die Fahrt dauert fünfundvierzig Minuten. Bitte kommen Sie.",
        ),
        # house numbers, PO boxes and compass points of American addresses
        (
            "en",
            "Our warehouse is at 2200 Industrial Blvd, Reno.",
            "Our warehouse is at twenty two hundred Industrial Boulevard, Reno.",
        ),
        ("en", "Send it to P.O. Box 4521.", "Send it to P.O. Box forty five twenty one."),
        ("en", "Go to 1234 N Main St.", "Go to twelve thirty four North Main Street."),
        ("en", "It is 2000 Main Street.", "It is two thousand Main Street."),
        # toll-free numbers without their 1, seats after "is", a doctor's degree
        ("en", "Call 800-555-0199.", "Call eight hundred, five five five, zero one nine nine."),
        ("en", "Your seat is 23A.", "Your seat is twenty three Eigh."),
        ("en", "Your appointment is with Dr. Nguyen, MD.", "Your appointment is with Doctor Nguyen, M.D."),
        ("en", "Ship it to Baltimore, MD 21201.", "Ship it to Baltimore, Maryland two one two zero one."),
        # an amount after "the" or a possessive qualifies its noun, unless a verb or a pronoun follows
        ("en", "after the $50 credit", "after the fifty dollar credit"),
        ("en", "The $50 you paid", "The fifty dollars you paid"),
        # months written short after a day, weekdays short in a span
        ("fr", "Votre RDV est le 12 sept. à 10h.", "Votre RDV est le douze septembre à dix heures."),
        ("fr", "Le 15 janv.", "Le quinze janvier."),
        ("es", "Hasta el 31 dic. 2025.", "Hasta el treinta y uno de diciembre de dos mil veinticinco."),
        ("de", "Am 12. Sept. schließen wir.", "Am zwölften September schließen wir."),
        ("fr", "Ouvert du lun. au sam.", "Ouvert du lundi au samedi."),
        ("de", "Wir haben von Mo. bis Sa. geöffnet.", "Wir haben von Montag bis Samstag geöffnet."),
        ("es", "Voy de mar a mar.", "Voy de mar a mar."),
        # German and Spanish short forms
        (
            "de",
            "Der Preis beträgt 1.250 € zzgl. MwSt.",
            "Der Preis beträgt eintausendzweihundertfünfzig Euro zuzüglich Mehrwertsteuer.",
        ),
        ("de", "Zinsen: 3,25 % p.a.", "Zinsen: drei Komma zwei fünf Prozent pro Jahr."),
        ("es", "Tiene 3 uds. en su carrito.", "Tiene tres unidades en su carrito."),
        ("es", "Le atiende D.ª Carmen Ruiz.", "Le atiende doña Carmen Ruiz."),
        # how often
        ("de", "Nehmen Sie 20 Tropfen 3x täglich.", "Nehmen Sie zwanzig Tropfen dreimal täglich."),
        ("es", "Tome 20 gotas 3x al día.", "Tome veinte gotas tres veces al día."),
        ("es", "Oferta 2x1.", "Oferta dos por uno."),
        ("en", "Apply it 2x/day.", "Apply it twice a day."),
        ("en", "It's 1.5x faster.", "It's one point five times faster."),
        # units: compound, clinical, data and energy in every language, squared, decimals without trailing zeros
        ("en", "The dose is 10 mg/kg.", "The dose is ten milligrams per kilogram."),
        (
            "en",
            "It was 120/80 mmHg, pulse 72 bpm.",
            "It was one twenty over eighty, pulse seventy two beats per minute.",
        ),
        (
            "de",
            "Sie verbrauchten 3.240 kWh.",
            "Sie verbrauchten dreitausendzweihundertvierzig Kilowattstunden.",
        ),
        ("fr", "Il vous reste 2,5 Go.", "Il vous reste deux virgule cinq gigaoctets."),
        ("de", "Mit 250 Mbit/s.", "Mit zweihundertfünfzig Megabit pro Sekunde."),
        ("fr", "L'appartement fait 45 m².", "L'appartement fait quarante-cinq mètres carrés."),
        ("en", "1,200 ft² and x²", "one thousand two hundred square feet and x"),
        ("de", "Das Paket ist 1,20 m lang.", "Das Paket ist eins Komma zwei Meter lang."),
        ("es", "Pesa 1.5 kg.", "Pesa uno coma cinco kilos."),
        # identifiers after "n°", postcodes before their town
        (
            "fr",
            "Votre commande n° 558912 a été expédiée.",
            "Votre commande numéro cinq cinq huit neuf un deux a été expédiée.",
        ),
        ("es", "Su pedido n° 558912.", "Su pedido número cinco cinco ocho nueve uno dos."),
        (
            "fr",
            "25, rue de la Paix, 75002 Paris.",
            "vingt-cinq, rue de la Paix, soixante-quinze zéro zéro deux Paris.",
        ),
        (
            "es",
            "Estamos en calle Alcalá 45, 28014 Madrid.",
            "Estamos en calle Alcalá cuarenta y cinco, dos ocho cero uno cuatro Madrid.",
        ),
        ("es", "C/ Mayor 5", "calle Mayor cinco"),
        # quarters as year cues, ordinals joined by a hyphen, e-mail marks, a Spanish slash
        (
            "en",
            "Your statement for Q4 2024 is ready.",
            "Your statement for Q four twenty twenty four is ready.",
        ),
        ("en", "The 3rd-party charge.", "The third party charge."),
        (
            "en",
            "Email john_smith+orders@gmail.com now.",
            "Email john underscore smith plus orders at gmail dot com now.",
        ),
        ("es", "Visite www.banco.es/ayuda hoy.", "Visite www punto banco punto es barra ayuda hoy."),
        # items left open before: temperatures, list letters and steps, "L-V", "beträgt"
        ("en", "It will be 72F tomorrow.", "It will be seventy two degrees Fahrenheit tomorrow."),
        ("en", "Store below 25C.", "Store below twenty five degrees Celsius."),
        ("en", "Your seat is 12F.", "Your seat is twelve F."),
        ("en", "Choose (a) or (b).", "Choose Eigh, or B."),
        ("en", "Pick (b) or (a).", "Pick B, or Eigh."),
        ("en", "Seat 23A is by the window.", "Seat twenty three Eigh is by the window."),
        ("en", "Apartment 4A is ready.", "Apartment four Eigh is ready."),
        ("en", "Enter the item(s).", "Enter the item(s)."),
        ("de", "1. Öffnen Sie die App.", "eins. Öffnen Sie die App."),
        ("de", "Der 1. FC Köln spielt.", "Der erste FC Köln spielt."),
        ("es", "Abierto L-V de 9 a 14.", "Abierto lunes a viernes de nueve a catorce."),
        (
            "en",
            "We are closed on Martin Luther King Jr. Day.",
            "We are closed on Martin Luther King Junior Day.",
        ),
        ("en", "Ask for Sammy Davis Jr. He knows.", "Ask for Sammy Davis Junior. He knows."),
        ("de", "Der Preis beträgt 1,20 €.", "Der Preis beträgt einen Euro und zwanzig Cent."),
    ],
)
def test_what_the_second_audit_found_in_agent_sentences(lang, text, expected):
    assert normalize(text, lang) == expected


@pytest.mark.parametrize(
    ("lang", "text", "expected"),
    [
        # a third audit (telehealth, travel, banking, retail): sizes with a slash were dates or fractions
        ("en", "This shirt comes in Size 10/12.", "This shirt comes in Size ten twelve."),
        ("en", "Size 8/10", "Size eight ten"),
        ("en", "Shoe size 10.5/11", "Shoe size ten and a half eleven"),
        (
            "en",
            "The dress comes in sizes 2/4, 6/8 and 10/12.",
            "The dress comes in sizes two four, six eight and ten twelve.",
        ),
        ("en", "See you on 10/12.", "See you on October twelfth."),  # no size: still a date
        (
            "en",
            "We have size 10 in stock, delivery by 3/15.",
            "We have size ten in stock, delivery by March fifteenth.",
        ),
        # the last digits of a masked card: one by one (they were "four thousand eight hundred ...")
        ("en", "Your account ending in ...4821.", "Your account ending in four eight two one."),
        ("en", "Card ending in ****4821.", "Card ending in four eight two one."),
        ("en", "xxxx-xxxx-xxxx-4821", "four eight two one"),
        ("en", "Wait... 45 minutes.", "Wait... forty five minutes."),  # an ellipsis is a pause
        ("en", "Your total is **42** dollars.", "Your total is forty two dollars."),  # markdown bold, no mask
        ("es", "Tarjeta terminada en ****4821.", "Tarjeta terminada en cuatro ocho dos uno."),
        # a capital and one or two digits are a name and its number (they were "B one two")
        ("en", "Take vitamin B12.", "Take vitamin B twelve."),
        ("en", "Your gate changed from C12 to C18.", "Your gate changed from C twelve to C eighteen."),
        ("en", "Your seats are 14C and 14D.", "Your seats are fourteen C and fourteen D."),
        ("en", "Samsung Galaxy S24.", "Samsung Galaxy S twenty four."),
        ("en", "Your confirmation code is A12.", "Your confirmation code is Eigh one two."),  # a code
        # "MM" is finance's million (it was "one hundred and fifty dollars MM")
        ("en", "The company raised $150MM.", "The company raised one hundred and fifty million dollars."),
        # a group of three digits ends there: "T3 2025" was "T tres mil doscientos dos cinco"
        ("es", "Resultados del T3 2025.", "Resultados del T tres dos mil veinticinco."),
        ("de", "Zahlen für Q3 2025.", "Zahlen für Q drei zweitausendfünfundzwanzig."),
        (
            "fr",
            "Il y a 1 234 567 habitants.",
            "Il y a un million deux cent trente-quatre mille cinq cent soixante-sept habitants.",
        ),
        # clothing sizes are letters: espeak-ng read "XL" as the roman numeral 40 ("cuarenta")
        ("es", "La talla XL.", "La talla X.L."),
        ("fr", "Taille XXL.", "Taille X.X.L."),
        ("de", "1,2 Mio. Euro.", "eins Komma zwei Millionen Euro."),
        (
            "de",
            "Der Gewinn betrug 3 Mio. Danach kam der Verlust.",
            "Der Gewinn betrug drei Millionen. Danach kam der Verlust.",
        ),
    ],
)
def test_what_the_third_audit_found_in_agent_sentences(lang, text, expected):
    assert normalize(text, lang) == expected


@pytest.mark.parametrize(
    ("lang", "text", "expected"),
    [
        # blood pressure after its cue in es/de/fr (it was "doce de agosto")
        ("es", "Su tensión es de 12/8.", "Su tensión es de doce ocho."),
        ("fr", "Votre tension est à 12/8.", "Votre tension est à douze huit."),
        ("fr", "Ta facture du 20/11.", "Ta facture du vingt novembre."),  # "ta" is "your", not TA
        ("de", "Ihr Blutdruck liegt bei 120/80.", "Ihr Blutdruck liegt bei einhundertzwanzig zu achtzig."),
        ("es", "La cita es el 12/8.", "La cita es el doce de agosto."),  # no cue: a date
        # a hexadecimal code character by character (Spanish read its "x" as "por")
        ("es", "Error 0x80070005.", "Error cero X ocho cero cero siete cero cero cero cinco."),
        ("de", "Fehler 0x1F.", "Fehler null X eins F."),
        # sizes and dimensions
        ("en", "The jeans are 32x34.", "The jeans are thirty two by thirty four."),
        ("en", "Screen is 1920x1080.", "Screen is nineteen twenty by ten eighty."),
        ("en", "A 2x4 board.", "A two by four board."),
        ("en", "It is 3x faster.", "It is three times faster."),
        # results: a zero, a record, a cue after the score (the dash was a pause)
        ("en", "The Chiefs won 27-0.", "The Chiefs won twenty seven to zero."),
        ("en", "It was a 3-0 win.", "It was a three to zero win."),
        ("en", "The team went 10-2 this season.", "The team went ten and two this season."),
        ("en", "For ages 3-5.", "For ages three to five."),
        ("es", "Ganó 3-1.", "Ganó tres a uno."),
        ("fr", "Le PSG a gagné 3-1.", "Le PSG a gagné trois à un."),
        ("de", "Es steht 2:0.", "Es steht zwei zu null."),
        ("de", "Um 3:15 Uhr.", "Um drei Uhr fünfzehn."),
        ("de", "Die Sitzung endete um 17:30.", "Die Sitzung endete um siebzehn Uhr dreißig."),  # a clock time
        ("de", "Die Ware steht 3-5 Tage bereit.", "Die Ware steht drei bis fünf Tage bereit."),  # a range
        ("en", "I went there 2-3 times.", "I went there two to three times."),
        ("en", "We keep records 5-7 years.", "We keep records five to seven years."),
        ("it", "Ha vinto 3-1.", "Ha vinto tre a uno."),
        ("pt", "Venceu por 3-1.", "Venceu por três a um."),
        # versions and addresses: the dot and the slash said, the "v" of es/de/fr not
        ("es", "Versión v2.3.1.", "Versión dos punto tres punto uno."),
        ("de", "Version v2.3.1.", "Version zwei Punkt drei Punkt eins."),
        ("it", "Versione v2.3.1.", "Versione due punto tre punto uno."),
        ("it", "Vada su 192.168.1.1.", "Vada su uno nove due punto uno sei otto punto uno punto uno."),
        ("pt", "Veja www.exemplo.pt/ajuda.", "Veja www ponto exemplo ponto pt barra ajuda."),
        ("en", "Firmware v3.0.4 is out.", "Firmware version three point zero point four is out."),
        # model, port and status numbers in pairs
        ("en", "Port 8080.", "Port eighty eighty."),
        ("en", "That page returned a 404 error.", "That page returned a four oh four error."),
        ("en", "Error 503 again.", "Error five oh three again."),
        ("en", "RTX 4090", "R.T.X. forty ninety"),
        ("en", "We have 404 users.", "We have four hundred and four users."),
        ("en", "There were 450 error reports.", "There were four hundred and fifty error reports."),
        # doses every so many hours; roman numerals after a word that numbers or a monarch's name
        ("en", "Take 500 mg q8h.", "Take five hundred milligrams every eight hours."),
        ("en", "Use 2 puffs q4-6h.", "Use two puffs every four to six hours."),
        ("en", "You have type II diabetes.", "You have type two diabetes."),
        ("en", "Super Bowl LVIII was in Las Vegas.", "Super Bowl fifty eight was in Las Vegas."),
        ("en", "King Charles III spoke.", "King Charles the third spoke."),
        ("en", "Grade C students", "Grade C students"),
        ("en", "Is this the part I ordered?", "Is this the part I ordered?"),  # a cue, then the pronoun
        ("en", "Thanks Mark I appreciate it.", "Thanks Mark I appreciate it."),
        ("en", "Schedule CC?", "Schedule C.C.?"),
        ("en", "Part I.", "Part one."),
        # the catalog languages: IBANs, compound units, "x" in sizes; French durations
        (
            "it",
            "IBAN IT60 X054 2811 1010.",
            "IBAN I.T. sei zero, X zero cinque quattro, due otto uno uno, uno zero uno zero.",
        ),
        ("it", "98 mg/dl.", "novantotto milligrammi al decilitro."),
        ("pt", "5 mg/kg", "cinco miligramas por quilograma"),
        ("it", "Il quadro misura 30 x 40 cm.", "Il quadro misura trenta per quaranta centimetri."),
        ("pt", "Promo 3x2.", "Promo três por dois."),
        ("fr", "Le vol dure 2 h 15 min.", "Le vol dure deux heures quinze minutes."),
        ("fr", "Rendez-vous à 14 h 30.", "Rendez-vous à quatorze heures trente."),
        # kitchen, pharmacy and lab units; a unit before "/day"; a unit after the word "per"
        ("en", "Take 1 tsp.", "Take one teaspoon."),
        ("en", "Use 3,000 mg/day.", "Use three thousand milligrams per day."),
        ("es", "Tome 500 mg/día.", "Tome quinientos miligramos por día."),
        ("en", "Sodium is 140 mEq/L.", "Sodium is one hundred and forty milliequivalents per liter."),
        ("en", "That is $3.49 per lb.", "That is three dollars and forty nine cents per pound."),
        ("en", "Enter the expiry date as month/year.", "Enter the expiry date as month year."),
        ("en", "The frame is 30 x 40 cm.", "The frame is thirty by forty centimeters."),
        # a range after a capitalized plural (a singular name keeps its dash: a model, a room)
        ("en", "Read Chapters 3-4 tonight.", "Read Chapters three to four tonight."),
        ("en", "Meet at Gate B 5-7.", "Meet at Gate B five - seven."),
        # a diagnosis code keeps its zero; a well-known name-number stays one after "code is"
        (
            "en",
            "The diagnosis code is ICD-10 E11.9.",
            "The diagnosis code is I.C.D. ten E eleven point nine.",
        ),
        ("en", "Billed under J06.9.", "Billed under J zero six point nine."),
        # a fraction before a plural it counts is "out of" (a measure keeps its fraction)
        ("en", "You have 3/5 lives left.", "You have three out of five lives left."),
        ("en", "Add 3/4 cups of flour.", "Add three quarters cups of flour."),
        ("en", "Run 3/4 kilometers.", "Run three quarters kilometers."),  # a measure, not a count
        # a house number of three digits in pairs too; a compass letter before a numbered street
        (
            "en",
            "Our warehouse is at 4500 W 5th St.",
            "Our warehouse is at forty five hundred West fifth Street.",
        ),
        ("en", "Ship it to 123 Main St.", "Ship it to one twenty three Main Street."),
        ("en", "We have 350 stores.", "We have three hundred and fifty stores."),
        # a web address's port and query string are read out (the query kept a raw "?" and "123" was a number)
        ("en", "http://localhost:8080/admin", "localhost colon eight zero eight zero slash admin"),
        (
            "en",
            "Visit https://example.com/reset?user=123&lang=en now.",
            "Visit example dot com slash reset question mark user equals one two three and lang equals en now.",
        ),
        (
            "es",
            "Visite www.banco.es/ayuda?id=5 hoy.",
            "Visite www punto banco punto es barra ayuda signo de interrogación id igual cinco hoy.",
        ),
    ],
)
def test_what_the_third_audit_found_beyond_the_first_fixes(lang, text, expected):
    assert normalize(text, lang) == expected
