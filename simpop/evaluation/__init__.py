"""How far the judges agree with people, on labelled data they were not tuned on: the support
judge and its verifier (``agreement``, ``judge_training``), the refusal and contradiction judges
(``refusal_agreement``, ``contradiction_agreement``), the safety classifiers
(``safety_agreement``, ``safety_training``), and the scores of a standalone label file
(``label_scores``)."""
