"""compare_chroma's table: each stack's batched ingest beside the embedder's own rate, and
what each stores per item on disk (with this project's vector and token vectors)."""

from bench.chroma.runner import table


def _figures(ingest: float, p50: float, **more: float) -> dict:
    return {"ingest_per_s": ingest, "p50": p50, "p95": p50 * 2, "one_text_p50": 2.0,
            "rss_mb": 300.0, **more}  # fmt: skip


def test_the_table_says_ingest_against_the_embedders_own_rate_and_bytes_per_item():
    ours = _figures(270.0, 9.5, disk_bytes=9100.0, vector_bytes=1536.0, token_bytes=2180.0,
                    tokens_drain_s=4.25)  # fmt: skip
    rows = [
        ("this project (SQLite)", ours),
        ("Chroma 1.5.9", _figures(285.0, 4.6, disk_bytes=4200.0)),
        ("the embedder alone", _figures(300.0, 2.0)),
    ]
    lines = table(rows)
    assert lines[2] == "| this project (SQLite) | 270 | 0.90x | 9.5 | 19.0 | 2.0 | 300 | 9100 |"
    assert lines[3] == "| Chroma 1.5.9 | 285 | 0.95x | 4.6 | 9.2 | 2.0 | 300 | 4200 |"
    assert lines[4] == "| the embedder alone | 300 | 1.00x | (2.0) | (4.0) | 2.0 | 300 | - |"
    assert "batched ingest x0.95" in lines[6]
    assert lines[7] == (
        "This project (SQLite), per item: vector 1536 bytes, token vectors 2180 bytes; the "
        "token vectors of the last writes were stored 4.2 s after ingest returned (background)."
    )
