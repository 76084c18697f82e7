"""Reciprocal Rank Fusion is a pure function of ranked lists."""

import pytest

from retrieval.fusion import rrf


def test_it_ranks_an_id_found_by_both_stages_first():
    fused = rrf({"vector": [1, 2, 3], "keyword": [3, 4, 7, 8, 9]}, {"vector": 0.5, "keyword": 0.5})
    assert fused[0].id == 3 and fused[0].matched_by == "both"
    labels = {f.id: f.matched_by for f in fused}
    assert labels == {
        1: "vector",
        2: "vector",
        3: "both",
        4: "keyword",
        7: "keyword",
        8: "keyword",
        9: "keyword",
    }


def test_it_scores_by_weight_over_k_plus_rank_and_a_missing_rank_as_after_the_list():
    weights = {"vector": 0.6, "keyword": 0.4}
    fused = {f.id: f for f in rrf({"vector": [10, 20], "keyword": [20]}, weights, k=60)}
    assert fused[20].score == pytest.approx(0.6 / 62 + 0.4 / 61)
    assert fused[10].score == pytest.approx(0.6 / 61 + 0.4 / 62)  # missing: rank len + 1
    assert fused[10].matched_by == "vector" and fused[20].matched_by == "both"


def test_weights_decide_between_single_stage_hits():
    rankings = {"vector": [1], "keyword": [2]}
    assert rrf(rankings, {"vector": 0.7, "keyword": 0.3})[0].id == 1
    assert rrf(rankings, {"vector": 0.3, "keyword": 0.7})[0].id == 2


def test_ties_keep_first_seen_order_and_repeats_count_once():
    fused = rrf({"vector": [5, 6, 5], "keyword": []}, {"vector": 1.0, "keyword": 1.0})
    assert [f.id for f in fused] == [5, 6]


def test_empty_lists_fuse_to_nothing():
    assert rrf({"vector": [], "keyword": []}, {}) == []


def test_a_partial_stage_only_adds_to_what_it_lists_and_names_lone_finds():
    weights = {"vector": 0.5, "keyword": 0.5, "conversation": 1.0}
    rankings = {"vector": [1, 2], "keyword": [1], "conversation": [3]}
    fused = {f.id: f for f in rrf(rankings, weights, k=60, partial=["conversation"])}
    assert fused[1].score == pytest.approx(0.5 / 61 + 0.5 / 61)  # nothing for missing 3's list
    assert fused[3].score == pytest.approx(1.0 / 61 + 0.5 / 63 + 0.5 / 62)
    assert fused[3].matched_by == "conversation" and fused[1].matched_by == "both"
    both = {f.id: f for f in rrf({"vector": [4], "conversation": [4]}, weights, partial=["x"])}
    assert both[4].matched_by == "vector"  # found directly: the direct stage names it


def test_an_absent_id_ranks_after_the_depth_searched_so_a_lone_match_counts():
    weights = {"vector": 0.5, "keyword": 0.5}
    rankings = {"vector": [1, 2], "keyword": [2]}
    shallow = {f.id: f.score for f in rrf(rankings, weights, k=60)}
    deep = {f.id: f.score for f in rrf(rankings, weights, k=60, depth=40)}
    assert shallow[1] == pytest.approx(0.5 / 61 + 0.5 / 62)  # as if keyword rank 2
    assert deep[1] == pytest.approx(0.5 / 61 + 0.5 / 101)  # beyond the 40 searched
    assert deep[2] - deep[1] > 10 * (shallow[2] - shallow[1])
