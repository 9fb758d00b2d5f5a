"""Knowledge bases: documents from Markdown, text or JSONL files, split into chunks."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from simpop.config import read_jsonl
from simpop.errors import ConfigError
from simpop.models import Chunk, Document, KnowledgeBaseConfig
from simpop.textfiles import read_text

TEXT_SUFFIXES = {".md", ".markdown", ".txt"}
JSONL_SUFFIXES = {".jsonl"}
# Coarse to fine: paragraphs, lines, sentences, words, characters.
SEPARATORS: tuple[str | re.Pattern[str], ...] = ("\n\n", "\n", re.compile(r"(?<=[.!?])\s+"), " ")
_HEADING = re.compile(r"^#\s+(.+)$", re.MULTILINE)


def _text_document(path: Path) -> Document:
    text = read_text(path)
    heading = _HEADING.search(text) if path.suffix.lower() != ".txt" else None
    title = heading.group(1).strip() if heading else path.stem.replace("_", " ")
    return Document(id=path.stem, title=title, text=text)


def _jsonl_documents(path: Path, config: KnowledgeBaseConfig) -> list[Document]:
    documents = []
    for where, row in read_jsonl(path):
        for field in (config.id_field, config.text_field):
            if row.get(field) in (None, ""):
                raise ConfigError(f"{where}: field '{field}': missing required field")
        doc_id = str(row[config.id_field])
        title = str(row.get(config.title_field) or doc_id)
        keys = {config.id_field, config.text_field, config.title_field}
        metadata = {k: v for k, v in row.items() if k not in keys}
        documents.append(
            Document(id=doc_id, title=title, text=str(row[config.text_field]), metadata=metadata)
        )
    return documents


def load_documents(config: KnowledgeBaseConfig) -> list[Document]:
    """Every document under ``config.path`` (a file, or a folder searched recursively), by path."""
    path = config.path
    if path.is_dir():
        files = sorted(f for f in path.rglob("*") if f.suffix.lower() in TEXT_SUFFIXES | JSONL_SUFFIXES)
    elif path.is_file():
        files = [path]
    else:
        raise ConfigError(f"{path}: knowledge base not found")
    documents: list[Document] = []
    for file in files:
        suffix = file.suffix.lower()
        if suffix in JSONL_SUFFIXES:
            documents.extend(_jsonl_documents(file, config))
        elif suffix in TEXT_SUFFIXES:
            documents.append(_text_document(file))
        else:
            raise ConfigError(f"{file}: knowledge base files must be .md, .txt or .jsonl")
    if not documents:
        raise ConfigError(f"{path}: no documents (*.md, *.txt, *.jsonl) found")
    seen: set[str] = set()
    for document in documents:
        if document.id in seen:
            raise ConfigError(f"{path}: duplicate document id '{document.id}'")
        seen.add(document.id)
    return documents


def _pieces(text: str, size: int, separators: tuple[str | re.Pattern[str], ...]) -> list[str]:
    """Cut ``text`` at the coarsest separator it contains until every piece fits in ``size``."""
    if len(text) <= size:
        return [text]
    for index, separator in enumerate(separators):
        if isinstance(separator, str):
            parts = [p + separator for p in text.split(separator)]
            parts[-1] = parts[-1][: -len(separator)]
        else:
            parts = re.split(f"({separator.pattern})", text)
            parts = [a + b for a, b in zip(parts[::2], [*parts[1::2], ""], strict=False)]
        if len(parts) > 1:
            finer = separators[index + 1 :]
            return [piece for part in parts if part for piece in _pieces(part, size, finer)]
    return [text[i : i + size] for i in range(0, len(text), size)]


def split_text(text: str, size: int, overlap: int) -> list[str]:
    """Recursive splitting: pieces cut on paragraphs, then lines, sentences, words, characters,
    merged back into chunks of at most ``size`` characters; each chunk starts with up to
    ``overlap`` characters of whole pieces from the end of the previous one."""
    chunks: list[str] = []
    current: list[str] = []
    for piece in _pieces(text, size, SEPARATORS):
        if current and sum(map(len, current)) + len(piece) > size:
            chunks.append("".join(current))
            while current and (
                sum(map(len, current)) > overlap or sum(map(len, current)) + len(piece) > size
            ):
                current.pop(0)
        current.append(piece)
    if current:
        chunks.append("".join(current))
    return [c.strip() for c in chunks if c.strip()]


def chunk_documents(documents: list[Document], size: int, overlap: int) -> list[Chunk]:
    """Every document's chunks, ids ``<doc-id>#<n>`` counted from 0 within the document."""
    return [
        Chunk(id=f"{doc.id}#{n}", doc_id=doc.id, title=doc.title, text=text)
        for doc in documents
        for n, text in enumerate(split_text(doc.text, size, overlap))
    ]


def load_chunks(config: KnowledgeBaseConfig) -> list[Chunk]:
    """The chunks of the knowledge base ``config`` names."""
    return chunk_documents(load_documents(config), config.chunk_size, config.chunk_overlap)


def chunks_fingerprint(chunks: list[Chunk], model_id: str) -> str:
    """Changes when any chunk (so the documents or the splitter settings) or the model changes."""
    digest = hashlib.sha256(model_id.encode())
    for chunk in chunks:
        digest.update(f"\x00{chunk.id}\x00{chunk.title}\x00{chunk.text}".encode())
    return digest.hexdigest()[:16]
