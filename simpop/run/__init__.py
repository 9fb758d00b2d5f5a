"""The jobs that produce records: a run's stages (``plan``, ``generate``, ``ask``, ``score``,
``summarise``, wired by ``execute``), the yes/no benchmark (``yesno``) and the judge's agreement
with physicians (``agreement``)."""
