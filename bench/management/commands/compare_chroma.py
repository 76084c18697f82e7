"""Side by side with Chroma: same embedder, texts, questions and batches, in-process."""

import argparse
import json
from pathlib import Path

from django.core.management.base import BaseCommand, CommandParser

from bench.chroma import ours, runner
from bench.chroma.workload import Workload, from_locomo


class Command(BaseCommand):
    help = (
        "Install chromadb (pinned) into a throwaway venv and run it and this project on the "
        "same local embedder and LoCoMo-derived texts (--items, in batches of --batch) and "
        "questions: batched ingest items/s, recall p50/p95, peak RSS, one-text embedding time."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("locomo", nargs="?", help="folder of LoCoMo conversations (*.json)")
        parser.add_argument("--items", type=int, default=10_000)
        parser.add_argument("--batch", type=int, default=100, help="items per write")
        parser.add_argument("--queries", type=int, default=200, help="questions timed")
        parser.add_argument("--top-k", type=int, default=10)
        parser.add_argument("--chroma-version", default="1.5.9")
        parser.add_argument("--venv", type=Path, help="keep Chroma's venv here and reuse it")
        parser.add_argument("--postgres", default="", help="also run this project on this URL")
        # One side of the comparison, run in its own process by the command itself.
        parser.add_argument("--side", choices=["ours", "embedder"], help=argparse.SUPPRESS)
        parser.add_argument("--workload", type=Path, help=argparse.SUPPRESS)
        parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)

    def handle(self, *args, **o) -> None:
        counts = {"batch": o["batch"], "queries": o["queries"], "top_k": o["top_k"]}
        if o["side"]:
            run = ours.run_ours if o["side"] == "ours" else ours.run_embedder
            result = run(Workload.load(o["workload"]), **counts)
            o["out"].write_text(json.dumps(result))
            return
        if not o["locomo"]:
            self.stderr.write("Give the folder of LoCoMo conversations, e.g. data/locomo-dev")
            return
        workload = from_locomo(Path(o["locomo"]), items=o["items"])
        rows = runner.compare(
            workload,
            **counts,
            chroma_version=o["chroma_version"],
            venv=o["venv"],
            postgres=o["postgres"],
            out=self.stderr.write,
        )
        for line in runner.table(rows):
            self.stdout.write(line)
