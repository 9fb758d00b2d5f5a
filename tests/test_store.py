from __future__ import annotations

import json

import pytest

from simpop.errors import SimpopError
from simpop.models import RunConfig, Score
from simpop.store import JsonlLog, RunStore
from simpop.targets.qap import QAPTargetConfig


def _score(cell: str) -> Score:
    return Score(
        run_id="r",
        cell_id=cell,
        persona_id="p",
        scenario_id="x",
        seed_id="s",
        variant=0,
        metric="m",
        value=1.0,
    )


def test_append_is_once_per_cell_and_survives_reload(tmp_path):
    log = JsonlLog(tmp_path / "s.jsonl", Score)
    log.append(_score("a"))
    log.append(_score("a"))
    log.append(_score("b"))
    log.close()
    assert len((tmp_path / "s.jsonl").read_text().splitlines()) == 2
    again = JsonlLog(tmp_path / "s.jsonl", Score)
    assert list(again.load()) == ["a", "b"]


def test_torn_last_line_is_cut_off(tmp_path):
    path = tmp_path / "s.jsonl"
    path.write_text(_score("a").model_dump_json() + "\n" + _score("b").model_dump_json()[:25])
    log = JsonlLog(path, Score)
    assert list(log.load()) == ["a"]
    log.append(_score("b"))
    log.close()
    lines = path.read_text().splitlines()
    assert [json.loads(line)["cell_id"] for line in lines] == ["a", "b"]


def test_a_log_that_keeps_nothing_reads_records_back_from_its_file(tmp_path):
    path = tmp_path / "s.jsonl"
    log = JsonlLog(path, Score, keep=False)
    first = _score("a").model_copy(update={"reason": "line\u2028separator"})  # not a JSONL line end
    log.append(first)
    log.append(_score("b"))
    log.append(_score("a"))  # a second record for a key is still refused
    assert log.records == {} and "a" in log and "c" not in log
    assert log.get("a") == first and log.get("b") == _score("b") and log.get("c") is None
    log.close()
    again = JsonlLog(path, Score, keep=False)
    assert again.load() == {} and set(again.offsets) == {"a", "b"}
    assert again.get("a") == first
    assert [s.cell_id for s in again.scan()] == ["a", "b"]
    kept = JsonlLog(path, Score)
    assert list(kept.load()) == ["a", "b"] and kept.records["a"] == first


def test_scan_reads_the_first_record_of_each_key_in_the_order_written(tmp_path):
    path = tmp_path / "s.jsonl"
    second = _score("a").model_copy(update={"value": 0.0})
    path.write_text("".join(s.model_dump_json() + "\n" for s in [_score("b"), _score("a"), second]))
    assert [(s.cell_id, s.value) for s in JsonlLog(path, Score).scan()] == [("b", 1.0), ("a", 1.0)]


def test_run_store_create_and_open(tmp_path):
    config = RunConfig(name="demo", target=QAPTargetConfig(kind="qap", qaps="q.jsonl"))
    store = RunStore.create(tmp_path, config)
    other = RunStore.create(tmp_path, config)
    assert store.run_id != other.run_id and store.run_id.startswith("demo-")
    assert RunStore.open(tmp_path, store.run_id).config() == config
    assert "api_key" not in (store.directory / "config.json").read_text().replace("api_key_env", "")
    with pytest.raises(SimpopError, match="no run there"):
        RunStore.open(tmp_path, "missing")
