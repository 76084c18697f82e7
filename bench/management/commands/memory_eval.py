"""Measure quality.

`memory_eval locomo <dir> [--scenarios own-facts.json]` prints one table with every
retrieval condition (facts unlinked, linked, mixed; own facts; nonsense questions), then
the linked condition by question category. `memory_eval extraction <files or dirs>`
measures extraction with the configured model against each session's gold observations.
`memory_eval graph bench/data/graph-*.json` measures recall that follows relations: R@5
and R@1 of one-hop questions with the graph and without it (bench/graph.py).
"""

import json
from pathlib import Path
from time import monotonic

from django.conf import settings
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.test import override_settings

from bench import extraction
from bench.account import (
    NotAnAccount,
    account_table,
    evaluate_account,
    named_table,
    read_account,
)
from bench.floors import floors_table
from bench.graph import evaluate_graph, graph_table, read_graph_scenario
from bench.locomo import evaluate_folder
from bench.locomo_data import NotAConversation
from bench.locomo_report import RANKINGS, conditions_table, summary_table, table
from bench.migrated import migrated
from bench.phrasings import read_phrasings, with_phrasings
from bench.scenes import read_scenes, with_scenes
from bench.timescenario import evaluate_time, read_time_scenario, time_table
from learning.llm import llm_configured
from retrieval.caches import clear_process_caches
from retrieval.embedding import current_model_id
from retrieval.judge import mode as judge_mode


class Command(BaseCommand):
    help = (
        "locomo <dir>: recall@5/@10 of conversation search and knowledge recall on "
        "LoCoMo-format data. extraction <files or dirs>: precision and recall of "
        "extraction with the configured model against each session's gold observations."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("dataset", choices=["locomo", "extraction", "graph"])
        parser.add_argument(
            "paths",
            type=Path,
            nargs="+",
            help="locomo: one folder of LoCoMo-format *.json files; extraction: files or "
            "folders; graph: graph scenarios (bench/data/graph-*.json)",
        )
        parser.add_argument(
            "--scenarios",
            type=Path,
            help="locomo: own-facts JSON (own_facts, nonsense_questions) asked beside the "
            "linked facts",
        )
        parser.add_argument(
            "--accounts",
            type=Path,
            nargs="+",
            default=[],
            help="locomo: account scenarios (bench/data/account-*.json) asked beside LoCoMo",
        )
        parser.add_argument(
            "--ranking",
            choices=[*RANKINGS, "default", "all"],
            default="default",
            help="locomo: which ranking to measure: the current settings (default), "
            "minilm (all-MiniLM-L6-v2, no judge), bge (bge-small-en-v1.5, no judge), judged "
            "(bge-small-en-v1.5 with the relevance judge), or all three one after another",
        )
        parser.add_argument(
            "--time",
            type=Path,
            nargs="*",
            default=None,
            help="locomo: time scenarios (bench/data/time-*.json; default: those beside the "
            "first account file)",
        )
        parser.add_argument(
            "--phrasings",
            type=Path,
            nargs="*",
            default=None,
            help="locomo: the accounts' questions with a strong model's phrasings "
            "(bench/data/phrasings-*.json; default: those beside the first account file)",
        )
        parser.add_argument(
            "--scenes",
            type=Path,
            nargs="*",
            default=None,
            help="locomo: some of the accounts' questions with the speaker's scene before "
            "them (bench/data/scenes-*.json; default: those beside the first account file)",
        )
        parser.add_argument("--keep", action="store_true", help="keep the throwaway users")
        parser.add_argument(
            "--distractors",
            type=int,
            default=0,
            help="locomo: synthetic items and turns (this many of each) stored for each user "
            "before the conversation, as in a store that holds much else",
        )
        parser.add_argument(
            "--settled",
            action="store_true",
            help="locomo: ask with the owner's word counts read again after each load, as a "
            "question asked later would (default: as sampled during the load, reused for 30 s)",
        )
        parser.add_argument(
            "--sessions", type=int, default=0, help="extraction: first N sessions per file"
        )
        parser.add_argument(
            "--threshold",
            type=float,
            default=extraction.THRESHOLD,
            help="extraction: cosine at which a fact matches a gold observation",
        )

    def handle(
        self,
        *args,
        dataset: str,
        paths: list[Path],
        scenarios: Path | None,
        accounts: list[Path],
        ranking: str,
        keep: bool,
        time: list[Path] | None = None,
        phrasings: list[Path] | None = None,
        scenes: list[Path] | None = None,
        settled: bool,
        distractors: int,
        **options,
    ) -> None:
        if distractors < 0:
            raise CommandError(f"--distractors {distractors}: give 0 or more.")
        if dataset == "extraction":
            return self.extraction(paths, keep=keep, **options)
        if dataset == "graph":
            return self.graph(paths, keep=keep)
        folder = paths[0]
        if len(paths) != 1 or not folder.is_dir():
            raise CommandError(f"{' '.join(map(str, paths))} is not a folder.")
        probes = _scenarios(scenarios) if scenarios else None
        beside = accounts[0].parent if accounts else None
        if time is None:
            time = sorted(beside.glob("time-*.json")) if beside else []
        if phrasings is None:
            phrasings = sorted(beside.glob("phrasings-*.json")) if beside else []
        if scenes is None:
            scenes = sorted(beside.glob("scenes-*.json")) if beside else []
        try:
            account_data = [(path, read_account(path)) for path in accounts]
            time_data = [(path, read_time_scenario(path)) for path in time]
            phrased = [with_phrasings(read_phrasings(path), account_data) for path in phrasings]
            staged = [with_scenes(read_scenes(path), account_data) for path in scenes]
        except NotAnAccount as error:
            raise CommandError(str(error)) from error
        extra = {
            "time": time_data,
            "phrased": [p for p in phrased if p is not None],
            "staged": [s for s in staged if s is not None],
        }
        migrated(self.stdout.write)
        names = list(RANKINGS) if ranking == "all" else [ranking]
        summary = []
        for name in names:
            if len(names) > 1:
                self.stdout.write(f"\n## Ranking: {name} ({RANKINGS[name]['about']})\n")
            with override_settings(**RANKINGS.get(name, {}).get("settings", {})):
                clear_process_caches()
                summary.append(
                    (
                        name,
                        self.locomo(
                            folder,
                            probes,
                            account_data,
                            keep=keep,
                            settled=settled,
                            distractors=distractors,
                            **extra,
                        ),
                    )
                )
        if len(names) > 1:
            self.stdout.write("\n## The rankings side by side\n")
            for line in summary_table(summary):
                self.stdout.write(line)

    def _scenes(self, staged: list[tuple[Path, dict, dict]], *, keep: bool, settled: bool) -> None:
        """Each account's questions given a scene, as written and then with their scenes."""
        rows = []
        for path, plain, scened in staged:
            self.stderr.write(f"asking the account {path.name} with scenes before questions ...")
            kwargs = {"keep": keep, "settled": settled}
            rows.append(evaluate_account(path, plain, label=", as written", **kwargs))
            rows.append(evaluate_account(path, scened, label=" + scenes", **kwargs))
        self._accounts(rows)

    def _accounts(self, rows: list) -> None:
        """The accounts' table, then each account's questions not right at rank 1."""
        if not rows:
            return
        self.stdout.write("")
        for line in account_table(rows):
            self.stdout.write(line)
        for score in rows:
            if score.misses:
                self.stdout.write(f"{score.name}, not right at rank 1: {score.misses}")

    def locomo(
        self,
        folder: Path,
        probes: dict | None,
        accounts: list[tuple[Path, dict]],
        *,
        keep: bool,
        settled: bool,
        distractors: int,
        time: list[tuple[Path, dict]] = (),
        phrased: list[tuple[Path, dict]] = (),
        staged: list[tuple[Path, dict, dict]] = (),
    ) -> tuple:
        scenarios_of_time = time
        started = monotonic()
        self.stdout.write(f"Embedder {current_model_id()}, judge {judge_mode()}.")
        try:
            scores = evaluate_folder(
                folder,
                scenarios=probes,
                keep=keep,
                settled=settled,
                distractors=distractors,
                progress=self.stderr.write,
            )
        except (FileNotFoundError, NotAConversation) as error:
            raise CommandError(str(error)) from error
        for line in [*conditions_table(scores), "", "Linked facts by category:", *table(scores)]:
            self.stdout.write(line)
        if costs := floors_table(scores):
            self.stdout.write(
                "\nWhat each floor would keep (linked user, top 10, with min_relevance 0):"
            )
            for line in costs:
                self.stdout.write(line)
        self.stdout.write(
            "facts ceiling = share of evidence turns that any observation links to "
            f"(no ranking can exceed it). {monotonic() - started:.0f}s"
        )
        accounted = []
        for path, data in accounts:
            self.stderr.write(f"asking the account {path.name} ...")
            accounted.append(evaluate_account(path, data, keep=keep, settled=settled))
        named = []
        for path, data in accounts:
            self.stderr.write(f"asking the account {path.name} stored by name ...")
            named.append(evaluate_account(path, data, keep=keep, settled=settled, named=True))
        for path, data in accounts:
            self.stderr.write(f"asking the account {path.name} stored by name, never said ...")
            named.append(
                evaluate_account(path, data, keep=keep, settled=settled, named=True, said=False)
            )
        for path, data in accounts:
            self.stderr.write(f"asking the account {path.name} in mem0's style ...")
            named.append(
                evaluate_account(path, data, keep=keep, settled=settled, named=True, mem0=True)
            )
        if accounted:
            self._accounts(accounted)
            self.stdout.write("")
            for line in named_table([*accounted, *named]):
                self.stdout.write(line)
            for score in named:
                if score.misses:
                    self.stdout.write(f"{score.name}, first person, not at rank 1: {score.misses}")
                if score.named_misses:
                    self.stdout.write(
                        f"{score.name}, naming the person, not at rank 1: {score.named_misses}"
                    )
        with_phrases = []
        for path, data in phrased:
            self.stderr.write(f"asking the account {path.name} with phrasings ...")
            with_phrases.append(
                evaluate_account(path, data, keep=keep, settled=settled, phrased=True)
            )
        self._accounts(with_phrases)
        self._scenes(staged, keep=keep, settled=settled)
        timed = []
        for path, data in scenarios_of_time:
            self.stderr.write(f"asking the time scenario {path.name} ...")
            timed.append(evaluate_time(path, data, keep=keep))
        if timed:
            self.stdout.write("")
            for line in time_table(timed):
                self.stdout.write(line)
            for score in timed:
                if score.misses:
                    self.stdout.write(f"{score.name}, not right at rank 1: {score.misses}")
        return scores, [*accounted, *named, *with_phrases]

    def graph(self, paths: list[Path], *, keep: bool) -> None:
        try:
            scenarios = [(path, read_graph_scenario(path)) for path in paths]
        except NotAnAccount as error:
            raise CommandError(str(error)) from error
        migrated(self.stdout.write)
        self.stdout.write(f"Embedder {current_model_id()}, judge {judge_mode()}.")
        scores = []
        for path, data in scenarios:
            self.stderr.write(f"asking the graph scenario {path.name} ...")
            scores.append(evaluate_graph(path, data, keep=keep))
        for line in graph_table(scores):
            self.stdout.write(line)
        for score in scores:
            if score.misses:
                self.stdout.write(f"{score.name}, not in the top 5 with relations: {score.misses}")

    def extraction(self, paths: list[Path], *, keep: bool, **options) -> None:
        if not llm_configured():
            raise CommandError("No LLM is configured (GAIA_LLM_URL); nothing was measured.")
        threshold = options["threshold"]
        if not 0 < threshold <= 1:
            raise CommandError("--threshold must be between 0 and 1.")
        migrated(self.stdout.write)
        started = monotonic()
        try:
            rows = extraction.evaluate_files(
                paths,
                threshold=threshold,
                sessions=max(0, options["sessions"]),
                keep=keep,
                progress=self.stderr.write,
            )
        except FileNotFoundError as error:
            raise CommandError(str(error)) from error
        model = settings.GAIA_LLM_MODEL or "the server's default model"
        self.stdout.write(
            f"Extraction by {model}; a fact matches a gold observation at cosine >= "
            f"{threshold:.2f} ({current_model_id()})."
        )
        for line in extraction.report(rows):
            self.stdout.write(line)
        self.stdout.write(f"{monotonic() - started:.0f}s")


def _scenarios(path: Path) -> dict:
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise CommandError(f"{path}: {error}") from error
    if not isinstance(data, dict) or not {"own_facts", "nonsense_questions"} <= set(data):
        raise CommandError(f"{path}: needs 'own_facts' and 'nonsense_questions'.")
    return data
