"""The judge stage: a cross-encoder decides how relevant each fused candidate is.

The fused ranking (vector + keyword) finds candidates; it cannot tell an answer from a
text that shares a word or a topic with the question. The judge reads the question with
each of the first candidates; its calibrated probability (`calibrate`) and the fused
relevance together make the hit's `relevance` (`blend`: the judge vouches for what it
recognises, and where it is sure a text is unrelated, matched words alone no longer
keep it), in [0, 1] and comparable across questions, so the floor keeps what answers.
The judge alone is not enough: it scores some plain paraphrases like unrelated text
(docs/decisions.md has the measurements).

The judge is the local cross-encoder (`retrieval.crossencoder`) or, when GAIA_RERANK_URL
is set, a `/v1/rerank` server (`retrieval.rerank`). It sees at most GAIA_JUDGE_CANDIDATES
candidates; past GAIA_JUDGE_DEADLINE seconds, or when it fails, the fused order and
relevance stand and the answer says the hits were not judged. A caller can skip it
(`judge=False`: the fast path).
"""

import logging
import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from django.conf import settings

from core.server import metrics
from retrieval import fusion, rerank
from retrieval.asked import asked_clause
from retrieval.crossencoder import CrossEncoder, JudgeError, JudgeTimeout

log = logging.getLogger(__name__)
BREAKER_SECONDS = 30.0  # after the local model fails to load, it is not tried again for this
_local: CrossEncoder | None = None
_local_failed_until = 0.0
_lock = threading.Lock()


@dataclass(frozen=True)
class Verdict:
    """The judge's answer for the candidates it was shown."""

    hits: list[fusion.Fused]  # best first; relevance blended from the judge's and the fused
    judged: bool  # False: the fused order stands (no judge, skipped, failed or too slow)
    reason: str = ""  # why not judged ("" when judged)


def mode() -> str:
    """ "remote" (a /v1/rerank server), "local" (the packaged cross-encoder) or "off"."""
    if rerank.configured():
        return "remote"
    value = (settings.GAIA_JUDGE or "local").strip().lower()
    return "off" if value in {"off", "none", "0", "false", "no"} else "local"


def local_judge() -> CrossEncoder:
    """This process's cross-encoder, loaded on first use; JudgeError if it cannot be."""
    global _local, _local_failed_until
    if _local is not None:
        return _local
    with _lock:
        if _local is None:
            if time.monotonic() < _local_failed_until:
                raise JudgeError("the relevance judge failed to load recently")
            try:
                _local = CrossEncoder(
                    threads=settings.GAIA_JUDGE_THREADS,
                    concurrency=settings.GAIA_JUDGE_CONCURRENCY,
                )
            except JudgeError:
                _local_failed_until = time.monotonic() + BREAKER_SECONDS
                metrics.model_load_error("judge")
                raise
    return _local


def calibrate(logit: float) -> float:
    """The cross-encoder's logit as the probability that the text answers the question:
    a logistic curve through LOGIT_MID (0.5), LOGIT_SCALE logits per e-fold. Fitted on
    questions with known answers and questions about nothing stored (docs/recall.md)."""
    return 1.0 / (1.0 + math.exp(-(logit - LOGIT_MID) / LOGIT_SCALE))


LOGIT_MID = -4.0
LOGIT_SCALE = 1.5
# The judge is sure a text does not answer below this logit (about -11 for unrelated
# text): such a candidate keeps no relevance from the fused evidence unless the row's own
# embedding is STRONGly similar (matched words alone never overrule the judge, which read
# them: "living" and "lives" share a stem, not a meaning). Above it, the judge adds what it
# recognises to the fused relevance: it misses some paraphrases ("How do I commute?" ->
# "rides a folding bike to work", logit -11), and a conversation turn can mean more than
# its words.
VETO = 1.0 / (1.0 + math.exp(-(-10.0 - LOGIT_MID) / LOGIT_SCALE))
STRONG = 0.6
# Below this the judge leans towards "does not answer" (logit about -7.3): such a candidate
# that does not follow what the question names and the owner never said (`Fused.unmet`:
# "Which marathon did I run in 2024?" -> "Went to Brazil in October 2024") keeps no
# relevance from the words and similarity it shares with the rest of the question.
LEANS_NO = 0.1
# On the similarity scale, a candidate this near the question's unsaid words alone (bge
# cosine about 0.53) is not unrelated to them: `unmet` needs both tests to find it apart.
FAR = 0.1
# Above this the judge vouches for a row on its own (logit about -3.1), even when the
# question names something the owner's rows never say (`framed_only`): "When is the team
# away day?" -> "The team's offsite is in Cardiff".
SURE = 0.65
# The judge's order is kept close to the fused one: each halving of a candidate's fused
# rank is worth RANK_WEIGHT logits of the judge.
RANK_WEIGHT = 1.0
# A candidate of a day the query names, or said by the speaker it names (the fused stage's
# boosts, `retrieval.pipeline.ranked`), gains this many logits: the judge reads "on 1
# February, 2023" or "Gina" as words, not as the row's time or its speaker.
NAMED_WEIGHT = 2.0
# A question placed in time ("what did the dentist say about a week ago?") searched within
# that time keeps hits this share of the floor relevant: the time is half of what it asks.
TIMED_FLOOR = 0.5


def _logistic(odds: float) -> float:
    return 1.0 / (1.0 + math.exp(-odds))


def _odds(p: float) -> float:
    p = min(max(p, 1e-6), 1 - 1e-6)
    return math.log(p / (1 - p))


def framed_only(p: float, fused: fusion.Fused) -> bool:
    """Whether the candidate matched only the frame of a question that names something
    none of the owner's rows say: "What's my favourite Pokémon?" of a person who never
    mentioned Pokémon, and "User's favourite wine is Albariño", which shares "favourite"
    with it (as several of the person's memories do). The words it shares with the
    question are all words many of the owner's rows hold (`fusion.Fused.framed`), it is no
    nearer to the absent words than unrelated text (`topic` 0), its embedding is not
    STRONGly similar to the question and the judge is not SURE: it is no more relevant than
    a row sharing nothing."""
    return fused.framed and fused.topic <= 0.0 and fused.similarity < STRONG and p < SURE


def unmet(p: float, fused: fusion.Fused) -> bool:
    """Whether the candidate matched only the rest of a question that names something
    none of the owner's rows say: it does not follow those words (`fusion.Fused.unmet`)
    and is not near them on their own either (`topic` under FAR), its embedding is not
    STRONGly similar to the question and the judge leans towards "no" (below LEANS_NO).
    A paraphrase passes one of the two tests of the unsaid words: "Are there foods I must
    avoid?" and "User cannot eat gluten" (topic 0.36), "How do I like review comments
    ordered?" and "User wants code reviews to list blocking issues first" (0.27)."""
    return fused.unmet and fused.topic < FAR and fused.similarity < STRONG and p < LEANS_NO


def blend(p: float, fused: fusion.Fused, rank: int, *, timed: bool = False) -> tuple[float, float]:
    """(score, relevance) of a candidate the judge gave probability `p`, at 0-based fused
    `rank`: the relevance is the judge's, or the fused relevance unless the judge vetoes
    it; the score orders by the judge, kept near the fused order. A match on the account's
    shared words alone (`framed_only`) keeps neither. `timed`: the question named a time
    and the candidate is of that time (the search was narrowed to it): the judge, which
    reads "what did I book?" without the "yesterday" that chose the rows, vetoes nothing,
    and what it does not rule out gains NAMED_WEIGHT logits, as a row of a named day does
    ("What did I buy yesterday?" -> "ordered a climbing harness", 0.032 -> 0.11)."""
    if framed_only(p, fused) or unmet(p, fused):
        p = min(p, VETO / 2)
    vetoed = p < VETO and fused.similarity < STRONG and not timed
    if timed and p >= VETO:  # of the time named: that is what the judge did not read
        p = _logistic(_odds(p) + NAMED_WEIGHT / LOGIT_SCALE)
    vouched = 0.0 if vetoed else fused.relevance
    named = len(fused.stages & {"date", "speaker"})
    key = _odds(p) + (NAMED_WEIGHT * named - RANK_WEIGHT * math.log1p(rank)) / LOGIT_SCALE
    return _logistic(key), max(p, vouched)


def _scores(query: str, texts: Sequence[str], deadline: float) -> list[float]:
    """A relevance in [0, 1] per text; JudgeError (JudgeTimeout) when it cannot be had."""
    if mode() == "remote":
        scores = rerank.rerank_scores(query, list(texts))
        if scores is None:
            raise JudgeError("the rerank server did not answer")
        # A server's scores are taken as probabilities when they look like them.
        if all(0.0 <= s <= 1.0 for s in scores):
            return scores
        return [calibrate(s) for s in scores]
    logits = local_judge().logits(query, texts, deadline=deadline)
    return [calibrate(float(x)) for x in logits]


# The leading candidates read a second time with the question alone, when it came with
# the caller's phrasings (`read_pairs`).
ALONE = 5


def read_pairs(query: str, asked: str, texts: Sequence[str], deadline: float) -> list[float]:
    """The judge's probability for each text: read with `query` (the question and the
    caller's phrasings), and the first ALONE also with the question `asked` alone, each
    keeping the higher. The phrasings add words the question lacks; they must not take
    away what the question says on its own: "How old is my daughter? (user's daughter
    age; daughter's school year)" reads "User is 41" above "Daughter Beatriz, 9" (0.90
    against 0.45), the question alone reads the daughter at 0.80.

    A question with the speaker's scene before it is read alone as the clause that asks
    (`retrieval.asked`): "I've a toothache, who's my dentist?" reads the dentist at 0.30,
    "who's my dentist?" at 0.99."""
    scores = _scores(query, texts, deadline)
    asked = asked_clause(asked) or asked if asked else asked
    if not asked or asked == query:
        return scores
    alone = _scores(asked, texts[:ALONE], deadline)
    return [max(a, b) for a, b in zip(scores, alone, strict=False)] + scores[len(alone) :]


@metrics.timed("judge")
def judge(
    query: str,
    fused: list[fusion.Fused],
    documents: Callable[[list[int]], dict[int, str]],
    *,
    top_k: int,
    min_relevance: float,
    timed: bool = False,
    asked: str = "",
    candidates: int = 0,
) -> Verdict:
    """The first candidates judged, best first, those below `min_relevance` left out
    (with the rest the judge never saw, unless `min_relevance` is 0: they follow in
    fused order at relevance 0). `timed`: the candidates are of the time the question
    named (`blend`), and the floor is TIMED_FLOOR of `min_relevance`: the time chose them
    as much as the words did. `asked`: the question alone, when `query` adds the caller's
    phrasings to it (`read_pairs`). `candidates`: how many it reads (default
    GAIA_JUDGE_CANDIDATES), never fewer than `top_k`."""
    if timed:
        min_relevance *= TIMED_FLOOR
    if not fused:
        return Verdict([], True)
    shown = max(top_k, candidates or settings.GAIA_JUDGE_CANDIDATES)
    head, tail = fused[:shown], fused[shown:]
    texts = documents([f.id for f in head])
    head = [f for f in head if f.id in texts]
    deadline = time.monotonic() + settings.GAIA_JUDGE_DEADLINE
    try:
        scores = read_pairs(query, asked, [texts[f.id] for f in head], deadline)
    except JudgeTimeout as error:
        log.warning("recall not judged: %s", error)
        return Verdict(fused, False, "deadline")
    except JudgeError as error:
        log.warning("recall not judged: %s", error)
        return Verdict(fused, False, "unavailable")
    blended = [
        blend(p, f, rank, timed=timed) for rank, (f, p) in enumerate(zip(head, scores, strict=True))
    ]
    kept = sorted(
        (
            replace(f, score=score, relevance=relevance)
            for f, (score, relevance) in zip(head, blended, strict=True)
            if relevance >= min_relevance
        ),
        key=lambda f: -f.score,
    )
    judged = list(kept)
    if min_relevance <= 0:
        judged += [fusion.Fused(f.id, f.score, f.stages, 0.0) for f in tail]
    return Verdict(judged, True)


class Hits(list):
    """Hits, best first, that also say whether the judge chose them (and if not, why:
    "off", "skipped" by the caller, "deadline", "unavailable")."""

    def __init__(
        self, hits=(), *, judged: bool = False, reason: str = "", time_read: dict | None = None
    ) -> None:
        super().__init__(hits)
        self.judged = judged
        self.reason = "" if judged else reason
        self.time_read = time_read  # the window a time expression of the question gave
        if not judged:
            metrics.unjudged(reason)

    def answer(self) -> dict:
        """The hits as an API answer: {results, judged, judge_note, time_read}."""
        return {
            "results": list(self),
            "judged": self.judged,
            "judge_note": self.reason,
            "time_read": self.time_read,
        }


def reset() -> None:
    """Forget a recent failure to load the local judge (tests, or after a reinstall)."""
    global _local_failed_until
    _local_failed_until = 0.0
