"""Tying machine scores to human labels: HCAT's two-stage calibration (probability calibration,
then split conformal prediction) and ASTRID's clinical-risk models."""
