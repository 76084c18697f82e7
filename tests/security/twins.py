"""Two users with near-identical memory: the same texts, session ids, tool names,
entities and contexts, plus a few rows carrying a marker word unique to each user.

Isolation tests act as one twin and look for the other's markers and ids.
"""

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from django.db import models
from django.utils import timezone

from accounts.models import Agent, AgentType, ApiToken, UserSettings
from accounts.services import token_create, user_settings_update
from conversations.models import Session, ToolCall, Turn
from conversations.services.recording import tool_call_record, turn_append
from discovery.models import Finding
from discovery.services import finding_propose_many
from graph.models import Alias, Entity, Mention, Relation
from graph.services import entity_create, entity_holder, entity_link_items, relation_add
from learning.models import LLMCounter, ProfileCache, ReconciledPair
from memory import lineage, services
from memory.models import ImportJob, KnowledgeItem
from retrieval.models import IndexGeneration
from skills.models import Skill, SkillContribution
from webhooks.models import Endpoint
from webhooks.services import endpoint_create

MARKERS = {"alice": "kestrelalice", "bob": "kestrelbob"}
SHARED_SESSION = "shared-session"
SHARED_TEXTS = [
    ("fact", "The user works on project gaia", "work", "project:gaia"),
    ("preference", "Prefers dark mode in every editor", "global", ""),
    ("skill", "Writes Rust and Python for the gaia project", "work", "project:gaia"),
]
# Every model holding a user's rows, and the field naming the user.
OWNED = [
    (KnowledgeItem, "owner"),
    (Turn, "owner"),
    (Session, "owner"),
    (ToolCall, "owner"),
    (Finding, "owner"),
    (ApiToken, "owner"),
    (Agent, "owner"),
    (ReconciledPair, "owner"),
    (ProfileCache, "owner"),
    (LLMCounter, "owner"),
    (ImportJob, "owner"),
    (SkillContribution, "owner"),
    (UserSettings, "user"),
    (IndexGeneration, "user"),
    (Endpoint, "owner"),
    (Entity, "owner"),
    (Alias, "owner"),
    (Mention, "owner"),
    (Relation, "owner"),
]


@dataclass
class Twin:
    user: Any
    marker: str
    items: dict[str, KnowledgeItem] = field(default_factory=dict)
    turns: list[Turn] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    tool_calls: list[ToolCall] = field(default_factory=list)
    token: ApiToken | None = None
    endpoint: Endpoint | None = None
    private_session: str = ""
    import_job: ImportJob | None = None
    skill: Skill | None = None
    entity: Entity | None = None
    relation: Relation | None = None

    def ids(self, model: type[models.Model]) -> set[int]:
        owner = dict(OWNED)[model]
        return set(model.objects.filter(**{owner: self.user}).values_list("pk", flat=True))

    def content_ids(self) -> set[tuple[str, int]]:
        """(content, id) of every item, turn and finding: how a row shows in an answer."""
        pairs: set[tuple[str, int]] = set()
        for model in (KnowledgeItem, Turn, Finding):
            pairs.update(
                (content, pk)
                for pk, content in model.objects.for_user(self.user).values_list("pk", "content")
            )
        return pairs


def twin_type(user: Any) -> AgentType:
    return AgentType.objects.get_or_create(name=f"{user.username}_type")[0]


def seed_twin(user: Any) -> Twin:
    """Memory, conversations, tool calls, findings and a token for `user`."""
    twin = Twin(user=user, marker=MARKERS[user.username])
    mark = twin.marker
    user_settings_update(user=user, discovery_consent=True, contexts=["work"])
    # The name never resolves (.invalid): the events below wait in the outbox, with their data.
    twin.endpoint = endpoint_create(user=user, url=f"https://hooks.invalid/{mark}", events="*")[0]
    for index, (category, content, context, entity) in enumerate(SHARED_TEXTS):
        twin.items[f"shared{index}"] = services.memory_create(
            user=user, content=content, category=category, context=context, entity=entity
        )
    twin.items["reminder"] = services.memory_create(
        user=user,
        content="Call the bank about the mortgage",
        category="reminder",
        due_at=timezone.now() + timedelta(days=1),
    )
    twin.items["sensitive"] = services.memory_create(
        user=user, content="Blood type is O negative", sensitive=True
    )
    twin.items["marker"] = services.memory_create(
        user=user,
        content=f"The secret codeword is {mark}",
        entity=f"code:{mark}",
        context=f"ctx{mark}",
    )
    forgotten = services.memory_create(user=user, content="Used to live in Berlin")
    twin.items["forgotten"] = services.memory_forget(user=user, item_id=forgotten.pk)
    old = services.memory_create(user=user, content="Lives in Porto near the old bridge")
    new = services.memory_create(user=user, content="Lives in Lisbon by the river")
    twin.items["new"] = services.memory_update(  # keeps a version
        user=user, item_id=new.pk, content="Lives in Lisbon by the river Tagus"
    )
    lineage.memory_supersede_by(user=user, item_id=old.pk, by_id=new.pk)
    twin.items["old"] = KnowledgeItem.objects.get(pk=old.pk)
    for role, content in (
        ("user", "I work on project gaia every single day"),
        ("user", f"My secret codeword is {mark} please remember it"),
        ("assistant", "Noted, I will remember that."),
    ):
        twin.turns.append(
            turn_append(user=user, session_id=SHARED_SESSION, role=role, content=content)
        )
    twin.private_session = f"private-{mark}"
    twin.turns.append(
        turn_append(
            user=user,
            session_id=twin.private_session,
            role="user",
            content=f"Private notes about {mark} and nothing else at all",
        )
    )
    twin.tool_calls = [
        tool_call_record(
            user=user,
            tool_name="web_search",
            session_id=SHARED_SESSION,
            success=False,
            error=f"quota exceeded for {mark}",
        ),
        tool_call_record(user=user, tool_name="calendar", success=True, result_summary="ok"),
    ]
    proposed = finding_propose_many(
        user=user,
        findings=[
            {"scanner": "projects", "content": "Uses the Rust programming language"},
            {"scanner": "projects", "content": f"Has a project called {mark}"},
        ],
    )
    twin.findings = proposed.created
    twin.token, _ = token_create(user=user, name="test-agent")
    # The twin's agents are of its own type, whose approved skill names the twin (a
    # skill never should; here it makes any leak across types visible).
    twin.skill = Skill.objects.create(
        agent_type=twin_type(user),
        status="approved",
        trigger=f"When the user asks about the secret codeword of project gaia {mark}",
        procedure=f"Look up the codeword with the {mark} tool",
    )
    twin.token.agent.agent_type = twin_type(user)
    twin.token.agent.save()
    twin.import_job = ImportJob.objects.create(  # a finished background import
        owner=user, status="done", records_total=3, records_done=3, created={"knowledge": 3}
    )
    # The same name in both graphs, with an alias carrying the marker.
    twin.entity = entity_create(user=user, name="Rui", kind="person", aliases=[f"{mark} Rui"])
    entity_link_items(user=user, entity=twin.entity, item_ids=[twin.items["marker"].pk])
    twin.relation = relation_add(
        user=user, subject=entity_holder(user=user), type="partner_of", object=twin.entity,
        item_ids=[twin.items["marker"].pk],
    )  # fmt: skip
    return twin


def snapshot(user: Any) -> dict[str, list[dict]]:
    """Every row of `user` in every owned model, to compare before and after."""
    return {
        model.__name__: list(model.objects.filter(**{owner: user}).order_by("pk").values())
        for model, owner in OWNED
    }
