"""Knowledge bases: loading, recursive splitting, stable chunk ids, gold chunks of a QAP."""

from __future__ import annotations

import pytest

from simpop.errors import ConfigError
from simpop.knowledge import chunks_fingerprint, load_chunks, load_documents, split_text
from simpop.models import QAP, Chunk, KnowledgeBaseConfig
from simpop.population.gold import containment, gold_chunk_ids, shingles, source_documents


def test_split_prefers_paragraphs_then_sentences_with_overlap():
    text = "Aaa bbb. Ccc ddd. Eee fff.\n\nGgg hhh iii."
    # the first paragraph (26 chars) is too long for 20: cut into sentences, 9 chars overlap
    assert split_text(text, 20, 9) == ["Aaa bbb. Ccc ddd.", "Ccc ddd. Eee fff.", "Ggg hhh iii."]
    assert split_text(text, 100, 0) == [text]
    assert split_text("one two three four", 9, 0) == ["one two", "three", "four"]
    assert split_text("abcdefghij", 4, 0) == ["abcd", "efgh", "ij"]  # no separator: hard cut


def test_every_chunk_fits_and_the_text_is_covered():
    text = ("The lens clouds slowly. " * 30 + "\n") * 5
    chunks = split_text(text, 120, 30)
    assert all(len(c) <= 120 for c in chunks)
    assert " ".join(text.split()).startswith(" ".join(chunks[0].split()))
    words = set(text.split())
    assert words == {w for c in chunks for w in c.split()}


def write_kb(folder):
    folder.mkdir()
    (folder / "glaucoma.md").write_text(
        "# Glaucoma\n\n## What is glaucoma?\n\nGlaucoma damages the optic nerve. It can cause blindness.\n\n"
        "## Treatment\n\nEye drops lower the pressure in the eye. Laser surgery can help too.\n"
    )
    (folder / "notes.txt").write_text("Wear sunglasses outdoors.")
    row = '{"id": "faq-1", "text": "Dry eye is treated with artificial tears.", "title": "Dry eye", '
    (folder / "faq.jsonl").write_text(row + '"source": "nei"}\n')
    return folder


def test_load_markdown_text_and_jsonl(tmp_path):
    kb = KnowledgeBaseConfig(path=write_kb(tmp_path / "kb"), chunk_size=80, chunk_overlap=0)
    docs = {d.id: d for d in load_documents(kb)}
    assert sorted(docs) == ["faq-1", "glaucoma", "notes"]
    assert docs["glaucoma"].title == "Glaucoma" and docs["notes"].title == "notes"
    assert docs["faq-1"].title == "Dry eye" and docs["faq-1"].metadata == {"source": "nei"}
    chunks = load_chunks(kb)
    ids = [c.id for c in chunks]
    assert ids[:2] == ["faq-1#0", "glaucoma#0"] and all(c.doc_id in docs for c in chunks)
    assert [c.id for c in load_chunks(kb)] == ids  # stable
    assert chunks_fingerprint(chunks, "m") == chunks_fingerprint(load_chunks(kb), "m")
    assert chunks_fingerprint(chunks, "m") != chunks_fingerprint(chunks, "other-model")
    wider = load_chunks(kb.model_copy(update={"chunk_size": 200}))
    assert chunks_fingerprint(wider, "m") != chunks_fingerprint(chunks, "m")


def test_bad_knowledge_bases(tmp_path):
    with pytest.raises(ConfigError, match="knowledge base not found"):
        load_documents(KnowledgeBaseConfig(path=tmp_path / "missing"))
    (tmp_path / "empty").mkdir()
    with pytest.raises(ConfigError, match="no documents"):
        load_documents(KnowledgeBaseConfig(path=tmp_path / "empty"))
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "text": "x"}\n{"id": "b"}\n')
    with pytest.raises(ConfigError, match=r"bad.jsonl line 2: field 'text': missing required field"):
        load_documents(KnowledgeBaseConfig(path=bad))
    bad.write_text('{"id": "a", "text": "x"}\n{"id": "a", "text": "y"}\n')
    with pytest.raises(ConfigError, match="duplicate document id 'a'"):
        load_documents(KnowledgeBaseConfig(path=bad))
    with pytest.raises(ValueError, match="chunk_overlap must be smaller"):
        KnowledgeBaseConfig(path=bad, chunk_size=100, chunk_overlap=100)


def test_gold_chunks_are_those_holding_the_answer(tmp_path):
    kb = KnowledgeBaseConfig(path=write_kb(tmp_path / "kb"), chunk_size=90, chunk_overlap=0)
    chunks = load_chunks(kb)
    qap = QAP(id="q1", question="How is glaucoma treated?", answer="Eye drops lower the pressure in the eye.")
    holding = [c.id for c in chunks if "Eye drops" in c.text]
    assert gold_chunk_ids(qap, chunks) == holding  # no doc id: every document is searched
    elsewhere = qap.model_copy(update={"doc_id": "notes"})
    assert gold_chunk_ids(elsewhere, chunks) == []  # its source document does not hold it
    assert gold_chunk_ids(qap.model_copy(update={"doc_id": "glaucoma"}), chunks) == holding
    missing = qap.model_copy(update={"doc_id": "cataract"})
    assert gold_chunk_ids(missing, chunks) == []  # its document is not in the KB: no fall-back


def test_a_document_id_with_underscores_finds_its_file():
    def chunk(doc_id: str, text: str) -> Chunk:
        return Chunk(id=f"{doc_id}#0", doc_id=doc_id, title=doc_id, text=text)

    answer = "Breast cancer is a disease in which malignant cells form in the tissues of the breast."
    chunks = [
        chunk("CancerGov_0000027_1_Breast_Cancer_Treatment", answer),
        chunk("CancerGov_0000027_10_Male_Breast_Cancer", answer),
        chunk("CancerGov_0000027_Other", answer),
    ]
    qap = QAP(id="0000027_1-1", question="What is breast cancer?", answer=answer, doc_id="0000027_1")
    assert source_documents(qap, chunks) == {"CancerGov_0000027_1_Breast_Cancer_Treatment"}
    assert gold_chunk_ids(qap, chunks) == ["CancerGov_0000027_1_Breast_Cancer_Treatment#0"]
    plain = qap.model_copy(update={"doc_id": "0000027"})  # 0000027_1 and 0000027_10 are other ids
    assert source_documents(plain, chunks) == {"CancerGov_0000027_Other"}


def test_containment_by_hand():
    a = shingles("the eye drops lower the pressure")  # 4 shingles
    b = shingles("eye drops lower the pressure today")  # 4 shingles, 3 shared
    assert containment(a, b) == pytest.approx(3 / 4)
    assert containment(a, set()) == 0.0
    assert shingles("Dry eye") == {("dry", "eye")}
