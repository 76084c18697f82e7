"""A corpus of answers as local models really write them, for every LLM job.

Servers ignore JSON mode more often than not, and models wrap, reshape and decorate
their JSON. Each entry is the text one model family typically sends for the same
content (transcribed from the shapes Qwen 2.5/3, Llama 3.x, Gemma 2/3, Mistral and
DeepSeek-R1 distills produce behind Ollama, llama.cpp, Lemonade or vLLM), with what the
job must make of it. tests/learning/test_llm_answers.py runs every job against every
entry, through the parser alone and through the fake server end to end.

Ids in the texts are placeholders (9001 for "User lives in Berlin", 9002 for "User has
a cat in Berlin", 9003 for "User likes green tea"); `Answer.step(ids)` puts the real ones
in.
"""

import json
from dataclasses import dataclass
from typing import Any

from tests.learning import fake_llm as f

BERLIN, CAT, TEA = 9001, 9002, 9003


@dataclass(frozen=True)
class Answer:
    name: str
    model: str  # who writes like this
    text: str | None
    expect: Any = None  # what the job makes of it (per job, see each list)
    finish_reason: str = "stop"
    reasoning: str = ""  # thinking in a field of its own (vLLM, Ollama)
    parts: bool = False  # content as a list of text parts

    def filled(self, ids: dict[int, int] | None = None) -> str | None:
        text = self.text
        for placeholder, real in (ids or {}).items():
            text = text.replace(str(placeholder), str(real)) if text else text
        return text

    def step(self, ids: dict[int, int] | None = None) -> f.Step:
        return f.model_answer(
            self.filled(ids), self.finish_reason, reasoning=self.reasoning, parts=self.parts
        )


def _dump(value: Any, indent: int | None = None) -> str:
    return json.dumps(value, indent=indent, ensure_ascii=False)


# --- extraction: the same three changes (add the dog, move to Lisbon, the cat is gone)

ADD = {
    "op": "add",
    "category": "fact",
    "content": "User has a dog named Rex",
    "entity": "pet:rex",
    "domain": "personal",
}
UPDATE = {"op": "update", "knowledge_id": BERLIN, "content": "User lives in Lisbon"}
DELETE = {"op": "delete", "knowledge_id": CAT, "reason": "the cat stayed in Berlin with a friend"}
OPS = {"operations": [ADD, UPDATE, DELETE]}
ALL = {"added": 1, "updated": 1, "deleted": 1, "skipped": 0}
PRETTY = _dump(OPS, indent=2)

EXTRACTION = [
    Answer("json-mode", "Qwen2.5-7B-Instruct, JSON mode honoured", _dump(OPS), ALL),
    Answer("json-fence", "Qwen2.5 / Gemma 2 without JSON mode", f"```json\n{PRETTY}\n```", ALL),
    Answer(
        "qwen3-thinking",
        "Qwen3-8B (thinking on)",
        "<think>\nOkay, let me look at the latest message. The user says they moved from "
        'Berlin to Lisbon. Existing memory {"knowledge_id": 9001, "content": "User '
        "lives in Berlin\"} is outdated, so that's an update. The dog Rex is new: add. "
        "The cat stayed with a friend, so memory 9002 should be deleted. The format is "
        '{"operations": [...]}.\n</think>\n\n' + _dump(OPS),
        ALL,
    ),
    Answer(
        "qwen3-empty-thinking",
        "Qwen3 with /no_think",
        "<think>\n\n</think>\n\n" + PRETTY,
        ALL,
    ),
    Answer(
        "r1-distill-closing-tag-only",
        "DeepSeek-R1-Distill-Qwen-7B (the template opens <think>)",
        "Alright, so I need to figure out which memory operations apply. The user moved to "
        'Lisbon, so I should use {"op": "update"} on 9001. They mention a dog named Rex, '
        "which is new. And the cat stayed in Berlin, so delete 9002.\n</think>\n\n"
        f"```json\n{PRETTY}\n```",
        ALL,
    ),
    Answer(
        "reasoning-field",
        "DeepSeek-R1 distill behind vLLM --reasoning-parser",
        _dump(OPS),
        ALL,
        reasoning="The user moved to Lisbon; memory 9001 says Berlin: update it. {braces}",
    ),
    Answer(
        "llama-prose",
        "Llama 3.1 8B Instruct",
        "Here are the memory operations based on the user's latest message:\n\n"
        f"{PRETTY}\n\nI added a new memory about the user's dog, updated the user's "
        "location to Lisbon, and removed the memory about the cat since it stayed with a "
        "friend. Let me know if you need anything else!",
        ALL,
    ),
    Answer(
        "llama-fence-and-note",
        "Llama 3.2 3B Instruct",
        f"Here is the output in JSON format:\n\n```\n{PRETTY}\n```\n\nNote: the update "
        'uses {"knowledge_id": 9001} from the existing memories.',
        ALL,
    ),
    Answer(
        "gemma-markdown",
        "Gemma 3 12B",
        f"**Memory operations:**\n\n```json\n{PRETTY}\n```\n\n**Explanation:**\n\n"
        "* **Add:** The user has a dog named Rex (new information).\n"
        "* **Update:** The user now lives in Lisbon, not Berlin.\n"
        "* **Delete:** The cat stayed in Berlin.\n",
        ALL,
    ),
    Answer(
        "mistral-trailing-commas",
        "Mistral 7B Instruct v0.3",
        '{\n  "operations": [\n    {"op": "add", "category": "fact", "content": "User has a '
        'dog named Rex", "entity": "pet:rex",},\n    {"op": "update", "knowledge_id": 9001, '
        '"content": "User lives in Lisbon",},\n    {"op": "delete", "knowledge_id": 9002, '
        '"reason": "the cat stayed in Berlin with a friend",},\n  ],\n}',
        ALL,
    ),
    Answer(
        "mistral-markdown-escapes",
        "Mistral Small (Markdown habits inside JSON)",
        '{"operations": [{"op": "update", "knowledge\\_id": 9001, "content": "User lives in '
        'Lisbon"}, {"op": "add", "content": "User has a dog named Rex"}]}',
        {"added": 1, "updated": 1, "deleted": 0, "skipped": 0},
    ),
    Answer(
        "python-dict",
        "Llama 3.2 1B / Phi-3 mini (Python literals)",
        "{'operations': [{'op': 'add', 'category': 'fact', 'content': 'User has a dog named "
        "Rex', 'entity': None, 'domain': None}, {'op': 'update', 'knowledge_id': 9001, "
        "'content': 'User lives in Lisbon'}, {'op': 'delete', 'knowledge_id': 9002, "
        "'reason': 'the cat stayed in Berlin with a friend'}]}",
        ALL,
    ),
    Answer(
        "upper-case-ops",
        "any model given a mem0-style prompt before",
        _dump(
            {
                "operations": [
                    {**ADD, "op": "ADD"},
                    {**UPDATE, "op": "UPDATE"},
                    {**DELETE, "op": "DELETE"},
                    {"op": "NOOP", "knowledge_id": TEA},
                ]
            }
        ),
        {**ALL, "skipped": 1},
    ),
    Answer(
        "mem0-memory-events",
        "models prompted the mem0 way (event/text, NONE)",
        _dump(
            {
                "memory": [
                    {
                        "id": "9001",
                        "text": "User lives in Lisbon",
                        "event": "UPDATE",
                        "old_memory": "User lives in Berlin",
                    },
                    {"id": "9002", "text": "User has a cat in Berlin", "event": "DELETE"},
                    {"id": "9003", "text": "User likes green tea", "event": "NONE"},
                    {"id": "4", "text": "User has a dog named Rex", "event": "ADD"},
                ]
            },
            indent=4,
        ),
        {**ALL, "skipped": 1},
    ),
    Answer(
        "ids-as-strings",
        "Gemma 2 9B",
        _dump(
            {
                "operations": [
                    ADD,
                    {**UPDATE, "knowledge_id": "9001"},
                    {**DELETE, "knowledge_id": "#9002"},
                ]
            }
        ),
        ALL,
    ),
    Answer(
        "top-level-array",
        "Qwen2.5-3B",
        _dump([ADD, UPDATE, DELETE], indent=2),
        ALL,
    ),
    Answer(
        "one-operation-object",
        "Llama 3.2 3B",
        _dump(ADD),
        {"added": 1, "updated": 0, "deleted": 0, "skipped": 0},
    ),
    Answer(
        "facts-strings",
        "mem0's fact-extraction shape",
        _dump({"facts": ["User has a dog named Rex", "User moved to Lisbon"]}),
        {"added": 2, "updated": 0, "deleted": 0, "skipped": 0},
    ),
    Answer(
        "memories-objects",
        "Mistral Nemo",
        _dump({"memories": [{"content": "User has a dog named Rex", "category": "fact"}]}),
        {"added": 1, "updated": 0, "deleted": 0, "skipped": 0},
    ),
    Answer(
        "partial-objects",
        "small models: missing or renamed fields",
        _dump(
            {
                "Operations": [
                    {"content": "User has a dog named Rex"},
                    {"action": "Update", "id": 9001, "text": "User lives in Lisbon"},
                    {"type": "remove", "memory_id": 9002},
                ]
            }
        ),
        ALL,
    ),
    Answer(
        "wrapped-in-result",
        "Llama 3.1 with JSON mode",
        _dump({"result": OPS}),
        ALL,
    ),
    Answer(
        "line-comments",
        "Llama 3.1 8B commenting its JSON",
        '{\n  "operations": [\n    // the dog is new\n    {"op": "add", "content": "User has a '
        'dog named Rex"},\n    // the user moved\n    {"op": "update", "knowledge_id": 9001, '
        '"content": "User lives in Lisbon"}\n  ]\n}',
        {"added": 1, "updated": 1, "deleted": 0, "skipped": 0},
    ),
    Answer(
        "content-parts",
        "servers that send content as a list of parts",
        _dump(OPS),
        ALL,
        parts=True,
    ),
    Answer(
        "explicit-noop",
        "Qwen2.5-7B when nothing is new",
        '{"operations": [{"op": "NOOP", "reason": "nothing new worth remembering"}]}',
        {"added": 0, "updated": 0, "deleted": 0, "skipped": 1},
    ),
    Answer(
        "nothing",
        "any model when nothing is new",
        '{"operations": []}',
        {"added": 0, "updated": 0, "deleted": 0, "skipped": 0},
    ),
    Answer(
        "empty-object",
        "JSON mode with nothing to say",
        "{}",
        {"added": 0, "updated": 0, "deleted": 0, "skipped": 0},
    ),
]

# Answers nothing can be made of: each gets one repair request, then the job fails.
UNUSABLE = [
    Answer(
        "truncated",
        "any model at the token limit",
        '{"operations": [{"op": "add", "content": "User has a dog na',
        "cut off at the token limit",
        finish_reason="length",
    ),
    Answer(
        "thinking-cut-off",
        "Qwen3 thinking past max_tokens",
        "<think>\nThe user moved to Lisbon. Let me check the existing memories one by one",
        "cut off at the token limit",
        finish_reason="length",
    ),
    Answer(
        "reasoning-only-cut-off",
        "R1 distill behind vLLM, out of tokens while thinking",
        "",
        "cut off at the token limit",
        finish_reason="length",
        reasoning="Let me think about each memory in turn. First, 9001 says Berlin...",
    ),
    Answer(
        "prose-only",
        "Llama 3.2 1B ignoring the format",
        "The user moved to Lisbon and has a dog named Rex. I would update their location.",
        "answer not JSON",
    ),
    Answer(
        "wrong-shape",
        "a model answering another question",
        '{"thoughts": "The user seems happy about the move."}',
        "answer does not fit",
    ),
]

# --- extract action: two facts from a text blob

FACT_LIST = [
    {"category": "fact", "content": "User has a dog named Rex"},
    {"category": "preference", "content": "User prefers green tea"},
]
TWO_FACTS = ["User has a dog named Rex", "User prefers green tea"]
SEED_002 = {"extracted": TWO_FACTS}
FACTS = [
    Answer("json-mode", "Qwen2.5-7B, JSON mode", _dump({"facts": FACT_LIST}), TWO_FACTS),
    Answer(
        "json-fence", "Gemma 2 9B", f"```json\n{_dump({'facts': FACT_LIST}, 2)}\n```", TWO_FACTS
    ),
    Answer(
        "qwen3-thinking",
        "Qwen3-8B",
        '<think>\nTwo facts: the dog and the tea. Format {"facts": [...]}.\n</think>\n\n'
        + _dump({"facts": FACT_LIST}),
        TWO_FACTS,
    ),
    Answer(
        "r1-distill",
        "DeepSeek-R1-Distill-Llama-8B",
        "Okay, I need atomic facts.\n</think>\n\n```json\n"
        + _dump({"facts": FACT_LIST}, 2)
        + "\n```",
        TWO_FACTS,
    ),
    Answer(
        "llama-prose",
        "Llama 3.1 8B",
        f"Here are the atomic facts extracted from the text:\n\n{_dump({'facts': FACT_LIST}, 2)}"
        "\n\nThese facts capture the key information.",
        TWO_FACTS,
    ),
    Answer("strings", "mem0's shape", _dump({"facts": TWO_FACTS}), TWO_FACTS),
    Answer("top-level-strings", "Qwen2.5-3B", _dump(TWO_FACTS), TWO_FACTS),
    Answer("top-level-objects", "Mistral 7B", _dump(FACT_LIST, 2), TWO_FACTS),
    Answer(
        "memories-key",
        "Mistral Nemo",
        _dump({"memories": [{"fact": t} for t in TWO_FACTS]}),
        TWO_FACTS,
    ),
    Answer(
        "markdown-list",
        "Llama 3.2 3B ignoring JSON",
        "Here are the facts:\n\n- User has a dog named Rex\n- User prefers green tea\n",
        TWO_FACTS,
    ),
    Answer(
        "trailing-commas",
        "Mistral 7B",
        '{"facts": [{"content": "User has a dog named Rex",}, {"content": "User prefers '
        'green tea",},],}',
        TWO_FACTS,
    ),
    Answer(
        "python-dict",
        "Phi-3 mini",
        "{'facts': [{'content': 'User has a dog named Rex', 'entity': None}, "
        "{'content': 'User prefers green tea', 'entity': None}]}",
        TWO_FACTS,
    ),  # seed 002's own shape for the extract action: {"extracted": ["...", ...]}
    Answer("seed-002-extracted", "the extract action's own format", _dump(SEED_002), TWO_FACTS),
    Answer(
        "seed-002-thinking-fence",
        "Qwen3-8B",
        "<think>\nThe text has a dog and a tea preference.\n</think>\n\n```json\n"
        + _dump(SEED_002, 2)
        + "\n```",
        TWO_FACTS,
    ),
    Answer(
        "seed-002-prose",
        "Llama 3.1 8B",
        f"Sure! Here is the extraction:\n\n{_dump(SEED_002, 2)}\n\nLet me know if you need more.",
        TWO_FACTS,
    ),
    Answer(
        "seed-002-upper-case-keys",
        "Mistral 7B",
        _dump({"EXTRACTED": [{"Content": t} for t in TWO_FACTS]}),
        TWO_FACTS,
    ),
    Answer(
        "seed-002-r1-closing-tag",
        "DeepSeek-R1-Distill-Qwen-7B",
        "Two facts, as a list.\n</think>\n" + _dump(SEED_002),
        TWO_FACTS,
    ),
]

# --- consolidation: a summary and facts

SUMMARY = "Alice planned a move to Lisbon with her dog Rex."
CONSOLIDATION_FACTS = [{"category": "fact", "content": "User is moving to Lisbon"}]
CONSOLIDATION_EXPECT = {"summary": SUMMARY, "facts": ["User is moving to Lisbon"]}
CANON_CONSOLIDATION = {"summary": SUMMARY, "facts": CONSOLIDATION_FACTS}
CONSOLIDATION = [
    Answer("json-mode", "Qwen2.5-7B", _dump(CANON_CONSOLIDATION), CONSOLIDATION_EXPECT),
    Answer(
        "json-fence",
        "Gemma 3",
        f"```json\n{_dump(CANON_CONSOLIDATION, 2)}\n```",
        CONSOLIDATION_EXPECT,
    ),
    Answer(
        "qwen3-thinking",
        "Qwen3-14B",
        '<think>\nSummary first, then facts like {"category": "fact"}.\n</think>\n'
        + _dump(CANON_CONSOLIDATION),
        CONSOLIDATION_EXPECT,
    ),
    Answer(
        "summary-as-sentences",
        "Llama 3.1 8B",
        _dump({"summary": ["Alice planned a move to Lisbon", "with her dog Rex."]}),
        {"summary": "Alice planned a move to Lisbon with her dog Rex.", "facts": []},
    ),
    Answer(
        "capitalised-keys",
        "Mistral 7B",
        _dump({"Summary": SUMMARY, "Facts": ["User is moving to Lisbon"]}),
        CONSOLIDATION_EXPECT,
    ),
    Answer(
        "memories-key",
        "Mistral Nemo",
        _dump({"summary": SUMMARY, "memories": [{"text": "User is moving to Lisbon"}]}),
        CONSOLIDATION_EXPECT,
    ),
    Answer(
        "summary-only",
        "Gemma 2 2B",
        _dump({"summary": SUMMARY}),
        {"summary": SUMMARY, "facts": []},
    ),
    Answer(
        "llama-prose-trailing-comma",
        "Llama 3.2 3B",
        'Here is the consolidation:\n\n{\n  "summary": "Alice planned a move to Lisbon with '
        'her dog Rex.",\n  "facts": [{"content": "User is moving to Lisbon"},],\n}\n',
        CONSOLIDATION_EXPECT,
    ),
    Answer(
        "r1-distill",
        "DeepSeek-R1-Distill-Qwen-14B",
        "The conversation is about moving.\n</think>\n\n```json\n"
        + _dump(CANON_CONSOLIDATION, 2)
        + "\n```",
        CONSOLIDATION_EXPECT,
    ),
]

# --- reconciliation: pair 0 agrees, pair 1 contradicts

JUDGED = [(0, "reinforce"), (1, "contradict")]
CANON_JUDGEMENTS = {
    "judgements": [{"pair": 0, "outcome": "reinforce"}, {"pair": 1, "outcome": "contradict"}]
}
RECONCILIATION = [
    Answer("json-mode", "Qwen2.5-7B", _dump(CANON_JUDGEMENTS), JUDGED),
    Answer(
        "us-spelling",
        "Llama 3.1 8B",
        _dump({"judgments": CANON_JUDGEMENTS["judgements"]}),
        JUDGED,
    ),
    Answer(
        "numbers-as-strings-upper-case",
        "Gemma 2 9B",
        _dump(
            {
                "judgements": [
                    {"pair": "0", "outcome": "REINFORCE"},
                    {"pair": "1", "outcome": "Contradict"},
                ]
            }
        ),
        JUDGED,
    ),
    Answer("top-level-array", "Qwen2.5-3B", _dump(CANON_JUDGEMENTS["judgements"]), JUDGED),
    Answer(
        "index-mapping",
        "Mistral 7B",
        _dump({"0": "reinforce", "1": "contradicts"}),
        JUDGED,
    ),
    Answer(
        "thinking-and-fence",
        "Qwen3-8B",
        "<think>\nPair 0: same fact. Pair 1: Berlin vs Lisbon, the newer wins.\n</think>\n\n"
        f"```json\n{_dump(CANON_JUDGEMENTS, 2)}\n```",
        JUDGED,
    ),
    Answer(
        "other-key-names",
        "Llama 3.2 3B",
        _dump(
            {
                "results": [
                    {"pair_id": "pair 0", "verdict": "agrees"},
                    {"pair_id": "pair 1", "verdict": "contradiction"},
                ]
            }
        ),
        JUDGED,
    ),
    Answer(
        "r1-distill-prose",
        "DeepSeek-R1-Distill-Qwen-7B",
        "Comparing the pairs.\n</think>\n\nHere are my judgements:\n"
        + _dump(CANON_JUDGEMENTS)
        + "\nBoth pairs were judged.",
        JUDGED,
    ),
]

# --- profile: two bullets

BULLETS = ["User lives in Lisbon", "User has a dog named Rex"]
PROFILE = [
    Answer("json-mode", "Qwen2.5-7B", _dump({"bullets": BULLETS}), BULLETS),
    Answer("top-level-array", "Qwen2.5-3B", _dump(BULLETS), BULLETS),
    Answer("profile-key", "Llama 3.1 8B", _dump({"profile": BULLETS}), BULLETS),
    Answer(
        "one-string",
        "Gemma 2 9B",
        _dump({"bullets": "- User lives in Lisbon\n- User has a dog named Rex"}),
        BULLETS,
    ),
    Answer(
        "markdown-only",
        "Llama 3.2 3B ignoring JSON",
        "**User profile:**\n\n* User lives in Lisbon\n* User has a dog named Rex\n",
        BULLETS,
    ),
    Answer(
        "numbered-in-fence",
        "Mistral 7B",
        '```json\n{"bullets": ["1. User lives in Lisbon", "2. User has a dog named Rex"]}\n```',
        BULLETS,
    ),
    Answer(
        "objects",
        "Mistral Nemo",
        _dump({"bullets": [{"text": b} for b in BULLETS]}),
        BULLETS,
    ),
    Answer(
        "qwen3-thinking",
        "Qwen3-8B",
        '<think>\nMost important first: {"where": "Lisbon"}.\n</think>\n\n'
        + _dump({"bullets": BULLETS}),
        BULLETS,
    ),
    Answer(
        "r1-distill",
        "DeepSeek-R1-Distill-Llama-8B",
        "Let me rank them.\n</think>\n\n```json\n" + _dump({"bullets": BULLETS}, 2) + "\n```",
        BULLETS,
    ),
]

CORPUS: dict[str, list[Answer]] = {
    "extraction": EXTRACTION,
    "facts": FACTS,
    "consolidation": CONSOLIDATION,
    "reconciliation": RECONCILIATION,
    "profile": PROFILE,
}


def size() -> int:
    """How many answers the corpus holds (usable and unusable)."""
    return sum(len(v) for v in CORPUS.values()) + len(UNUSABLE)
