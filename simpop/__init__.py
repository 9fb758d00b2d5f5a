"""simpop: simulated patient populations that stress-test medical question-answering chatbots."""

__version__ = "0.1.0"
