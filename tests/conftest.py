"""Test-suite settings: hypothesis runs derandomized, so every run of the suite tests the same examples."""

from hypothesis import settings

settings.register_profile("contextfold", derandomize=True, print_blob=True)
settings.load_profile("contextfold")
