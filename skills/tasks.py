"""django-q2 tasks of skill memory: thin wrappers over its services (ids in, idempotent)."""

from skills.learn import skills_learn
from skills.services import skills_decay


def learn_skills(session_pk: int) -> dict:
    return skills_learn(session_pk=session_pk)


def decay_skills() -> int:
    return skills_decay()
