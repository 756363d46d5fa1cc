"""Text normalization: turn written text into the words a speaker would say.

One left-to-right scan with a table of rules (`_rules(language)`), tried in order at each position:
currency, dates, times, phone-number-like digit groups, percentages, ordinals, numbers with units,
decimals, grouped and plain numbers, abbreviations and symbols. Text between matches is kept, minus
characters that cannot be spoken (emoji, other scripts, control characters), which are skipped.

`normalize_segments()` keeps, for every piece, the original text next to the spoken text, so the
frontend can report word timestamps against what the client sent ("$12.50" rather than "twelve dollars
and fifty cents"). `normalize()` is the spoken text alone.

Number words come from num2words for every language; English number words lose their commas and
hyphens ("nineteen ninety nine"), so the English frontend sees one word per spoken word.

The package, one module per class of written form, each readable on its own:

- `words`: number words in each language and the helpers every rule shares;
- `amounts`: currencies, percentages, units and rates; `dates`: dates, times, years and weekdays;
- `codes`: phone numbers, keys and identifiers read digit by digit; `ranges`: spans joined by a dash;
- `fractions`; `address`: street addresses; `abbreviations`: short forms, symbols and initialisms;
- `rules`: the table that orders the rules per language; `scan`: the pass that applies it.

Names with a leading underscore are internal to the package: its modules share them, nothing outside does.
"""

from .scan import LANGUAGES, NormalizationError, Segment, normalize, normalize_segments

__all__ = ["LANGUAGES", "NormalizationError", "Segment", "normalize", "normalize_segments"]
