"""How far a judge is trusted: judge profiles per model (thresholds, verifier, measured
agreement), the support verifier's features and model, and grouped cross-validation."""
