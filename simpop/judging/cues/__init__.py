"""The safety judges' cue lexicons, one module per language."""
