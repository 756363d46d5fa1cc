"""The acoustic model (phones -> vocoder features), its checkpoints and the streaming runtime."""
