"""The simulated population: which cells a run has, and the questions its patients ask."""
