from __future__ import annotations

from pathlib import Path

import pytest

from simpop.config import apply_llm_env, load_personas, load_qaps
from simpop.errors import ConfigError
from simpop.models import LLMConfig, Persona, Probe
from simpop.run.components import load_run_config

ROOT = Path(__file__).resolve().parent.parent


def test_shipped_personas_load_and_cover_the_paper_vignettes():
    personas = load_personas(ROOT / "personas")
    ids = {p.id for p in personas}
    assert len(personas) >= 6
    assert {"high-literacy", "low-literacy", "low-language-literacy"} <= ids
    levels = {p.health_literacy for p in personas}
    assert {"low", "high"} <= levels
    assert any(p.language_level == "A2" for p in personas)


def test_persona_unknown_field_names_file_and_field(tmp_path):
    (tmp_path / "p.yaml").write_text(
        "id: a\nname: A\nvignette: v\nhealth_literacy: low\nlanguage_level: A2\nhealth_literacey: low\n"
    )
    with pytest.raises(ConfigError) as info:
        load_personas(tmp_path)
    assert str(info.value) == (
        f"{tmp_path / 'p.yaml'}: field 'health_literacey': unknown field; did you mean 'health_literacy'?"
    )


def test_persona_bad_value_and_missing_field(tmp_path):
    (tmp_path / "p.yaml").write_text(
        "id: a\nname: A\nvignette: v\nhealth_literacy: poor\nlanguage_level: A2\n"
    )
    with pytest.raises(ConfigError, match=r"p.yaml: field 'health_literacy': Input should be 'low'"):
        load_personas(tmp_path)
    (tmp_path / "p.yaml").write_text("id: a\nname: A\nhealth_literacy: low\nlanguage_level: A2\n")
    with pytest.raises(ConfigError, match=r"field 'vignette': missing required field"):
        load_personas(tmp_path)


def test_noise_shorthand_and_defaults():
    persona = Persona(
        id="a", name="A", vignette="v", health_literacy="low", language_level="A1", noise="none"
    )
    assert persona.noise.model == "none" and persona.language == "en"


def test_malformed_yaml_names_file_and_line(tmp_path):
    path = tmp_path / "run.yaml"
    path.write_text("name: x\ntarget:\n  kind: qap\n  qaps: [unclosed\n")
    with pytest.raises(ConfigError, match=r"run.yaml: line \d+ malformed YAML"):
        load_run_config(path)


def test_missing_config_file(tmp_path):
    with pytest.raises(ConfigError, match="nope.yaml: file not found"):
        load_run_config(tmp_path / "nope.yaml")


def test_run_config_resolves_paths_against_its_folder(tmp_path):
    (tmp_path / "targets").mkdir()
    path = tmp_path / "targets" / "t.yaml"
    path.write_text("name: t\ntarget: {kind: qap, qaps: ../data/q.jsonl}\npersonas: ../personas\n")
    config = load_run_config(path)
    assert config.target.qaps == (tmp_path / "data/q.jsonl").resolve()
    assert config.personas == (tmp_path / "personas").resolve()
    assert config.variants == 5 and config.llm.base_url is None
    # conversation cases: by default the working directory's scenarios/conversations, or the
    # conversations folder of the config's own scenario_dir; a conversation_dir of its own wins
    assert config.conversation_dir == Path("scenarios/conversations")
    path.write_text(path.read_text() + "scenario_dir: ../hazards\n")
    assert load_run_config(path).conversation_dir == (tmp_path / "hazards/conversations").resolve()
    path.write_text(path.read_text() + "conversation_dir: ../talks\n")
    assert load_run_config(path).conversation_dir == (tmp_path / "talks").resolve()


def test_run_config_unknown_target_field(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text("name: t\ntarget: {kind: qap, qaps: q.jsonl, treshold: 0.3}\n")
    with pytest.raises(ConfigError, match=r"t.yaml: field 'target.treshold': unknown field"):
        load_run_config(path)


def test_unknown_persona_id_lists_known_ones():
    with pytest.raises(ConfigError, match=r"unknown persona id 'ghost' \(known in .*high-literacy"):
        load_personas(ROOT / "personas", ["high-literacy", "ghost"])


def test_load_qaps_reads_the_demo_data():
    qaps = load_qaps(ROOT / "data/medquad-eye/qaps.jsonl")
    assert len(qaps) == 104
    assert qaps[0].id == "0000158-1" and qaps[0].topic == "Cataract"
    assert qaps[0].metadata["qtype"] == "information"


def test_load_qaps_errors(tmp_path):
    with pytest.raises(ConfigError, match="missing.jsonl: QAP file not found"):
        load_qaps(tmp_path / "missing.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "1", "question": "q", "answer": "a"}\n{"id": 2,\n')
    with pytest.raises(ConfigError, match=r"bad.jsonl line 2: malformed JSON"):
        load_qaps(bad)
    dup = tmp_path / "dup.jsonl"
    dup.write_text(
        '{"id": "1", "question": "q", "answer": "a"}\n{"id": "1", "question": "r", "answer": "b"}\n'
    )
    with pytest.raises(ConfigError, match=r"dup.jsonl line 2: field 'id': duplicate QAP id '1'"):
        load_qaps(dup)
    empty = tmp_path / "empty.jsonl"
    empty.write_text('{"id": "1", "question": "q", "answer": ""}\n')
    with pytest.raises(ConfigError, match=r"empty.jsonl line 1: field 'answer'"):
        load_qaps(empty)
    noq = tmp_path / "noq.jsonl"
    noq.write_text('{"id": "1", "answer": "a"}\n')
    with pytest.raises(ConfigError, match=r"noq.jsonl line 1: field 'question': missing required field"):
        load_qaps(noq)


def test_load_qaps_csv(tmp_path):
    path = tmp_path / "q.csv"
    path.write_text("id,question,answer,extra\nq1,What is glaucoma?,An eye disease.,x\n")
    [qap] = load_qaps(path)
    assert (qap.id, qap.question, qap.metadata) == ("q1", "What is glaucoma?", {"extra": "x"})


def test_llm_env_overrides_and_names_the_variable():
    config = apply_llm_env(
        LLMConfig(), {"SIMPOP_LLM_BASE_URL": "http://127.0.0.1:9/v1", "SIMPOP_LLM_CONCURRENCY": "8"}
    )
    assert config.base_url == "http://127.0.0.1:9/v1" and config.concurrency == 8
    with pytest.raises(ConfigError, match="environment variable SIMPOP_LLM_CONCURRENCY"):
        apply_llm_env(LLMConfig(), {"SIMPOP_LLM_CONCURRENCY": "many"})
    assert apply_llm_env(LLMConfig(), {"SIMPOP_LLM_THREADS": "1"}).threads == 1
    with pytest.raises(ConfigError, match="environment variable SIMPOP_LLM_THREADS"):
        apply_llm_env(LLMConfig(), {"SIMPOP_LLM_THREADS": "0"})


def test_probe_asks_noisy_text_when_there_is_one():
    base = dict(
        run_id="r",
        cell_id="c",
        persona_id="p",
        scenario_id="x",
        seed_id="s",
        variant=0,
        expected_behaviour="answer",
        sampling_seed=1,
        prompt="x",
        llm_model="m",
    )
    assert Probe(**base, text="clean").asked_text == "clean"
    assert Probe(**base, text="clean", noisy_text="klean").asked_text == "klean"
    assert Probe(**base, text="clean", noisy_text="").asked_text == ""  # speech-to-text lost it all
    with pytest.raises(Exception, match="extra"):
        Probe(**base, text="t", colour="red")
