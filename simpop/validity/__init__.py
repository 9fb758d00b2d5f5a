"""simpop's checks of itself, apart from the simulator they check: how far a simulated figure
predicts the real one, and real patients' figure corrected by a few labels."""
