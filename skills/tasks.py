"""django-q2 tasks of skill memory: thin wrappers over its services (ids in, idempotent)."""

from conversations.selectors import session_owner_id
from core.erasing import held_during_erase
from skills.learn import skills_learn
from skills.services import skills_decay


@held_during_erase(session_owner_id)  # a lesson from a session whose person is being erased
def learn_skills(session_pk: int) -> dict:
    return skills_learn(session_pk=session_pk)


def decay_skills() -> int:
    return skills_decay()
