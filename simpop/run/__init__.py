"""The jobs that produce records: a run's stages (``plan``, ``generate``, ``ask``, ``score``,
``summarise``, wired by ``execute``), conversations (``converse``), the yes/no benchmark
(``yes_no_benchmark``) and the judges' agreement with people (``agreement`` and the
``*_agreement`` modules)."""
