"""Token counting: the counter protocol, the bytes and calibrated estimates, exact tokenizers, the counter factory."""
