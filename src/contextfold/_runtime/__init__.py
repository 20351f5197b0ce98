"""Runtime state around the model call: hints, system-prompt layers, steering, the read cache."""
