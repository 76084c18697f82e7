"""Synthetic but plausible memory texts for the speed benchmark (deterministic per seed)."""

import random

NAMES = (
    "Sarah Chen, Tom, Priya, the user, Marco, Aiko, Jonas, Fatima, Lena, Omar, Grace, Ivan, "
    "Nora, Diego, Mei, Kofi, Anna, Raj, Elena, Sam"
).split(", ")
VERBS = (
    "prefers, uses, is learning, dislikes, plans to try, recommended, is working on, forgot, "
    "asked about, bought, wants to visit, maintains, reviewed, fixed, is reading about, "
    "scheduled, moved to, cancelled, enjoys, tracks"
).split(", ")
TOPICS = (
    "dark roast coffee|the gaia project|rust async runtimes|a trip to Lisbon|postgres "
    "replication|the quarterly report|jazz piano|sourdough bread|kubernetes upgrades|"
    "marathon training|the dentist appointment|a new laptop|japanese lessons|the garden "
    "irrigation|tax documents|the book club|react native|home solar panels|vegan recipes|"
    "the team offsite|chess openings|bird photography|the car insurance|ceramics class|"
    "python type hints|the wedding plan|board games|climbing gym|the mortgage|podcast editing"
).split("|")
WHEN = (
    "on Mondays|every morning|next week|last year|after work|in the summer|before "
    "meetings|on weekends|this month|since March|at night|during holidays"
).split("|")
DETAILS = (
    "because it saves time|with two colleagues|using a spreadsheet|on the old laptop|for "
    "the kids|to reduce costs|with a strict budget|after a long break|as a side project|"
    "with detailed notes|despite the delays|for better sleep|with help from a mentor|"
    "to meet the deadline|in small steps"
).split("|")


class TextSource:
    """Item texts, turn texts and questions over one shared vocabulary."""

    def __init__(self, seed: int = 7) -> None:
        self.random = random.Random(seed)

    def _pick(self, options: list[str]) -> str:
        # Zipf-like popularity: early options are much more frequent, like real topics.
        index = min(int(self.random.paretovariate(1.2)) - 1, len(options) - 1)
        return options[self.random.randrange(len(options)) if index < 0 else index]

    def item(self, number: int) -> str:
        return (
            f"{self.random.choice(NAMES)} {self._pick(VERBS)} {self._pick(TOPICS)} "
            f"{self.random.choice(WHEN)} {self.random.choice(DETAILS)} (note {number})"
        )

    def turn(self, number: int) -> str:
        return (
            f"I think {self._pick(TOPICS)} matters {self.random.choice(WHEN)}; "
            f"{self.random.choice(NAMES)} {self._pick(VERBS)} it {self.random.choice(DETAILS)} "
            f"(message {number})"
        )

    def question(self) -> str:
        frames = (
            "What does {name} think about {topic}?",
            "When did {name} talk about {topic} {when}?",
            "Remind me what {name} {verb} {topic}",
            "{topic} {detail}",
        )
        return self.random.choice(frames).format(
            name=self.random.choice(NAMES),
            topic=self.random.choice(TOPICS),
            when=self.random.choice(WHEN),
            verb=self.random.choice(VERBS),
            detail=self.random.choice(DETAILS),
        )

    def questions(self, count: int) -> list[str]:
        """`count` distinct questions (so no query-embedding cache hit flatters a timing)."""
        seen: dict[str, None] = {}
        while len(seen) < count:
            seen.setdefault(self.question(), None)
        return list(seen)
