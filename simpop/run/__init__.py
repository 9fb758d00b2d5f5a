"""The jobs that produce records: a run's stages (``plan``, ``generate``, ``ask``, ``score``,
``summarise``), assembled by ``assembly`` and wired by ``execute`` as a stream of cells
(``cell_stream``); conversations (``converse``); the yes/no benchmark (``yes_no_benchmark``).
How far the judges agree with people is in ``simpop.evaluation``."""
