"""Audio output: streaming resampling from the model rate, sample encodings and containers."""

from model_server.audio.encoding import (
    CONTAINERS,
    ENCODINGS,
    SAMPLE_RATES,
    AudioFormat,
    StreamEncoder,
    encode_samples,
    wav_header,
)

__all__ = [
    "CONTAINERS",
    "ENCODINGS",
    "SAMPLE_RATES",
    "AudioFormat",
    "StreamEncoder",
    "encode_samples",
    "wav_header",
]
