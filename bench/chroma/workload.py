"""The side-by-side workload: LoCoMo texts and questions, the same for every stack.

The LoCoMo dev split holds about 1,100 distinct turns and observations. To reach 10,000
items they are repeated, each copy with its session's date moved on by one year per
copy ("8 May 2024 - Caroline: ..."), so no two texts are equal, and in its own context,
so this project's dedup (which compares items of one context) does not fold one copy
into another. The questions are the answerable ones (categories 1-4), each asked once:
a repeated question would be answered from this project's query-vector cache.
"""

import json
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from retrieval.embedding.local import MODELS, LocalEmbedder

ANSWERABLE = {1, 2, 3, 4}
_DATE = re.compile(r"(\d{1,2} \w+),? (\d{4})")  # "1:56 pm on 8 May, 2023" -> 8 May 2023


@dataclass
class Workload:
    items: list[tuple[str, str]]  # (text, context)
    questions: list[str]
    # The embedder as this project's settings configure it, so every stack runs the same.
    model: str = ""  # a local model's name (`retrieval.embedding.local.MODELS`)
    model_path: str = ""
    tokenizer_path: str = ""
    embed_batch: int = 32
    embed_threads: int = 2

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(asdict(self)))

    def embedder(self) -> LocalEmbedder:
        """A local embedder built exactly as this project's settings build theirs."""
        return LocalEmbedder(
            MODELS[self.model],
            model_path=self.model_path,
            tokenizer_path=self.tokenizer_path,
            batch_size=self.embed_batch,
            threads=self.embed_threads,
        )

    @classmethod
    def load(cls, path: Path) -> "Workload":
        data = json.loads(path.read_text())
        return cls([tuple(item) for item in data.pop("items")], **data)


def _sessions(conversation: dict) -> list[tuple[int, int, str, list[tuple[str, str]]]]:
    """(day, month-year key, date text, [(speaker, text)]) per session, turns then facts."""
    out = []
    for key, turns in conversation.items():
        match = re.fullmatch(r"session_(\d+)", key)
        if not match or not isinstance(turns, list):
            continue
        found = _DATE.search(conversation.get(f"{key}_date_time", ""))
        day, year = (found.group(1), int(found.group(2))) if found else ("1 January", 2023)
        texts = [(t.get("speaker", ""), t.get("text", "")) for t in turns]
        for speaker, facts in (conversation.get(f"{key}_observation") or {}).items():
            texts += [(speaker, fact[0]) for fact in facts if fact and fact[0]]
        out.append((int(match.group(1)), year, day, texts))
    return sorted(out)


def from_locomo(folder: Path, *, items: int) -> Workload:
    """`items` texts and every answerable question of the conversations in `folder`."""
    dated: list[tuple[str, int, str, str]] = []  # (day, year, speaker, text)
    questions: list[str] = []
    seen: set[str] = set()
    for path in sorted(folder.glob("*.json")):
        conversation = json.loads(path.read_text())
        for _, year, day, texts in _sessions(conversation):
            for speaker, text in texts:
                text = " ".join(str(text).split())
                if text and text not in seen:
                    seen.add(text)
                    dated.append((day, year, speaker, text))
        for qa in conversation.get("qa", []):
            if qa.get("category") in ANSWERABLE and qa["question"] not in questions:
                questions.append(qa["question"])
    if not dated:
        raise FileNotFoundError(f"No LoCoMo conversations in {folder}")
    out = []
    for n in range(items):
        copy, (day, year, speaker, text) = divmod(n, len(dated))[0], dated[n % len(dated)]
        out.append((f"{day} {year + copy} - {speaker}: {text}", f"copy-{copy}"))
    return Workload(out, questions)
