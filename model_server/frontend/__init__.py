"""Text frontend: normalization, espeak-ng phonemization, symbol inventory, duration alignment."""
