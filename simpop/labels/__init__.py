"""Human labels: the files people label (``files``), a run's clinician round trip
(``clinicians``) and the per-persona table of their verdicts (``table``)."""
