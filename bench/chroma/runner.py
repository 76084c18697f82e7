"""Run each side in a process of its own (peak RSS is per process) and print one table.

Chroma goes into a throwaway venv: `chromadb==VERSION` plus this project's pins of the
packages the embedder imports, so both stacks run the very same embedder build.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

from django.conf import settings

from bench.chroma.workload import Workload
from retrieval.embedding.local import default_threads, model_named, verified_files

# What `retrieval.embedding.local` (and its package) import, pinned as in requirements.txt
# (the package's metrics need prometheus-client).
EMBEDDER_PACKAGES = ("numpy", "onnxruntime", "tokenizers", "Django", "httpx", "prometheus-client")


def embedder_pins() -> list[str]:
    text = (Path(settings.BASE_DIR) / "requirements.txt").read_text()
    pins = {}
    for line in text.splitlines():
        match = re.match(r"([A-Za-z0-9_.\[\]-]+)==(\S+)", line.strip())
        if match:
            pins[match.group(1).lower()] = f"{match.group(1)}=={match.group(2)}"
    return [pins[name.lower()] for name in EMBEDDER_PACKAGES]


def ensure_venv(path: Path, version: str, out: Callable[[str], None]) -> Path:
    """The venv's python, with chromadb==version installed (once per venv directory)."""
    python = path / "bin" / "python"
    ready = path / f"chromadb-{version}-{len(EMBEDDER_PACKAGES)}.installed"
    if ready.exists():
        return python
    out(f"Creating a venv for chromadb=={version} in {path} (a few minutes) ...")
    install = [str(python), "-m", "pip", "install", "-q", f"chromadb=={version}", *embedder_pins()]
    for command in ([sys.executable, "-m", "venv", str(path)], install):
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)} failed:\n{done.stderr[-3000:]}")
    ready.touch()
    return python


def _side(command: list[str], out_file: Path, env: dict, what: str) -> dict:
    result = subprocess.run(command, cwd=settings.BASE_DIR, env=env, capture_output=True, text=True)
    if result.returncode != 0 or not out_file.exists():
        raise RuntimeError(f"{what} failed:\n{result.stderr[-3000:]}")
    return json.loads(out_file.read_text())


def compare(
    workload: Workload,
    *,
    batch: int,
    queries: int,
    top_k: int,
    chroma_version: str,
    venv: Path | None,
    postgres: str,
    out: Callable[[str], None],
) -> list[tuple[str, dict]]:
    """(stack name, figures) for this project (SQLite, and PostgreSQL if given), Chroma
    and the embedder alone."""
    model = model_named(settings.GAIA_LOCAL_EMBED_MODEL)
    model_file, tokenizer_file = verified_files(
        model, settings.GAIA_EMBED_MODEL_PATH, settings.GAIA_EMBED_TOKENIZER_PATH
    )
    workload.model, workload.model_path, workload.tokenizer_path = (
        model.name,
        str(model_file),
        str(tokenizer_file),
    )
    workload.embed_batch = settings.GAIA_EMBED_BATCH
    workload.embed_threads = settings.GAIA_EMBED_THREADS or default_threads()
    rows = []
    with tempfile.TemporaryDirectory(prefix="gaia-compare-") as tmp:
        work = Path(tmp)
        workload.save(work / "workload.json")
        python = ensure_venv(venv or work / "venv", chroma_version, out)
        manage = [
            sys.executable,
            "manage.py",
            "compare_chroma",
            "--workload",
            str(work / "workload.json"),
        ]
        counts = ["--batch", str(batch), "--queries", str(queries), "--top-k", str(top_k)]
        base_env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
        sides = [("this project (SQLite)", "ours", {"GAIA_DATA_DIR": str(work / "sqlite")})]
        if postgres:
            sides.append(("this project (PostgreSQL)", "ours", {"DATABASE_URL": postgres}))
        sides.append(("the embedder alone", "embedder", {"GAIA_DATA_DIR": str(work / "embedder")}))
        for name, side, env in sides:
            out(f"Running {name} ...")
            result = work / f"{side}-{len(rows)}.json"
            command = [*manage, "--side", side, "--out", str(result), *counts]
            rows.append((name, _side(command, result, {**base_env, **env}, name)))
        out(f"Running Chroma {chroma_version} ...")
        result = work / "chroma.json"
        paths = [str(work / "workload.json"), str(result), str(work / "chroma-data")]
        numbers = [str(batch), str(queries), str(top_k)]
        command = [str(python), "-m", "bench.chroma.chroma_side", *paths, *numbers]
        figures = _side(command, result, base_env, "Chroma")
        rows.insert(-1, (f"Chroma {figures['version']}", figures))
    return rows


def table(rows: list[tuple[str, dict]]) -> list[str]:
    lines = [
        "| stack | batched ingest items/s | of the embedder's own rate | recall p50 ms "
        "| recall p95 ms | one-text embedding p50 ms (same process) | peak RSS MB "
        "| bytes per item on disk |",
        "|---|---|---|---|---|---|---|---|",
    ]
    floor = next((r for name, r in rows if name == "the embedder alone"), None)
    for name, r in rows:
        recall = f"{r['p50']:.1f} | {r['p95']:.1f}"
        if name == "the embedder alone":
            recall = f"({r['p50']:.1f}) | ({r['p95']:.1f})"
        share = f"{r['ingest_per_s'] / floor['ingest_per_s']:.2f}x" if floor else "-"
        disk = f"{r['disk_bytes']:.0f}" if "disk_bytes" in r else "-"
        lines.append(
            f"| {name} | {r['ingest_per_s']:.0f} | {share} | {recall} "
            f"| {r['one_text_p50']:.1f} | {r['rss_mb']:.0f} | {disk} |"
        )
    chroma = next((r for name, r in rows if name.startswith("Chroma")), None)
    ours = rows[0][1]
    lines.append("")
    if chroma:
        lines.append(
            f"This project (SQLite) / Chroma: recall p50 x{ours['p50'] / chroma['p50']:.2f}, "
            f"batched ingest x{ours['ingest_per_s'] / chroma['ingest_per_s']:.2f}, "
            f"peak RSS x{ours['rss_mb'] / chroma['rss_mb']:.2f}; recall p50 minus one-text "
            f"embedding: {ours['p50'] - ours['one_text_p50']:.1f} ms."
        )
    if "token_bytes" in ours:
        lines.append(
            f"This project (SQLite), per item: vector {ours['vector_bytes']:.0f} bytes, token "
            f"vectors {ours['token_bytes']:.0f} bytes; the token vectors of the last writes "
            f"were stored {ours['tokens_drain_s']:.1f} s after ingest returned (background)."
        )
    return lines
